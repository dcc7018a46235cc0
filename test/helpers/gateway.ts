/**
 * A real gateway (`node dist/src/cli.js gateway --config F`) in front of real database
 * servers, for the gateway's tests: configuration files written from a few lines, keys
 * made the way `trellis gateway key` makes them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { newKey } from '../../src/gateway/keys.js';
import { RedisLimiter } from '../../src/gateway/limiter.js';
import { startRedis, type TestRedis } from './redis.js';
import { killOnExit } from './reap.js';
import { startCli, startTestServer, tempDir, type Reply, type TestServer } from './server.js';

export interface TestKey {
  name: string;
  key: string;
  sha256: string;
  databases: Record<string, ('read' | 'write')[]>;
  metrics?: boolean;
}

export function testKey(name: string, databases: Record<string, ('read' | 'write')[]>, metrics = false): TestKey {
  return { name, ...newKey(), databases, metrics };
}

export interface DatabaseEntry {
  writer: string;
  readers?: string[];
  plan?: string;
  rate?: number;
  burst?: number;
  attempt_budget_ms?: number;
}

export interface GatewayFile {
  mode: 'shared' | 'cluster';
  redis: { url: string; key_prefix?: string; deadline_ms?: number };
  databases: Record<string, DatabaseEntry>;
  keys: TestKey[];
  rate_limit?: boolean;
  plans?: Record<string, { rate: number; burst: number }>;
  log_level?: string;
  metrics?: boolean;
}

/** Starts a gateway on a free port with this configuration; killed at exit if a test fails half-way. */
export async function startTestGateway(file: GatewayFile): Promise<TestServer> {
  const dir = tempDir('trellis-gateway-');
  const path = join(dir.path, 'gateway.json');
  const keys = file.keys.map(({ name, sha256, databases, metrics }) => ({ name, sha256, databases, metrics: metrics ?? false }));
  // Tests run in parallel on two shared cores, where Redis can take longer than the
  // product's 50 ms to answer; the tests of the deadline itself set their own.
  const redis = { deadline_ms: 500, ...file.redis };
  writeFileSync(path, JSON.stringify({ log_level: 'warn', ...file, redis, keys }, null, 2));
  const gateway = killOnExit(await startCli(['gateway', '--config', path, '--port', '0']));
  void new Promise((resolve) => gateway.proc.once('exit', resolve)).then(() => dir.remove());
  return gateway;
}

/** What a gateway suite runs; valid inside its tests (filled in by its `before`). */
export interface GatewaySuite {
  readonly redis: TestRedis;
  /** The writer server, on a fresh data folder. */
  readonly writer: TestServer;
  /** `--mode reader` servers on the writer's folder. */
  readonly readers: readonly TestServer[];
  readonly gateways: readonly TestServer[];
  /** The first gateway. */
  readonly gateway: TestServer;
  /** A limiter of its own on the suite's Redis, to read buckets and change credit. */
  readonly limiter: RedisLimiter;
}

export interface GatewaySuiteOptions {
  /** The gateways' configuration, from the URLs of the suite's Redis, writer and readers. */
  file: (urls: { redis: string; writer: string; readers: string[] }) => GatewayFile;
  /** More arguments for the writer server (e.g. `--log-level debug`). */
  writerArgs?: string[];
  readers?: number;
  /** Gateways started from the same file (default 1), as replicas sharing Redis. */
  gateways?: number;
}

/**
 * A real Redis, a writer server, its readers and gateways for the tests of one `describe`:
 * started before them, stopped after them in reverse order, the data folder removed.
 */
export function gatewaySuite(options: GatewaySuiteOptions): GatewaySuite {
  const dir = tempDir();
  const readers: TestServer[] = [];
  const gateways: TestServer[] = [];
  // The other fields are set by `before`, ahead of every test that reads them.
  const suite = { readers, gateways } as Partial<GatewaySuite> as { -readonly [K in keyof GatewaySuite]: GatewaySuite[K] };
  before(async () => {
    suite.redis = await startRedis();
    suite.writer = killOnExit(await startTestServer(['--data', dir.path, ...(options.writerArgs ?? [])]));
    for (let i = 0; i < (options.readers ?? 0); i++) {
      readers.push(killOnExit(await startTestServer(['--data', dir.path, '--mode', 'reader'])));
    }
    const file = options.file({ redis: suite.redis.url, writer: suite.writer.url, readers: readers.map((r) => r.url) });
    for (let i = 0; i < (options.gateways ?? 1); i++) gateways.push(await startTestGateway(file));
    suite.gateway = gateways[0]!;
    suite.limiter = new RedisLimiter({ url: suite.redis.url });
    await suite.limiter.ready();
  });
  after(async () => {
    await suite.limiter?.close();
    for (const g of gateways) await g.stop();
    for (const r of readers) await r.stop();
    await suite.writer?.stop();
    await suite.redis?.stop();
    dir.remove();
  });
  return suite;
}

export interface CallOptions {
  key?: string;
  database?: string;
  headers?: Record<string, string>;
}

/** POSTs through the gateway with a key and database header. */
export async function call(gateway: string, path: string, body: unknown, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  if (opts.database !== undefined) headers['x-svc-database-id'] = opts.database;
  const res = await fetch(`${gateway}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, text, body: parsed, headers: res.headers };
}
