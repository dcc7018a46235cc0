/**
 * A real nats-server with JetStream for the replication tests: Debian's `nats-server`
 * (.ci/run installs it), on a free loopback port with its store in a temporary folder,
 * killed when the test process exits however it exits (reap.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before } from 'node:test';
import { killOnExit } from './reap.js';
import { tempDir } from './server.js';
import { freePort } from './redis.js';

export interface TestNats {
  readonly url: string;
  readonly port: number;
  /** SIGKILL; the store folder is kept, so `start` brings the same streams back. */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function natsSkip(): false | string {
  const found = (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, 'nats-server'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return found ? false : 'nats-server is not installed (.ci/run installs it)';
}

async function listening(host: string, port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nats-server did not listen on ${port}`);
}

/** `host`: the address it listens on (default 127.0.0.1). */
export async function startNats(host = '127.0.0.1'): Promise<TestNats> {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-nats-'));
  const port = await freePort();
  let proc: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let output = '';
  const start = async () => {
    proc = spawn('nats-server', ['-js', '-sd', join(dir, 'js'), '-a', host, '-p', String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    const p = proc;
    exited = new Promise((resolve) => p.once('exit', () => resolve()));
    killOnExit({ proc });
    try {
      await listening(host, port, Date.now() + 20_000);
    } catch (err) {
      throw new Error(`${(err as Error).message}:\n${output}`, { cause: err });
    }
  };
  const halt = async (signal: NodeJS.Signals) => {
    const p = proc as ChildProcess | null;
    if (p === null || p.exitCode !== null || p.signalCode !== null) return;
    p.kill(signal);
    await exited;
  };
  await start();
  return {
    url: `nats://${host}:${port}`,
    port,
    kill: () => halt('SIGKILL'),
    start,
    async stop() {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What a replication test file shares: a nats-server started before its tests and stopped
 * after them (none when `skip` says why not), and data folders removed after them.
 */
export function natsSuite(prefix: string): { readonly skip: false | string; readonly nats: TestNats; folder(): string } {
  const skip = natsSkip();
  const dirs: { remove(): void }[] = [];
  let server: TestNats | undefined;
  before(async () => {
    if (skip === false) server = await startNats();
  });
  after(async () => {
    await server?.stop();
    for (const d of dirs) d.remove();
  });
  return {
    skip,
    get nats(): TestNats {
      if (server === undefined) throw new Error('nats-server is not running (the test should have been skipped)');
      return server;
    },
    folder(): string {
      const dir = tempDir(prefix);
      dirs.push(dir);
      return dir.path;
    },
  };
}
