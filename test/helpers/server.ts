/**
 * Starts the real server (`node dist/src/cli.js`) as a child process on a free loopback
 * port, so tests meet exactly what `npm start` runs, and crash tests can kill -9 it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;

export interface TestServer {
  readonly url: string;
  readonly port: number;
  readonly proc: ChildProcess;
  readonly output: () => string;
  stop(): Promise<void>;
  kill9(): Promise<void>;
}

export function tempDir(prefix = 'trellis-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export async function startTestServer(args: string[], options: { waitReady?: boolean } = {}): Promise<TestServer> {
  return startCli(
    ['--port', '0', '--workers', '1', ...args],
    (output) => (options.waitReady ?? true) === false || output.includes('trellis ready'),
  );
}

/**
 * Runs `node dist/src/cli.js <args>` and resolves once it printed "listening on
 * http://host:port" and `ready(output)` holds (the gateway's tests use it too). Its url
 * names `where.host` (default 127.0.0.1).
 */
export async function startCli(
  args: string[],
  ready: (output: string) => boolean = () => true,
  where: { prefix?: string[]; host?: string } = {},
): Promise<TestServer> {
  // `prefix` runs it through another command (`ip netns exec NS`: a replica on a network of its own).
  const [command, ...rest] = [...(where.prefix ?? []), process.execPath, CLI, ...args];
  const proc = spawn(command!, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start:\n${output}`)), 20_000);
    const check = () => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (m && ready(output)) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout!.on('data', check);
    proc.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the process exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://${where.host ?? '127.0.0.1'}:${port}`,
    port,
    proc,
    output: () => output,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      await exited;
    },
    async kill9() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

export interface FailedStart {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the real server with `args` where it must fail to start, and returns how it ended
 * (`nodeArgs` go to node before the script, `env` adds to the environment). `uid`/`gid` run it as another user (tests
 * that need permissions to bite run as root and spawn the server as `nobody`); that user
 * writes its coverage to a folder of its own, moved into the collected one afterwards.
 */
export async function failedStart(
  args: string[],
  options: { uid?: number; gid?: number; cwd?: string; timeoutMs?: number; nodeArgs?: string[]; env?: Record<string, string> } = {},
): Promise<FailedStart> {
  const env = { ...process.env, ...options.env };
  const coverage = process.env.NODE_V8_COVERAGE;
  let ownCoverage: string | undefined;
  if (options.uid !== undefined && coverage !== undefined) {
    ownCoverage = mkdtempSync(join(tmpdir(), 'trellis-coverage-'));
    chmodSync(ownCoverage, 0o777);
    env.NODE_V8_COVERAGE = ownCoverage;
  }
  const proc = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, '--port', '0', '--workers', '1', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d) => (stdout += d));
  proc.stderr!.on('data', (d) => (stderr += d));
  const timeoutMs = options.timeoutMs ?? 20_000;
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    // 'close': exited, and its output read to the end.
    proc.once('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  if (ownCoverage !== undefined) {
    for (const file of readdirSync(ownCoverage)) renameSync(join(ownCoverage, file), join(coverage!, file));
    rmSync(ownCoverage, { recursive: true, force: true });
  }
  // Under `npm test`'s coverage collection, V8 itself may print this when the process exits
  // while a thread is still being torn down; it is not the server's output.
  if (coverage !== undefined) stderr = stderr.replace(/^Failed to stringify coverage profile result\n/m, '');
  return { code, stdout, stderr };
}

/**
 * One server on a fresh data folder for the tests of a file: started before them, stopped
 * after them with its folder removed. `url()` and `query()` are valid inside the tests.
 */
export function serverForFile(): { url(): string; query(): string } {
  const dir = tempDir();
  let server: TestServer | undefined;
  before(async () => {
    server = await startTestServer(['--data', dir.path]);
  });
  after(async () => {
    await server?.stop();
    dir.remove();
  });
  const url = () => {
    if (server === undefined) throw new Error('the test server is not started yet');
    return server.url;
  };
  return { url, query: () => `${url()}/v2/query` };
}

export interface Reply {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** POSTs `body` (JSON; a string is sent as it is) to `path` of a test server. */
export function postPath(server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return post(`${server.url}${path}`, body, headers);
}

export async function get(url: string): Promise<Reply> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** A write request adding one node per label/props pair. */
export function writeRequest(entries: unknown[], returns: string[] = []): unknown {
  return { request_type: 'write', query: { write: { entries, returns } } };
}

export function readRequest(entries: unknown[], returns: string[] = []): unknown {
  return { request_type: 'read', query: { read: { entries, returns } } };
}

export const str = (s: string) => ({ value: { string: s } });
/** A read that counts every node, returned as `c`. */
export const countAllRequest = readRequest([{ query: { name: 'c', root: { count: { input: { nodes: { reference: 'all' } } } } } }], ['c']);
export const countLabel = (name: string, label: string) => ({
  query: {
    name,
    root: {
      count: { input: { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: label } } } } } } },
    },
  },
});

/**
 * Posts a large body with node:http and returns the response even when the server answers
 * before reading the body and closes the connection (as it does for 413): fetch reports
 * that race as a network error, but the response has arrived.
 */
export async function postLarge(url: string, body: Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const head = { 'content-type': 'application/json', 'content-length': body.length, ...headers };
    const req = request(url, { method: 'POST', headers: head }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text, body: text ? JSON.parse(text) : undefined, headers: new Headers() }),
      );
      res.on('error', () => undefined);
    });
    req.on('error', (err) => setTimeout(() => reject(err), 1000));
    req.end(body);
  });
}

/**
 * Polls `until` every 100 ms for up to `ms` (the machine is shared); fails naming `what`,
 * with the end of the server's output.
 */
export async function waitUntil(server: TestServer, what: string, until: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await until())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${server.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
