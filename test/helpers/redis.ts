/**
 * A real redis-server for tests (the gateway's limiter and its integration tests): started
 * on a free loopback port and a unix socket in its folder, with no persistence, killed when
 * the test process exits however it exits (reap.ts), restartable on the same port to test
 * recovery.
 *
 *   const redis = await startRedis();
 *   after(() => redis.stop());
 *   test('...', { skip: redisSkip() }, async () => { ... });
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { killOnExit } from './reap.js';

export interface TestRedis {
  /** redis://127.0.0.1:<port> */
  readonly url: string;
  /** unix:///<temp dir>/redis.sock: the same server on a unix socket. */
  readonly socketUrl: string;
  readonly port: number;
  /** SIGTERM, then waits for the exit. Does nothing when it is not running. */
  stop(): Promise<void>;
  /** SIGKILL, then waits for the exit. Does nothing when it is not running. */
  kill(): Promise<void>;
  /** Starts redis-server again on the same port (stopping it first if it runs) and waits for PING. Data is not kept. */
  restart(): Promise<void>;
  /** One command on a connection of its own (e.g. CLIENT PAUSE, FLUSHALL); the reply as a string, null for nil. */
  command(...args: string[]): Promise<string | number | null>;
}

let available: boolean | undefined;

/** Whether `redis-server` is on PATH. */
function redisAvailable(): boolean {
  available ??= (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, 'redis-server'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return available;
}

/** The `skip` option of a test that needs Redis. */
export function redisSkip(): false | string {
  return redisAvailable() ? false : 'redis-server is not installed (.ci/run installs it)';
}

interface Running {
  proc: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

/** Starts redis-server on a free loopback port and resolves once it answers PING. */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-redis-'));
  // Another process may take the free port between our probe and redis' bind: try again.
  let running: Running | undefined;
  let port = 0;
  let lastError: unknown;
  for (let attempt = 0; attempt < 3 && running === undefined; attempt++) {
    port = await freePort();
    try {
      running = await launch(port, dir);
    } catch (err) {
      lastError = err;
    }
  }
  if (running === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw lastError;
  }
  let current: Running = running;
  const halt = async (signal: NodeJS.Signals) => {
    const { proc, exited } = current;
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    socketUrl: `unix://${join(dir, 'redis.sock')}`,
    port,
    async stop() {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    kill: () => halt('SIGKILL'),
    async restart() {
      await halt('SIGTERM');
      mkdirSync(dir, { recursive: true }); // stop() removed it
      current = await launch(port, dir);
    },
    command: (...args) => command(port, args),
  };
}

async function launch(port: number, dir: string): Promise<Running> {
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--unixsocket', join(dir, 'redis.sock'), '--unixsocketperm', '700'],
    ...['--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--dir', dir],
  ];
  const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout!.on('data', (d) => (output = (output + d).slice(-4000)));
  proc.stderr!.on('data', (d) => (output = (output + d).slice(-4000)));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  killOnExit({ proc });
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 10_000;
  while (true) {
    if (gone) throw new Error(`redis-server exited at start (port ${port}):\n${output}`);
    const reply = await command(port, ['PING']).catch(() => null);
    if (reply === 'PONG') return { proc, exited, output: () => output };
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      await exited;
      throw new Error(`redis-server did not answer PING within 10 s (port ${port}):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A loopback port nothing listened on a moment ago (for redis, or to test refused connections). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A minimal RESP client for one command and one reply (simple string, error, integer, bulk
 * string or nil), so the helper needs no Redis library; an error reply rejects.
 */
function command(port: number, args: readonly string[]): Promise<string | number | null> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    const timer = setTimeout(() => socket.destroy(new Error(`redis ${args[0]}: no reply within 5 s`)), 5000);
    let data = Buffer.alloc(0);
    const done = (err: Error | null, value?: string | number | null) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value ?? null);
    };
    socket.on('error', (err) => done(err));
    socket.on('close', () => done(new Error(`redis ${args[0]}: connection closed before a reply`)));
    socket.on('connect', () => {
      const parts = [`*${args.length}\r\n`];
      for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
      socket.write(parts.join(''));
    });
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const lineEnd = data.indexOf('\r\n');
      if (lineEnd < 0) return;
      const type = String.fromCharCode(data[0]!);
      const line = data.subarray(1, lineEnd).toString();
      if (type === '+') return done(null, line);
      if (type === '-') return done(new Error(`redis ${args[0]}: ${line}`));
      if (type === ':') return done(null, Number(line));
      if (type === '$') {
        const length = Number(line);
        if (length < 0) return done(null, null);
        if (data.length < lineEnd + 2 + length + 2) return;
        return done(null, data.subarray(lineEnd + 2, lineEnd + 2 + length).toString());
      }
      done(new Error(`redis ${args[0]}: unsupported reply type ${type}`));
    });
  });
}
