/**
 * The data folder before LMDB sees it. A writer's folder is created when missing and must
 * be a folder this user can write; a reader's must hold a database. The checks turn
 * Node's error codes into sentences: every failure is a DataFolderError whose message is
 * one line naming the path, what is wrong and what to do, for a front end to print as is.
 *
 * lmdb-js must never be handed a data.mdb that is not an LMDB file: it crashes the whole
 * process with a segmentation fault (an empty file opened read-only, a file of zeros,
 * text...), so the file's header is checked first.
 */
import { accessSync, closeSync, constants, fstatSync, mkdirSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { messageOf } from '../core/errors.js';

/** A data folder that cannot be used, with a message fit to print as it is. */
export class DataFolderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataFolderError';
  }
}

/** LMDB's files in a data folder (the environment is always opened as a folder). */
export const DATA_FILE = 'data.mdb';
export const LMDB_LOCK_FILE = 'lock.mdb';

/** LMDB's meta page: a page header of 24 bytes, then the magic number, ..., the page size. */
const LMDB_MAGIC = 0xbeefc0de;
const MAGIC_OFFSET = 24;
/** The data version of the files this lmdb-js writes (every Trellis database); another crashes it. */
const LMDB_DATA_VERSION = 2;
const DATA_VERSION_OFFSET = 28;
const PAGE_SIZE_OFFSET = 48;
const HEADER_BYTES = 52;

/** A folder that holds something other than a Trellis database, and why. */
export function notTrellis(path: string, why: string): DataFolderError {
  return new DataFolderError(
    `the data folder ${path} is not a Trellis database: ${why}; give the folder of a Trellis database, or a new or empty one`,
  );
}

/** The error code of a Node file-system error, if any. */
export function errorCode(err: unknown): string | undefined {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' ? (err as NodeJS.ErrnoException).code : undefined;
}

/** What a file-system error code means, in words. */
export function describeFsError(err: unknown): string {
  switch (errorCode(err)) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied${userNote()}`;
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EEXIST':
      return 'a file of that name is in the way';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'the disk quota is exhausted';
    case 'ENOENT':
      return 'it does not exist';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    case 'EIO':
      return 'an input/output error (a failing disk?)';
    default:
      return messageOf(err).replace(/\s+/g, ' ');
  }
}

/** "(this process runs as uid N)", where the operating system has uids. */
function userNote(): string {
  return typeof process.getuid === 'function' ? ` (this process runs as uid ${process.getuid()})` : '';
}

/**
 * `what`: ${describeFsError}; what to do, as a DataFolderError. `advice` is for a refused
 * permission; the other causes get their own.
 */
export function fsFailure(what: string, err: unknown, advice: string): DataFolderError {
  return new DataFolderError(`${what}: ${describeFsError(err)}; ${adviceFor(err, advice)}`, { cause: err });
}

function adviceFor(err: unknown, permission: string): string {
  switch (errorCode(err)) {
    case 'EACCES':
    case 'EPERM':
      return permission;
    case 'EROFS':
      return 'use a folder on a writable file system, or open this one read-only';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'free some space, or choose a folder on another disk';
    case 'ENOTDIR':
    case 'EEXIST':
    case 'ENOENT':
    case 'ELOOP':
    case 'ENAMETOOLONG':
      return 'check the path';
    default:
      return 'check the disk and the folder';
  }
}

/**
 * Checks the folder, creating it for a writer: a folder (not a file), writable by this
 * user for a writer, readable for a reader. The data file is checked by checkDataFile.
 */
export function checkDataFolder(path: string, writable: boolean): void {
  let stat: Stats | undefined;
  try {
    stat = statSync(path);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT')
      throw fsFailure(`cannot use the data folder ${path}`, err, 'fix the permissions of the folders on the path');
  }
  if (stat === undefined) {
    if (!writable) {
      throw new DataFolderError(
        `the data folder ${path} does not exist; check the path, or start a writer on it first to create a database`,
      );
    }
    try {
      mkdirSync(path, { recursive: true });
    } catch (err) {
      throw fsFailure(`cannot create the data folder ${path}`, err, 'create it with the right owner, or choose another folder');
    }
    return;
  }
  if (!stat.isDirectory()) {
    throw new DataFolderError(`the data folder ${path} is a file, not a folder; give the path of a folder (a missing one is created)`);
  }
  const access = (file: string, mode: number) => {
    try {
      accessSync(file, mode);
    } catch (err) {
      if (errorCode(err) === 'ENOENT' && file !== path) return;
      const what = file === path ? `the data folder ${path}` : `${file} in the data folder`;
      throw writable
        ? fsFailure(`cannot write ${what}`, err, 'fix the owner or permissions, or open the folder read-only')
        : fsFailure(`cannot read ${what}`, err, 'fix the owner or permissions');
    }
  };
  if (writable) {
    access(path, constants.W_OK | constants.X_OK | constants.R_OK);
    access(join(path, DATA_FILE), constants.R_OK | constants.W_OK);
    access(join(path, LMDB_LOCK_FILE), constants.R_OK | constants.W_OK);
  } else {
    access(path, constants.R_OK | constants.X_OK);
    access(join(path, DATA_FILE), constants.R_OK);
  }
}

/**
 * Checks that the folder's data.mdb, if any, is an LMDB file; a reader's folder must have
 * one. An empty data.mdb is a database LMDB has not initialised yet: a writer does that.
 */
export function checkDataFile(path: string, writable: boolean): void {
  checkLockFile(path);
  const file = join(path, DATA_FILE);
  const noDatabase = () =>
    new DataFolderError(
      `the data folder ${path} holds no Trellis database (no ${DATA_FILE}); check the path, or start a writer on it first to create one`,
    );
  const notLmdb = (why: string) => notTrellis(path, `${file} ${why}`);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw fsFailure(`cannot read ${file}`, err, 'fix its owner or permissions');
    if (!writable) throw noDatabase();
    return;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notLmdb('is not a regular file');
    if (stat.size === 0) {
      if (!writable) throw noDatabase();
      return;
    }
    const head = Buffer.alloc(HEADER_BYTES);
    const got = readSync(fd, head, 0, HEADER_BYTES, 0);
    const u32 = (at: number) => (endianness() === 'LE' ? head.readUInt32LE(at) : head.readUInt32BE(at));
    if (got < HEADER_BYTES || u32(MAGIC_OFFSET) !== LMDB_MAGIC) throw notLmdb('is not an LMDB file');
    if (u32(DATA_VERSION_OFFSET) !== LMDB_DATA_VERSION) {
      throw notLmdb(`is an LMDB file of data version ${u32(DATA_VERSION_OFFSET)}, not ${LMDB_DATA_VERSION}`);
    }
    const pageSize = u32(PAGE_SIZE_OFFSET);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0 || stat.size < 2 * pageSize) {
      throw notLmdb('is a damaged or truncated LMDB file');
    }
  } finally {
    closeSync(fd);
  }
}

/** LMDB rebuilds a lock.mdb of any content, but lmdb-js crashes on one that is not a file. */
function checkLockFile(path: string): void {
  const file = join(path, LMDB_LOCK_FILE);
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return;
    throw fsFailure(`cannot read ${file}`, err, 'fix its owner or permissions');
  }
  if (!stat.isFile()) throw notTrellis(path, `${file} is not a regular file`);
}
