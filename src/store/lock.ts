/**
 * One writer per data folder. Two writers on one folder would each keep their own id
 * counters and overwrite each other's nodes; LMDB itself only serialises their commits.
 * Readers (read-only opens) need no lock: LMDB gives them consistent snapshots.
 *
 * The lock is the file `writer.lock` in the data folder, holding the holder's pid, the
 * start time of that process (field 22 of /proc/<pid>/stat, so that a pid reused by an
 * unrelated process is not mistaken for the holder) and a random token naming this one
 * hold. Node has no flock, so:
 *
 * - **Taking it** is an exclusive creation: the content is written and flushed to a
 *   temporary file first, then hard-linked to `writer.lock` (link fails if the name
 *   exists), so nobody ever reads a half-written lock. Where links are not supported, the
 *   file is created with `wx` and written.
 * - **A stale lock** is one whose process is gone (or a zombie), or whose pid now belongs
 *   to a process with another start time: a writer killed with kill -9 leaves one behind.
 *   Removing it must not race: two starters that both found the same stale lock must not
 *   both win, and neither may remove the lock the other has just taken in its place. So
 *   the right to remove the lock with token T is itself an exclusive file,
 *   `writer.lock.takeover-T`: only its creator removes `writer.lock`, after checking it
 *   still holds T (a lock with token T, once removed, never comes back), then drops the
 *   marker; the starter that lost looks again and finds the winner's live lock. A marker
 *   whose creator died is stale in turn and removed the same way, one level up.
 * - **Within one process** the lock is re-entrant for the one who took it: the server's
 *   main thread takes it and hands the token to the writer thread, whose store opens under
 *   it (`confirmWriterLock`), again after every restart of that thread; the lock stays held
 *   by the main thread meanwhile. A second open without the token (a second embedded
 *   writer in the same process) is refused like one from another process: it would keep
 *   its own id counters too.
 * - **Released** on a clean close: the file is removed if it still holds our token.
 *
 * The pid check sees only processes of this machine and pid namespace: folders shared over
 * a network file system or between containers with separate pid namespaces are not
 * protected (LMDB itself does not support network file systems).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { checkDataFile, checkDataFolder, DataFolderError, errorCode, fsFailure } from './folder.js';

export const LOCK_FILE = 'writer.lock';

/** Who holds a lock: what `writer.lock` (and a takeover marker) holds, as JSON. */
export interface LockHolder {
  readonly pid: number;
  /** Start time of the process (clock ticks since boot), null where /proc is missing. */
  readonly start: string | null;
  readonly token: string;
}

/** A writer lock this process holds. */
export interface WriterLock {
  readonly folder: string;
  readonly token: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

/** Rounds of looking at the lock before giving up (each waits at most TAKEOVER_WAIT_MS). */
const MAX_ROUNDS = 200;
/** Pause while another starter is removing a stale lock (it takes microseconds). */
const TAKEOVER_WAIT_MS = 5;
/** Takeover markers of takeover markers: only kill -9 in the middle of a takeover makes one. */
const MAX_MARKER_DEPTH = 4;

const TOKEN = /^[0-9a-f]{32}$/;

/**
 * Takes the writer lock of `folder` (which must exist), taking over a stale one; throws a
 * DataFolderError naming the holder's pid when a live process holds it.
 */
export function acquireWriterLock(folder: string): WriterLock {
  const me: LockHolder = { pid: process.pid, start: startTime(process.pid), token: randomBytes(16).toString('hex') };
  const file = join(folder, LOCK_FILE);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (createExclusive(folder, file, me)) return held(folder, file, me.token);
    const holder = readHolder(folder, file);
    if (holder === undefined) continue; // released meanwhile: try again
    if (isRunning(holder)) throw inUse(folder, holder);
    removeStale(folder, file, holder, me, 0);
  }
  throw new DataFolderError(
    `cannot take the writer lock of the data folder ${folder}: other processes keep taking it over; stop them and try again`,
  );
}

/**
 * A server's start-up check, in its main thread before any thread opens the folder:
 * checks the folder (creating it), takes the writer lock, checks the data file. The
 * writer thread then opens the store with `writerLock: lock.token`.
 */
export function lockDataFolder(folder: string): WriterLock {
  checkDataFolder(folder, true);
  const lock = acquireWriterLock(folder);
  try {
    checkDataFile(folder, true);
  } catch (err) {
    lock.release();
    throw err;
  }
  return lock;
}

/**
 * Checks that `token` is this process's hold of the writer lock of `folder` (the writer
 * thread of a server whose main thread took the lock). Throws a DataFolderError if not.
 */
export function confirmWriterLock(folder: string, token: string): void {
  const holder = readHolder(folder, join(folder, LOCK_FILE));
  if (holder !== undefined && holder.token === token && holder.pid === process.pid) return;
  if (holder !== undefined && holder.token !== token && isRunning(holder)) throw inUse(folder, holder);
  throw new DataFolderError(
    `the writer lock of the data folder ${folder} (${join(folder, LOCK_FILE)}) is no longer held by this process (pid ${process.pid}); restart the server`,
  );
}

/** The holder of the lock of `folder`, if any (for messages and tests). */
export function writerLockHolder(folder: string): LockHolder | undefined {
  return readHolder(folder, join(folder, LOCK_FILE));
}

function held(folder: string, file: string, token: string): WriterLock {
  let released = false;
  return {
    folder,
    token,
    release() {
      if (released) return;
      released = true;
      try {
        // Ours while we live: nobody removes a running holder's lock.
        if (readHolder(folder, file)?.token === token) rmSync(file, { force: true });
      } catch {
        // A folder that vanished or turned unreadable: nothing left to release.
      }
    },
  };
}

function inUse(folder: string, holder: LockHolder): DataFolderError {
  if (holder.pid === process.pid) {
    return new DataFolderError(
      `the data folder ${folder} is already open for writing in this process (pid ${holder.pid}); close that database first, or open this one read-only`,
    );
  }
  return new DataFolderError(
    `the data folder ${folder} is in use by another writer (pid ${holder.pid}); stop that process, or open the folder read-only (reader mode) next to it`,
  );
}

/**
 * Removes `file` (the lock, or a takeover marker) if it still holds `seen`, whose process
 * is gone, unless another starter is doing just that; the caller looks again either way.
 */
function removeStale(folder: string, file: string, seen: LockHolder, me: LockHolder, depth: number): void {
  const marker = join(folder, `${LOCK_FILE}.takeover-${seen.token}`);
  if (createExclusive(folder, marker, me)) {
    try {
      // While we hold the marker nobody else removes `file`, and a file holding the token
      // `seen` never reappears once removed: if it holds `seen` now, it is the stale one.
      if (readHolder(folder, file)?.token === seen.token) rmSync(file, { force: true });
    } finally {
      rmSync(marker, { force: true });
    }
    return;
  }
  const other = readHolder(folder, marker);
  if (other === undefined) return; // that takeover just ended
  if (isRunning(other)) {
    sleep(TAKEOVER_WAIT_MS);
    return;
  }
  if (depth >= MAX_MARKER_DEPTH) {
    throw new DataFolderError(
      `cannot take over the stale writer lock of the data folder ${folder}: remove the files ${LOCK_FILE}* in it if no Trellis process uses the folder`,
    );
  }
  removeStale(folder, marker, other, me, depth + 1);
}

/** Creates `file` holding `holder`, unless it exists (false). */
function createExclusive(folder: string, file: string, holder: LockHolder): boolean {
  const content = `${JSON.stringify(holder)}\n`;
  const temp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  const cannotCreate = (err: unknown) =>
    fsFailure(
      `cannot create the writer lock in the data folder ${folder}`,
      err,
      'fix the owner or permissions of the folder, or open it read-only',
    );
  try {
    writeDurably(temp, content);
  } catch (err) {
    rmSync(temp, { force: true });
    throw cannotCreate(err);
  }
  try {
    linkSync(temp, file);
    return true;
  } catch (err) {
    const code = errorCode(err);
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS' || code === 'EXDEV') {
      // A file system without hard links: create the lock file itself exclusively.
      try {
        writeDurably(file, content);
        return true;
      } catch (inner) {
        if (errorCode(inner) === 'EEXIST') return false;
        throw cannotCreate(inner);
      }
    }
    throw cannotCreate(err);
  } finally {
    rmSync(temp, { force: true });
  }
}

function writeDurably(file: string, content: string): void {
  const fd = openSync(file, 'wx');
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The holder recorded in `file`, or undefined when there is no such file. A file that is
 * not a lock (or a lock still being written, on file systems without links: it is read
 * again a few times) is refused with a message saying how to clear it.
 */
function readHolder(folder: string, file: string): LockHolder | undefined {
  for (let attempt = 0; ; attempt++) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined;
      throw fsFailure(`cannot read the writer lock ${file}`, err, 'fix the owner or permissions of the folder');
    }
    const holder = parseHolder(text);
    if (holder !== undefined) return holder;
    if (attempt >= 10) {
      throw new DataFolderError(
        `the data folder ${folder} has a writer lock ${file} that is not readable as one; delete that file if no Trellis process uses the folder`,
      );
    }
    sleep(10);
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, start, token } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
    if (start !== null && typeof start !== 'string') return undefined;
    if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
    return { pid, start, token };
  } catch {
    return undefined;
  }
}

/** Whether the process that recorded `holder` still runs (when in doubt: it does). */
function isRunning(holder: LockHolder): boolean {
  if (holder.pid === process.pid) return holder.start === startTime(process.pid);
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if (errorCode(err) === 'ESRCH') return false;
    // EPERM: it exists, run by another user.
  }
  const stat = procStat(holder.pid);
  if (stat === undefined) return true; // no /proc, or hidden from us: assume it is the holder
  if (stat.state === 'Z' || stat.state === 'X') return false; // dead, not yet reaped
  return holder.start === null || stat.start === holder.start;
}

/** Start time of process `pid` (clock ticks since boot), or null where /proc is missing. */
function startTime(pid: number): string | null {
  return procStat(pid)?.start ?? null;
}

function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so count fields
  // after the last ')'; there field 3 (state) comes first and field 22 (starttime) 20th.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[19];
  return state !== undefined && start !== undefined && /^\d+$/.test(start) ? { state, start } : undefined;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
