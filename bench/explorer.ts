/**
 * The explorer's figures (issue 29; docs/benchmarks.md, "Explorer"): the size of what a
 * first visit downloads (gzip and brotli, from the build's manifest), and the time from a
 * query to the first frame drawn with its result, for 1,000 and 10,000 nodes, in headless
 * Chromium (SwiftShader: WebGL on the CPU, so an upper bound of what a machine with a GPU
 * shows). The two sizes run interleaved, run by run, on one server and one page.
 *
 *   node dist/bench/explorer.js [--repeat N]
 *
 * Prints one JSON object on stdout; progress goes to stderr.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild } from './lib/child.js';
import { machine, positiveInt, progress, runBench } from './lib/cli.js';
import { frameTimes, launchChromium, loadPairs } from './lib/explorer-page.js';
import { median, round } from './lib/stats.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const ASSETS = fileURLToPath(new URL('../explorer-assets/', import.meta.url));

interface Manifest {
  files: Record<string, { bytes: number; gzip: number; br: number }>;
  firstLoad: string[];
}

interface RunResult {
  ok: boolean;
  nodes: number;
  requestMs: number;
  firstFrameMs?: number;
}
declare const window: { __trellisExplorer: { run(text: string, language: string): Promise<RunResult>; ready: Promise<void> } };

function sizes(): Record<string, number> {
  const manifest = JSON.parse(readFileSync(join(ASSETS, 'manifest.json'), 'utf8')) as Manifest;
  const first = manifest.firstLoad.map((path) => manifest.files[path]!);
  const kib = (n: number) => round(n / 1024, 1);
  const sum = (key: 'bytes' | 'gzip' | 'br', files: Manifest['files'][string][]) => kib(files.reduce((n, f) => n + f[key], 0));
  const all = Object.values(manifest.files);
  return {
    firstLoadKiB: sum('bytes', first),
    firstLoadGzipKiB: sum('gzip', first),
    firstLoadBrotliKiB: sum('br', first),
    allGzipKiB: sum('gzip', all),
    files: all.length,
  };
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--repeat');
  const repeat = positiveInt(at >= 0 ? process.argv[at + 1] : undefined, 5, 'repeat');
  const dir = mkdtempSync(join(tmpdir(), 'trellis-bench-explorer-'));
  const server = await startChild(
    'server',
    [],
    CLI,
    ['--data', dir, '--port', '0', '--workers', '1'],
    /listening on http:\/\/[^:]+:(\d+)/,
    /trellis ready/,
  );
  const browser = await launchChromium();
  try {
    const url = `http://127.0.0.1:${server.port}`;
    await loadPairs(url, 5000);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.setDefaultTimeout(120_000);
    await page.goto(`${url}/`);
    await page.waitForFunction(() => (window as unknown as { __trellisExplorer?: unknown }).__trellisExplorer !== undefined);
    await page.evaluate(() => window.__trellisExplorer.ready);
    // No prompt: the cap above both sizes, so each run goes from the query to its first frame.
    await page.getByTestId('render-cap').fill('20000');
    await page.getByTestId('render-cap').dispatchEvent('change');
    const runs: Record<'1k' | '10k', { request: number[]; firstFrame: number[]; frame: number[]; worst: number[] }> = {
      '1k': { request: [], firstFrame: [], frame: [], worst: [] },
      '10k': { request: [], firstFrame: [], frame: [], worst: [] },
    };
    const queries = { '1k': 'MATCH (a:Big)-[r:PAIR]->(b) RETURN a, r, b LIMIT 500', '10k': 'MATCH (a:Big)-[r:PAIR]->(b) RETURN a, r, b' };
    for (let i = 0; i < repeat; i++) {
      for (const size of ['1k', '10k'] as const) {
        const result = await page.evaluate((q) => window.__trellisExplorer.run(q, 'cypher'), queries[size]);
        if (!result.ok || result.firstFrameMs === undefined) throw new Error(`the ${size} run failed: ${JSON.stringify(result)}`);
        const frames = await frameTimes(page, 3000);
        runs[size].request.push(result.requestMs);
        runs[size].firstFrame.push(result.firstFrameMs);
        runs[size].frame.push(median(frames));
        runs[size].worst.push(Math.max(...frames));
        progress(
          `run ${i + 1} ${size}: ${result.nodes} nodes, answer ${round(result.requestMs)} ms, first frame ${round(result.firstFrameMs)} ms, ` +
            `frames in the next 3 s of layout: median ${round(median(frames))} ms, worst ${round(Math.max(...frames))} ms`,
        );
        // The next run starts from an empty page: a statement with no graph clears it and stops the layout.
        await page.evaluate(() => window.__trellisExplorer.run('RETURN 1 AS one', 'cypher'));
        await frameTimes(page, 1000);
      }
    }
    const summary = (size: '1k' | '10k') => ({
      nodes: size === '1k' ? 1000 : 10_000,
      answerMsMedian: round(median(runs[size].request)),
      firstFrameMsMedian: round(median(runs[size].firstFrame)),
      firstFrameMsRange: [round(Math.min(...runs[size].firstFrame)), round(Math.max(...runs[size].firstFrame))],
      frameMsDuringLayoutMedian: round(median(runs[size].frame)),
      worstFrameMsDuringLayoutMedian: round(median(runs[size].worst)),
    });
    console.log(JSON.stringify({ machine: machine(), repeat, bundle: sizes(), '1k': summary('1k'), '10k': summary('10k') }, null, 2));
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await runBench(main);
