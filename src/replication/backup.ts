/**
 * Backups and point-in-time restores (docs/replication.md, "Backups").
 *
 * - A backup is one file: an LMDB copy (not compacted) of the database taken in one read
 *   transaction (lmdb-js `backup`), holding its own change-log position (LSN, hash, epoch,
 *   commit time of its last batch). From a data folder it is read-only: it runs beside a
 *   writer of the same folder. From a running writer (`--url`) it is the snapshot replicas
 *   take (POST /v2/replication/snapshot), flushed before it leaves the writer.
 * - A restore puts the copy in an empty data folder and, given the stream, replays the log
 *   from the copy's LSN to the asked point (`--until-lsn N`, `--until-time T`, or the
 *   stream's end), each entry checked to follow and chain, as a replica applies them. It
 *   stops with an error where the stream no longer holds what it needs (retention: the
 *   stream must keep every entry from the backup's LSN to the point), or at a reset entry
 *   (an offline import replaced the data: a backup taken after it is needed).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { messageOf } from '../core/errors.js';
import { entryHeader, openStore, snapshotPosition, type LogPosition } from '../store/index.js';
import { EntryAssembler } from './entry-groups.js';
import { LogStream, type LogMessage } from './nats.js';
import { fileSha256 } from './hashing-sink.js';
import { copyFileToDisk } from './direct-writes.js';
import { downloadSnapshot } from './snapshot.js';

/** What a backup file holds, as `trellis backup` reports it. */
export interface BackupInfo {
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly lsn: number;
  readonly hash: string;
  readonly epoch: number;
  /** Commit time of the last batch it holds (ISO 8601), null when it holds none. */
  readonly time: string | null;
}

/** What `file` holds; `sha256` when it is known already (a download checked it). */
async function describe(file: string, sha256?: string): Promise<BackupInfo> {
  const position = await snapshotPosition(file);
  return {
    file,
    bytes: statSync(file).size,
    sha256: sha256 ?? (await fileSha256(file)),
    lsn: position.lsn,
    hash: position.hash.toString('hex'),
    epoch: position.epoch,
    time: position.time === 0 ? null : new Date(position.time).toISOString(),
  };
}

/** A name beside `to` for the file being written (renamed over `to` once whole). */
function partial(to: string): string {
  return join(dirname(to), `.${randomBytes(4).toString('hex')}.trellis-backup-part`);
}

/** `trellis backup --data DIR --to FILE`: a copy of the database in `dataDir`, read-only beside any writer. */
export async function backupFolder(dataDir: string, to: string): Promise<BackupInfo> {
  const folder = partial(to);
  mkdirSync(folder);
  try {
    const store = await openStore({ path: dataDir, readOnly: true });
    try {
      await store.backup(folder);
    } finally {
      await store.close();
    }
    renameSync(join(folder, 'data.mdb'), to);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return describe(to);
}

/** `trellis backup --url URL --to FILE`: the snapshot of a running writer, downloaded and checked. */
export async function backupServer(url: string, to: string): Promise<BackupInfo> {
  // A folder of its own beside the target, removed whatever happens.
  const temp = partial(to);
  mkdirSync(temp, { recursive: true });
  const { file, info, sha256 } = await downloadSnapshot(url, temp);
  try {
    const held = await describe(file, sha256);
    if (held.lsn !== info.lsn || held.hash !== info.hash) {
      throw new Error(`the snapshot holds LSN ${held.lsn} (${held.hash}), the writer announced ${info.lsn} (${info.hash})`);
    }
    renameSync(file, to);
    return { ...held, file: to };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

export interface RestoreOptions {
  readonly from: string;
  readonly dataDir: string;
  /** The stream to replay from (none: the backup as it is). */
  readonly nats?: string;
  readonly stream: string;
  /** Replay up to and including this LSN. */
  readonly untilLsn?: number;
  /** Replay the entries committed at or before this time (ms since 1970). */
  readonly untilTime?: number;
  readonly log: (message: string) => void;
}

/** A restore that cannot reach the asked point: the folder is removed, the message says why. */
export class RestoreError extends Error {}

/**
 * `trellis restore`: the backup into an empty folder, then the log replayed to the point.
 * Returns the restored position. On an error the folder's database is removed again.
 */
export async function restore(options: RestoreOptions): Promise<LogPosition> {
  const { from, dataDir } = options;
  if (!existsSync(from)) throw new RestoreError(`no backup file ${from}`);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new RestoreError(`${dataDir} is not empty: a restore writes a new database into an empty (or missing) folder`);
  }
  const backup = await snapshotPosition(from);
  if (options.untilLsn !== undefined && options.untilLsn < backup.lsn) {
    throw new RestoreError(`the backup ${from} is at LSN ${backup.lsn}, after the asked LSN ${options.untilLsn}: restore an older backup`);
  }
  if (options.untilTime !== undefined && backup.time > options.untilTime) {
    throw new RestoreError(
      `the backup ${from} holds batches up to ${new Date(backup.time).toISOString()}, after the asked time ${new Date(options.untilTime).toISOString()}: restore an older backup`,
    );
  }
  const replay = options.nats !== undefined;
  if (!replay && options.untilLsn !== undefined && options.untilLsn !== backup.lsn) {
    throw new RestoreError(`the backup is at LSN ${backup.lsn}; replaying to LSN ${options.untilLsn} needs the stream (--nats URL)`);
  }
  if (!replay && options.untilTime !== undefined) {
    throw new RestoreError('replaying to a time needs the stream (--nats URL)');
  }
  mkdirSync(dataDir, { recursive: true });
  try {
    // Inside: a copy cut short (a full disk) is removed with the rest below.
    copyFileToDisk(from, join(dataDir, 'data.mdb'));
    if (!replay) return backup;
    return await replayLog(options, backup);
  } catch (err) {
    // The folder was empty: everything in it is this restore's.
    for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { recursive: true, force: true });
    throw err;
  }
}

async function replayLog(options: RestoreOptions, backup: LogPosition): Promise<LogPosition> {
  const store = await openStore({ path: options.dataDir, replica: true, log: options.log });
  const stream = await LogStream.connect(options.nats!, options.stream, 5000);
  try {
    const state = await stream.state();
    const start = await stream.seqAfter(backup.lsn);
    if (start === 'gap') {
      throw new RestoreError(
        `the stream "${options.stream}" no longer holds entry ${backup.lsn + 1}, the first after the backup: its retention is shorter than this restore needs (docs/replication.md, "Backups")`,
      );
    }
    let position = backup;
    const done = (lsn: number) => options.untilLsn !== undefined && lsn > options.untilLsn;
    const assembler = new EntryAssembler();
    let reached = false;
    for (let seq = start; seq <= state.lastSeq && !reached; seq++) {
      const m: LogMessage | null = await stream.at(seq);
      if (m === null)
        throw new RestoreError(`the stream "${options.stream}" no longer holds message ${seq} (entry after LSN ${position.lsn})`);
      let entries;
      try {
        entries = assembler.push(m);
      } catch (err) {
        throw new RestoreError(messageOf(err));
      }
      const apply = [];
      for (const e of entries) {
        if (e.lsn <= position.lsn) continue; // a group that starts before the backup's point
        const header = entryHeader(e.entry);
        if (done(e.lsn) || (options.untilTime !== undefined && header.time > options.untilTime)) {
          reached = true;
          break;
        }
        if (header.count === 0) {
          throw new RestoreError(
            `entry ${header.lsn} replaced the data outside the log (an offline import): a point after it needs a backup taken after it`,
          );
        }
        apply.push(e);
      }
      if (apply.length > 0) position = await store.applyEntries(apply);
    }
    if (options.untilLsn !== undefined && position.lsn < options.untilLsn) {
      throw new RestoreError(`the stream "${options.stream}" ends at LSN ${position.lsn}, before the asked LSN ${options.untilLsn}`);
    }
    await store.flushed();
    return position;
  } finally {
    await stream.close();
    await store.close();
  }
}

/**
 * `trellis promote --data DIR`: a stopped replica's folder becomes the next writer's. Its
 * epoch rises by one (the entries it writes carry it); its history, and so the stream's
 * check of it, is unchanged. A folder that is not a database is refused.
 */
export async function promote(dataDir: string): Promise<LogPosition> {
  if (!existsSync(join(dataDir, 'data.mdb'))) throw new Error(`${dataDir} holds no database to promote`);
  const store = await openStore({ path: dataDir, replica: true });
  try {
    const at = store.logPosition();
    const next = { ...at, epoch: at.epoch + 1 };
    await store.setLogPosition(next);
    return next;
  } finally {
    await store.close();
  }
}
