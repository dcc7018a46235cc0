/**
 * A small tmpfs for disk-full tests. Mounting needs root (or CAP_SYS_ADMIN): elsewhere
 * `mountTmpfs` returns the reason, and the test skips with it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  readonly path: string;
  freeBytes(): number;
  /** Fills the filesystem until `leave` bytes are free; returns the filler file's path. */
  fill(leave: number): string;
  unmount(): void;
}

export function mountTmpfs(sizeBytes: number): Tmpfs | string {
  const path = mkdtempSync(join(tmpdir(), 'trellis-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (err) {
    rmSync(path, { recursive: true, force: true });
    const why = err instanceof Error ? (err.message.split('\n')[1] ?? err.message) : String(err);
    return `cannot mount a tmpfs here (needs root): ${why.trim()}`;
  }
  const freeBytes = () => {
    const s = statfsSync(path);
    return s.bavail * s.bsize;
  };
  return {
    path,
    freeBytes,
    fill(leave) {
      const filler = join(path, 'filler');
      writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes() - leave)));
      return filler;
    },
    unmount() {
      execFileSync('umount', ['-l', path], { stdio: 'pipe' });
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** statfs type of tmpfs: flushes to it are instant, so timing-dependent checks skip it. */
export const TMPFS_MAGIC = 0x01021994;

export function isTmpfs(path: string): boolean {
  return statfsSync(path).type === TMPFS_MAGIC;
}
