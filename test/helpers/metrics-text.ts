/** Reading Prometheus text from a real server's or gateway's /metrics in tests. */

/** The sum of every sample of `name` whose labels include all of `labels`. */
export function sumOf(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf('{');
    const close = line.lastIndexOf('}');
    const labelText = open === -1 || open > name.length ? '' : line.slice(open + 1, close);
    const have = new Map<string, string>();
    for (const m of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) have.set(m[1]!, m[2]!);
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** How many /v2/query requests a database server has answered, from its /metrics. */
export async function queriesServed(serverUrl: string): Promise<number> {
  const res = await fetch(`${serverUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET ${serverUrl}/metrics: ${res.status}`);
  return sumOf(await res.text(), 'trellis_http_requests_total', { route: '/v2/query' });
}
