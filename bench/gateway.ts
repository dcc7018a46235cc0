/**
 * Gateway overhead (issue 12): point reads straight to a database server against the same
 * reads through a gateway with its Redis token bucket on, and through a gateway with rate
 * limiting off, interleaved run by run so every figure sees the same machine noise.
 *  - one connection: p50/p99 latency; target: the gateway adds at most 0.5 ms to the p50;
 *  - `--connections` (32): requests/s; target: the limiter costs at most 10% of the
 *    gateway's throughput (bucket on against bucket off).
 * The gateways log at `warn` (no line per request), as the figures are about forwarding.
 *
 *   node dist/bench/gateway.js [--size tiny|small] [--duration S] [--repeat N] [--connections N]
 *
 * Prints one JSON object on stdout; progress goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newKey } from '../src/gateway/keys.js';
import { startRedis } from '../test/helpers/redis.js';
import { DEFAULT_SEED, SIZES } from './lib/dataset.js';
import { startChild, type Child } from './lib/child.js';
import { machine, parseBenchArgs, positiveInt, positiveNumber, progress, runBench } from './lib/cli.js';
import { prepareDatabase } from './lib/prepare.js';
import { timedLoad, type Outgoing, type TimedRun } from './lib/raw-client.js';
import { readScenarios } from './lib/scenarios.js';
import { median, percentile, round } from './lib/stats.js';
import { buildTruth } from './lib/truth.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const LISTENING = /listening on http:\/\/[^:]+:(\d+)/;

interface Figures {
  p50_us: number;
  p99_us: number;
  requests_per_s: number;
}

function figures(name: string, run: TimedRun): Figures {
  if (run.failures > 0) throw new Error(`${name}: ${run.failures} answers were not 200`);
  return {
    p50_us: round(percentile(run.latenciesUs, 50)),
    p99_us: round(percentile(run.latenciesUs, 99)),
    requests_per_s: Math.round(run.requests / run.seconds),
  };
}

function medians(runs: Figures[]): Figures {
  const pick = (k: keyof Figures) => round(median(runs.map((r) => r[k])));
  return { p50_us: pick('p50_us'), p99_us: pick('p99_us'), requests_per_s: pick('requests_per_s') };
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['duration', 'connections']);
  const duration = positiveNumber(args.values.duration, 5, 'duration');
  const connections = positiveInt(args.values.connections, 32, 'connections');
  const repeat = args.repeat === 1 ? 3 : args.repeat;
  const prepared = await prepareDatabase(args.size, DEFAULT_SEED);
  const children: Child[] = [];
  const redis = await startRedis();
  try {
    await prepared.close();
    const truth = buildTruth(DEFAULT_SEED, SIZES[args.size]);
    const point = readScenarios(truth, DEFAULT_SEED).find((s) => s.name === 'point_read')!;
    const server = await startChild('trellis', [], CLI, ['--port', '0', '--data', prepared.dir], LISTENING, /trellis ready/);
    children.push(server);

    const { key, sha256 } = newKey();
    const gateway = async (name: string, rateLimit: boolean): Promise<Child> => {
      const file = join(prepared.dir, `${name}.json`);
      const config = {
        mode: 'shared',
        redis: { url: redis.url },
        rate_limit: rateLimit,
        // A bucket that never runs dry: every request pays for the script call, none is refused.
        databases: { main: { writer: `http://127.0.0.1:${server.port}`, rate: 1e9, burst: 1e9 } },
        keys: [{ name: 'bench', sha256, databases: { main: ['read'] } }],
        log_level: 'warn',
      };
      writeFileSync(file, JSON.stringify(config));
      const child = await startChild(name, [], CLI, ['gateway', '--config', file, '--port', '0'], LISTENING, LISTENING);
      children.push(child);
      return child;
    };
    const limited = await gateway('gateway', true);
    const unlimited = await gateway('gateway-no-limit', false);

    let i = 0;
    const headers = `Authorization: Bearer ${key}\r\nX-Svc-Database-Id: main\r\n`;
    const direct = (): Outgoing => point.requests[i++ % point.requests.length]!;
    const viaGateway = (): Outgoing => ({ body: point.requests[i++ % point.requests.length]!, headers });
    const targets = [
      { name: 'direct', port: server.port, next: direct },
      { name: 'gateway', port: limited.port, next: viaGateway },
      { name: 'gateway_no_limit', port: unlimited.port, next: viaGateway },
    ] as const;
    for (const t of targets) {
      const check = await timedLoad(t.port, 1, 0.3, t.next);
      if (check.failures > 0) throw new Error(`${t.name}: warm-up answers were not 200`);
    }

    const one: Record<string, Figures[]> = { direct: [], gateway: [], gateway_no_limit: [] };
    const many: Record<string, Figures[]> = { direct: [], gateway: [], gateway_no_limit: [] };
    const limiterCosts: number[] = [];
    for (let r = 0; r < repeat; r++) {
      // The order turns each run, so no target always follows the same one (the direct
      // server's load leaves the server and the machine in a different state than a gateway's).
      const order = targets.map((_, k) => targets[(k + r) % targets.length]!);
      for (const t of order) {
        const f1 = figures(t.name, await timedLoad(t.port, 1, duration, t.next));
        const fN = figures(t.name, await timedLoad(t.port, connections, duration, t.next));
        progress(
          `${t.name} run ${r + 1}/${repeat}: 1 conn p50 ${f1.p50_us} µs p99 ${f1.p99_us} µs; ${connections} conns ${fN.requests_per_s} req/s`,
        );
        one[t.name]!.push(f1);
        many[t.name]!.push(fN);
      }
      limiterCosts.push(round(1 - many['gateway']!.at(-1)!.requests_per_s / many['gateway_no_limit']!.at(-1)!.requests_per_s, 3));
    }
    const summary = (runs: Record<string, Figures[]>) => Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, medians(v)]));
    const oneConn = summary(one);
    const manyConn = summary(many);
    const report = {
      bench: 'gateway',
      machine: machine(),
      dataset: { size: args.size, ...SIZES[args.size] },
      load: { duration_s: duration, repeat, connections, scenario: 'point_read', gateway_log_level: 'warn' },
      one_connection: oneConn,
      many_connections: manyConn,
      results: {
        gateway_added_p50_us: round(oneConn.gateway!.p50_us - oneConn.direct!.p50_us),
        gateway_added_p99_us: round(oneConn.gateway!.p99_us - oneConn.direct!.p99_us),
        limiter_cost_of_throughput: round(1 - manyConn.gateway!.requests_per_s / manyConn.gateway_no_limit!.requests_per_s, 3),
        // The same share run by run (the two gateways measured in the same run), and its median.
        limiter_cost_by_run: limiterCosts,
        limiter_cost_median_of_runs: round(median(limiterCosts), 3),
        gateway_throughput_over_direct: round(manyConn.gateway!.requests_per_s / manyConn.direct!.requests_per_s, 3),
      },
      targets: ['gateway_added_p50_us <= 500', 'limiter_cost_of_throughput <= 0.10'],
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    for (const c of children) await c.stop();
    await redis.stop();
    await prepared.remove();
  }
}

await runBench(main);
