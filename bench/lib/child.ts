/** A server run as a child process for the HTTP bench: started, awaited, stopped cleanly. */
import { spawn, type ChildProcess } from 'node:child_process';
import { progress } from './cli.js';

export interface Child {
  readonly process: ChildProcess;
  /** The first match of `ready` on stdout, with the port from `listening`. */
  readonly port: number;
  /** SIGTERM, then wait for exit (a --cpu-prof profile is written on a clean exit). */
  stop(): Promise<void>;
}

/**
 * Spawns `node [nodeArgs] script [args]` and resolves once stdout has shown a port (first
 * group of `listening`) and the `ready` line. Output is echoed to stderr for diagnosis.
 */
export function startChild(
  name: string,
  nodeArgs: readonly string[],
  script: string,
  args: readonly string[],
  listening: RegExp,
  ready: RegExp,
): Promise<Child> {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk.toString()}`));
  return new Promise<Child>((resolve, reject) => {
    let port = -1;
    let seen = '';
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`${name} did not become ready within 60 s`)), 60_000);
    const fail = (err: Error) => {
      settled = true;
      clearTimeout(timer);
      void stop().then(() => reject(err));
    };
    const early = (code: number | null) => fail(new Error(`${name} exited early with code ${code}`));
    child.once('exit', early);
    child.stdout!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      progress(`${name}: ${text.trim()}`);
      seen += text;
      const m = listening.exec(seen);
      if (m?.[1] !== undefined) port = Number(m[1]);
      if (port >= 0 && ready.test(seen) && !settled) {
        settled = true;
        clearTimeout(timer);
        child.off('exit', early);
        resolve({ process: child, port, stop });
      }
    });
  });
}
