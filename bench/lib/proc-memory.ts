/**
 * A process's resident memory from /proc (Linux), in MiB: all of it, the anonymous part
 * (heaps and buffers: where a leak shows) and the file-backed part (mapped files such as
 * LMDB's data file, which grow with the data).
 */
import { readFileSync } from 'node:fs';

export function processMemory(pid: number | 'self' = 'self'): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, anon: kib('RssAnon') / 1024, file: (kib('RssFile') + kib('RssShmem')) / 1024 };
}
