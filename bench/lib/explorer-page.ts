/**
 * The explorer in real headless Chromium, for its tests and its bench: Debian's `chromium`
 * driven by playwright-core with SwiftShader (WebGL without a GPU), a large graph of pairs
 * of nodes, and frame timing in a page.
 */
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--enable-unsafe-swiftshader',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 60_000 });
}

/** Writes `pairs` pairs `(:Big {i})-[:PAIR]->(:Big {i})` through POST /v2/cypher (2 x pairs nodes). */
export async function loadPairs(url: string, pairs: number): Promise<void> {
  const res = await fetch(`${url}/v2/cypher`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'UNWIND range(0, $n - 1) AS i CREATE (:Big {i: 2 * i})-[:PAIR {w: i % 7}]->(:Big {i: 2 * i + 1})',
      parameters: { n: pairs },
    }),
  });
  if (res.status !== 200) throw new Error(`loading the pairs failed: ${res.status} ${await res.text()}`);
}

declare const requestAnimationFrame: (callback: (t: number) => void) => void;

/** The times between the page's animation frames for `ms` milliseconds. */
export function frameTimes(page: Page, ms: number): Promise<number[]> {
  return page.evaluate(
    (duration) =>
      new Promise<number[]>((resolve) => {
        const deltas: number[] = [];
        let previous = -1;
        let first = -1;
        const tick = (t: number) => {
          if (previous >= 0) deltas.push(t - previous);
          else first = t;
          previous = t;
          if (t - first < duration) requestAnimationFrame(tick);
          else resolve(deltas);
        };
        requestAnimationFrame(tick);
      }),
    ms,
  );
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!;
}
