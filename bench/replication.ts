/**
 * Replication's performance targets (issue 28; docs/replication.md, docs/benchmarks.md),
 * with real parts: Debian's nats-server with JetStream, the real server as a writer (with
 * and without `--nats`) and as a replica, over loopback HTTP.
 *
 *   node dist/bench/replication.js [--duration S] [--repeat N] [--rate R] [--clients C] [--size small|medium|large] [--only write,lag,snapshot]
 *
 * - `write`: write throughput with replication on against off, in alternating rounds of
 *   `--duration` seconds each (a fresh folder per round): C clients, each sending one-node
 *   write batches one after another. Target: on >= 0.9x off.
 * - `lag`: a writer with `--nats` and one replica; one-node write batches paced at `--rate`
 *   per second (default 1,000) for `--duration` seconds; after each write answer, a read
 *   on the replica with `X-Trellis-Min-Lsn` of the write's LSN (the replica answers once it
 *   has applied it). The lag is that read's latency: from the writer's answer (the commit
 *   is visible there) to the replica's answer, so it bounds visibility on the replica from
 *   above by one read. Target: p99 <= 50 ms.
 * - `snapshot`: a replica's first start against a writer holding the bench dataset of
 *   `--size` (small 10k/100k, medium 100k/1M, large 1M nodes/10M edges): the snapshot's
 *   bytes and the time from the replica's start until it is ready (made, transferred,
 *   checked, loaded), as MB/s.
 *
 * Prints one JSON object on stdout; progress on stderr.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { startChild, type Child } from './lib/child.js';
import { DEFAULT_SEED, SIZES, type SizeName } from './lib/dataset.js';
import { loadRequests } from './lib/load-trellis.js';
import { machine, parseBenchArgs, positiveInt, positiveNumber, progress, runBench } from './lib/cli.js';
import { median, percentile, round } from './lib/stats.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const LISTENING = /listening on http:\/\/[^:]+:(\d+)/;
const READY = /trellis ready/;

const ONE_NODE = (i: number) =>
  JSON.stringify({
    request_type: 'write',
    query: {
      write: { entries: [{ query: { root: { add_n: { label: 'W', properties: [['i', { value: { i64: i } }]] } } } }], returns: [] },
    },
  });
const COUNT = JSON.stringify({
  request_type: 'read',
  query: { read: { entries: [{ query: { name: 'c', root: { count: { input: { nodes: { reference: 'all' } } } } } }], returns: ['c'] } },
});

interface Nats {
  readonly url: string;
  stop(): Promise<void>;
}

async function startNats(): Promise<Nats> {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-bench-nats-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn('nats-server', ['-js', '-sd', dir, '-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error('nats-server did not start within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function folder(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'trellis-bench-repl-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

function server(name: string, args: string[]): Promise<Child> {
  return startChild(name, [], CLI, ['--port', '0', ...args], LISTENING, READY);
}

async function post(pool: Pool, body: string, headers: Record<string, string> = {}): Promise<{ status: number; lsn: number }> {
  const res = await pool.request({ method: 'POST', path: '/v2/query', body, headers: { 'content-type': 'application/json', ...headers } });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}`);
  return { status: res.statusCode, lsn: Number(res.headers['x-trellis-lsn'] ?? 0) };
}

/** Write batches per second of C clients for `seconds`, against a writer with or without NATS. */
async function writeRound(nats: Nats | null, clients: number, seconds: number): Promise<number> {
  const dir = folder();
  const writer = await server(nats === null ? 'writer' : 'writer+nats', [
    '--data',
    dir.path,
    ...(nats === null ? [] : ['--nats', nats.url, '--stream', `w${Date.now()}`]),
  ]);
  const pool = new Pool(`http://127.0.0.1:${writer.port}`, { connections: clients, pipelining: 1 });
  try {
    for (let i = 0; i < 200; i++) await post(pool, ONE_NODE(i)); // warm-up
    let done = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < until) {
          await post(pool, ONE_NODE(done));
          done++;
        }
      }),
    );
    return done / seconds;
  } finally {
    await pool.close();
    await writer.stop();
    dir.remove();
  }
}

/** The lag: for each paced write, the latency of a read on the replica that waits for its LSN. */
async function lagRun(nats: Nats, rate: number, seconds: number): Promise<Record<string, number>> {
  const stream = `lag${Date.now()}`;
  const wdir = folder();
  const rdir = folder();
  const writer = await server('writer', ['--data', wdir.path, '--nats', nats.url, '--stream', stream]);
  const replica = await server('replica', [
    '--mode',
    'replica',
    '--data',
    rdir.path,
    '--nats',
    nats.url,
    '--stream',
    stream,
    '--writer-url',
    `http://127.0.0.1:${writer.port}`,
    '--min-lsn-wait-ms',
    '5000',
  ]);
  const wpool = new Pool(`http://127.0.0.1:${writer.port}`, { connections: 16 });
  const rpool = new Pool(`http://127.0.0.1:${replica.port}`, { connections: 16 });
  try {
    for (let i = 0; i < 200; i++) await post(wpool, ONE_NODE(i)); // warm-up
    const lags: number[] = [];
    const writeLatencies: number[] = [];
    let behind = 0;
    const total = Math.round(rate * seconds);
    const start = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      else if (wait < -100) behind++;
      inFlight.push(
        (async () => {
          const sent = performance.now();
          const { lsn } = await post(wpool, ONE_NODE(i));
          const answered = performance.now();
          writeLatencies.push(answered - sent);
          await post(rpool, COUNT, { 'x-trellis-min-lsn': String(lsn) });
          lags.push(performance.now() - answered);
        })(),
      );
      if (inFlight.length >= 256) await Promise.all(inFlight.splice(0));
    }
    await Promise.all(inFlight);
    const elapsed = (performance.now() - start) / 1000;
    const sorted = lags.sort((a, b) => a - b);
    const writes = writeLatencies.sort((a, b) => a - b);
    return {
      batches: total,
      achieved_per_s: round(total / elapsed),
      late_sends: behind,
      write_p50_ms: round(percentile(writes, 0.5), 2),
      write_p99_ms: round(percentile(writes, 0.99), 2),
      lag_p50_ms: round(percentile(sorted, 0.5), 2),
      lag_p99_ms: round(percentile(sorted, 0.99), 2),
      lag_max_ms: round(sorted[sorted.length - 1] ?? 0, 2),
    };
  } finally {
    await wpool.close();
    await rpool.close();
    await replica.stop();
    await writer.stop();
    wdir.remove();
    rdir.remove();
  }
}

/** A replica's first start against a writer holding the bench dataset of `size`: snapshot bytes and MB/s. */
async function snapshotRun(nats: Nats, size: SizeName): Promise<Record<string, number | string>> {
  const stream = `snap${Date.now()}`;
  const wdir = folder();
  const rdir = folder();
  const writer = await server('writer', ['--data', wdir.path, '--nats', nats.url, '--stream', stream]);
  const pool = new Pool(`http://127.0.0.1:${writer.port}`, { connections: 1 });
  let replica: Child | null = null;
  try {
    const load = loadRequests(DEFAULT_SEED, SIZES[size]);
    for (const body of [...load.nodes, ...load.edges]) await post(pool, body);
    progress(`snapshot: ${size} dataset loaded`);
    const started = performance.now();
    replica = await server('replica', [
      '--mode',
      'replica',
      '--data',
      rdir.path,
      '--nats',
      nats.url,
      '--stream',
      stream,
      '--writer-url',
      `http://127.0.0.1:${writer.port}`,
    ]);
    const seconds = (performance.now() - started) / 1000;
    const metrics = await (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
    const bytes = Number(/^trellis_replica_snapshot_bytes_total (\d+)/m.exec(metrics)?.[1] ?? 0);
    return {
      size,
      nodes: SIZES[size].nodes,
      edges: SIZES[size].edges,
      snapshot_mb: round(bytes / 2 ** 20),
      start_to_ready_s: round(seconds, 2),
      mb_per_s: round(bytes / 2 ** 20 / seconds),
    };
  } finally {
    await pool.close();
    await replica?.stop();
    await writer.stop();
    wdir.remove();
    rdir.remove();
  }
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['duration', 'rate', 'clients']);
  const seconds = positiveNumber(args.values.duration, 5, 'duration');
  const rate = positiveNumber(args.values.rate, 1000, 'rate');
  const clients = positiveInt(args.values.clients, 8, 'clients');
  const want = (name: string) => args.only === null || args.only.includes(name);
  const nats = await startNats();
  const out: Record<string, unknown> = { machine: machine(), duration_s: seconds };
  try {
    if (want('write')) {
      const off: number[] = [];
      const on: number[] = [];
      for (let r = 0; r < args.repeat; r++) {
        off.push(await writeRound(null, clients, seconds));
        on.push(await writeRound(nats, clients, seconds));
        progress(`write round ${r + 1}: off ${round(off[r]!)} /s, on ${round(on[r]!)} /s`);
      }
      out.write = {
        clients,
        off_per_s: off.map((x) => round(x)),
        on_per_s: on.map((x) => round(x)),
        ratio_of_medians: round(median(on) / median(off), 3),
      };
    }
    if (want('lag')) {
      const runs = [];
      for (let r = 0; r < args.repeat; r++) {
        runs.push(await lagRun(nats, rate, seconds));
        progress(`lag round ${r + 1}: ${JSON.stringify(runs[r])}`);
      }
      out.lag = { rate, runs, lag_p99_median_ms: round(median(runs.map((x) => x.lag_p99_ms!)), 2) };
    }
    if (want('snapshot')) out.snapshot = await snapshotRun(nats, args.size);
  } finally {
    await nats.stop();
  }
  console.log(JSON.stringify(out, null, 2));
}

await runBench(main);
