/** Flag parsing and the machine description shared by the bench entry points. */
import { cpus, availableParallelism, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { SIZES, type SizeName } from './dataset.js';
import { messageOf } from '../../src/core/errors.js';

export interface CommonArgs {
  size: SizeName;
  repeat: number;
  only: string[] | null;
  values: Record<string, string | undefined>;
}

/** Parses `--size`, `--repeat`, `--only a,b` plus the entry point's own string flags. */
export function parseBenchArgs(argv: readonly string[], own: readonly string[]): CommonArgs {
  const options: Record<string, { type: 'string' }> = {};
  for (const name of ['size', 'repeat', 'only', ...own]) options[name] = { type: 'string' };
  const { values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false });
  const size = (values.size ?? 'small') as string;
  if (!(size in SIZES)) throw new Error(`--size must be one of ${Object.keys(SIZES).join(', ')}`);
  return {
    size: size as SizeName,
    repeat: positiveInt(values.repeat as string | undefined, 1, 'repeat'),
    only: typeof values.only === 'string' ? values.only.split(',') : null,
    values: values as Record<string, string | undefined>,
  };
}

export function positiveInt(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${text}`);
  return n;
}

export function positiveNumber(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!(n > 0)) throw new Error(`--${name} must be a positive number, got ${text}`);
  return n;
}

export function machine(): Record<string, unknown> {
  return {
    cpus: availableParallelism(),
    cpu_model: cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Runs a bench's main function; a failure prints one line and exits with code 1. */
export async function runBench(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (err) {
    console.error(`[bench] FAILED: ${messageOf(err)}`);
    process.exit(1);
  }
}
