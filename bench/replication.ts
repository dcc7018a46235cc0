/**
 * Replication's performance targets (issue 28; docs/replication.md, docs/benchmarks.md),
 * with real parts: Debian's nats-server with JetStream, the real server as a writer (with
 * and without `--nats`) and as a replica, over loopback HTTP.
 *
 *   node dist/bench/replication.js [--duration S] [--repeat N] [--rate R] [--clients C] [--size small|medium|large]
 *                                 [--connections N] [--rounds N] [--only write,lag,snapshot,reads]
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
 *   `--size` (small 10k/100k, medium 100k/1M, large 1M nodes/10M edges), loaded through
 *   HTTP batches or by the offline `trellis import` (`--load http|import`; import by
 *   default for large): the snapshot's bytes and the time from the replica's start until
 *   it is ready (made, transferred, checked, loaded), as MB/s.
 * - `reads`: point reads of the `--size` dataset through the gateway (`--connections`, 16),
 *   sent to the writer alone against the writer and two replicas, `--rounds` (6) rounds of
 *   `--duration` seconds each, alternating, with the CPU each process used: on 2 cores the
 *   aggregate is bounded by the cores, which the per-process CPU shows.
 *
 * Prints one JSON object on stdout; progress on stderr.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { newKey } from '../src/gateway/keys.js';
import { startNats, type TestNats } from '../test/helpers/nats.js';
import { startRedis } from '../test/helpers/redis.js';
import { startChild, type Child } from './lib/child.js';
import { timedLoad, type Outgoing } from './lib/raw-client.js';
import { readScenarios } from './lib/scenarios.js';
import { buildTruth } from './lib/truth.js';
import { DEFAULT_SEED, SIZES, type SizeName } from './lib/dataset.js';
import { loadRequests } from './lib/load-trellis.js';
import { writeDatasetCsv } from './lib/import-files.js';
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

type Nats = TestNats;

function folder(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'trellis-bench-repl-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A replica of `writer` following `stream`, in folder `dir`. */
function replicaOf(name: string, nats: Nats, stream: string, writer: Child, dir: string, extra: string[] = []): Promise<Child> {
  const args = ['--mode', 'replica', '--data', dir, '--nats', nats.url, '--stream', stream];
  return server(name, [...args, '--writer-url', `http://127.0.0.1:${writer.port}`, ...extra]);
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
  const replica = await replicaOf('replica', nats, stream, writer, rdir.path, ['--min-lsn-wait-ms', '5000']);
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
async function snapshotRun(nats: Nats, size: SizeName, load: 'http' | 'import'): Promise<Record<string, number | string>> {
  const stream = `snap${Date.now()}`;
  const wdir = folder();
  const rdir = folder();
  const data = join(wdir.path, 'db');
  if (load === 'import') {
    // 10M edges through HTTP batches take most of an hour here; the offline import minutes.
    const files = await writeDatasetCsv(wdir.path, DEFAULT_SEED, SIZES[size]);
    const r = spawnSync(process.execPath, [CLI, 'import', '--data', data, '--mapping', files.mapping, '--progress', 'none'], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`trellis import failed: ${r.stdout}${r.stderr}`);
    rmSync(files.users);
    rmSync(files.follows);
  }
  const writer = await server('writer', ['--data', data, '--nats', nats.url, '--stream', stream]);
  const pool = new Pool(`http://127.0.0.1:${writer.port}`, { connections: 1 });
  let replica: Child | null = null;
  try {
    if (load === 'http') {
      const requests = loadRequests(DEFAULT_SEED, SIZES[size]);
      for (const body of [...requests.nodes, ...requests.edges]) await post(pool, body);
    }
    progress(`snapshot: ${size} dataset loaded (${load})`);
    const started = performance.now();
    replica = await replicaOf('replica', nats, stream, writer, rdir.path);
    const seconds = (performance.now() - started) / 1000;
    const metrics = await (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
    const bytes = Number(/^trellis_replica_snapshot_bytes_total (\d+)/m.exec(metrics)?.[1] ?? 0);
    return {
      size,
      nodes: SIZES[size].nodes,
      edges: SIZES[size].edges,
      load,
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

/** CPU seconds a process has used so far (utime + stime of /proc/PID/stat, at 100 ticks/s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Point reads through the gateway: to the writer alone, and to the writer and two
 * replicas (a gateway each, the same key), in alternating rounds; with each process's CPU.
 */
async function readsRun(nats: Nats, size: SizeName, connections: number, rounds: number, roundS: number): Promise<Record<string, unknown>> {
  const stream = `reads${Date.now()}`;
  const dirs = [folder(), folder(), folder()];
  const children: Child[] = [];
  const redis = await startRedis();
  try {
    const writer = await server('writer', ['--data', dirs[0]!.path, '--nats', nats.url, '--stream', stream]);
    children.push(writer);
    const pool = new Pool(`http://127.0.0.1:${writer.port}`, { connections: 1 });
    const load = loadRequests(DEFAULT_SEED, SIZES[size]);
    let lsn = 0;
    for (const body of [...load.nodes, ...load.edges]) lsn = (await post(pool, body)).lsn;
    await pool.close();
    const replicas: Child[] = [];
    for (const [i, dir] of dirs.slice(1).entries()) replicas.push(await replicaOf(`replica${i + 1}`, nats, stream, writer, dir.path));
    children.push(...replicas);
    for (const r of replicas) {
      for (;;) {
        const res = await fetch(`http://127.0.0.1:${r.port}/readyz`);
        await res.text();
        if (Number(res.headers.get('x-trellis-lsn') ?? 0) >= lsn && res.status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    progress(`reads: ${size} dataset on the writer and both replicas (LSN ${lsn})`);
    const { key, sha256 } = newKey();
    const gateway = async (name: string, readers: Child[]): Promise<Child> => {
      const file = join(dirs[0]!.path, `${name}.json`);
      const config = {
        mode: 'cluster',
        redis: { url: redis.url },
        rate_limit: false,
        databases: { db: { writer: `http://127.0.0.1:${writer.port}`, readers: readers.map((r) => `http://127.0.0.1:${r.port}`) } },
        keys: [{ name: 'bench', sha256, databases: { db: ['read'] } }],
        log_level: 'warn',
      };
      writeFileSync(file, JSON.stringify(config));
      const child = await startChild(name, [], CLI, ['gateway', '--config', file, '--port', '0'], LISTENING, LISTENING);
      children.push(child);
      return child;
    };
    const targets = [
      { name: 'writer_alone', gateway: await gateway('gateway-writer', []) },
      { name: 'writer_and_2_replicas', gateway: await gateway('gateway-replicas', replicas) },
    ];
    const truth = buildTruth(DEFAULT_SEED, SIZES[size]);
    const point = readScenarios(truth, DEFAULT_SEED).find((x) => x.name === 'point_read')!;
    let i = 0;
    const headers = `Authorization: Bearer ${key}\r\n`;
    const next = (): Outgoing => ({ body: point.requests[i++ % point.requests.length]!, headers });
    for (const t of targets) {
      const headers = { authorization: `Bearer ${key}` };
      const res = await fetch(`http://127.0.0.1:${t.gateway.port}/v2/query`, { method: 'POST', headers, body: point.requests[0] });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${t.name}: the gateway answered ${res.status}: ${text}`);
      point.check(text, 0);
      await timedLoad(t.gateway.port, 2, 1, next); // warm-up (and the gateway's first /readyz polls)
    }
    const processes = { writer, replica1: replicas[0]!, replica2: replicas[1]! };
    const totals = new Map(targets.map((t) => [t.name, { requests: 0, seconds: 0, failures: 0, cpu: {} as Record<string, number> }]));
    for (let r = 0; r < rounds; r++) {
      for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
        const watched = { ...processes, gateway: t.gateway };
        const before = Object.fromEntries(Object.entries(watched).map(([n, c]) => [n, cpuSeconds(c.process.pid!)]));
        const run = await timedLoad(t.gateway.port, connections, roundS, next);
        const total = totals.get(t.name)!;
        total.requests += run.requests;
        total.seconds += run.seconds;
        total.failures += run.failures;
        for (const [n, c] of Object.entries(watched)) total.cpu[n] = (total.cpu[n] ?? 0) + cpuSeconds(c.process.pid!) - before[n]!;
      }
      progress(`reads round ${r + 1}/${rounds}`);
    }
    const out: Record<string, unknown> = { size, connections, rounds, round_s: roundS };
    for (const t of targets) {
      const total = totals.get(t.name)!;
      out[t.name] = {
        requests_per_s: Math.round(total.requests / total.seconds),
        failures: total.failures,
        // Cores each process kept busy on average (2 on this machine in all).
        cpu_cores: Object.fromEntries(Object.entries(total.cpu).map(([n, c]) => [n, round(c / total.seconds, 2)])),
      };
    }
    const rate = (name: string) => (out[name] as { requests_per_s: number }).requests_per_s;
    out.ratio = round(rate('writer_and_2_replicas') / rate('writer_alone'), 3);
    return out;
  } finally {
    for (const c of children.reverse()) await c.stop();
    await redis.stop();
    for (const d of dirs) d.remove();
  }
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['duration', 'rate', 'clients', 'connections', 'rounds', 'load']);
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
        // Each round's on over its off, run back to back: on a machine whose load from
        // other work changes during the run, this sees less of it than the medians do.
        median_of_round_ratios: round(median(on.map((x, r) => x / off[r]!)), 3),
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
    if (want('snapshot')) {
      const load = args.values.load ?? (args.size === 'large' ? 'import' : 'http');
      if (load !== 'http' && load !== 'import') throw new Error(`--load must be http or import, got ${load}`);
      out.snapshot = await snapshotRun(nats, args.size, load);
    }
    if (want('reads')) {
      const connections = positiveInt(args.values.connections, 16, 'connections');
      out.reads = await readsRun(nats, args.size, connections, positiveInt(args.values.rounds, 6, 'rounds'), seconds);
    }
  } finally {
    await nats.stop();
  }
  console.log(JSON.stringify(out, null, 2));
}

await runBench(main);
