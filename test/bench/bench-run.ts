/**
 * Running a bench script as a child process and reading its JSON report, for the bench
 * smoke tests (split across two files so each stays well inside the per-file time limit).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const script = (name: string) => fileURLToPath(new URL(`../../bench/${name}.js`, import.meta.url));

export async function bench(name: string, args: string[]): Promise<Record<string, any>> {
  const { stdout } = await run(process.execPath, [script(name), ...args], { timeout: 60_000, maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as Record<string, any>;
}
