/**
 * What the CSV reading thread (csv-thread.ts) and the import's side of it (threaded-csv.ts)
 * say to each other. The thread's errors cross as their fields and come back as the same
 * classes (an ImportError keeps its file, line, column and reason), so the import fails
 * exactly as if it had read the file itself.
 */
import type { BatchMessage } from './batch-message.js';
import { ImportError, type Reject } from './convert.js';
import { HeaderError, type IdType } from './header.js';
import type { FileGroup } from './sources.js';

/** The thread's workerData: the groups, in the order the import reads them, and what reading needs. */
export interface ReaderSettings {
  readonly groups: readonly FileGroup[];
  readonly delimiter: string;
  readonly quote: string;
  readonly arrayDelimiter: string;
  readonly idType: IdType;
  /** With --skip-bad-rows: rows that fail conversion are collected and sent, not thrown. */
  readonly skipping: boolean;
  /** CSV bytes per batch. */
  readonly chunkBytes: number;
  /** Batches the thread may read ahead of the import (memory stays flat). */
  readonly ahead: number;
}

/** The import took a batch: the thread may read one more. */
export interface ToReader {
  readonly type: 'more';
}

/** Each message carries the bytes read and the rows rejected since the one before; 'end' ends a group. */
interface Read {
  readonly bytes: number;
  readonly rejects: Reject[];
}

export type FromReader =
  | (Read & { readonly type: 'batch'; readonly batch: BatchMessage })
  | (Read & { readonly type: 'end' })
  | (Read & { readonly type: 'error'; readonly error: ErrorFields });

export interface ErrorFields {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  /** An ImportError's place and reason. */
  readonly place?: { file: string; line: number; column: number; reason: string };
}

export function errorFields(err: unknown): ErrorFields {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), stack: undefined };
  const { name, message, stack } = err;
  if (err instanceof ImportError)
    return { name, message, stack, place: { file: err.file, line: err.line, column: err.column, reason: err.reason } };
  return { name, message, stack };
}

/** The error again: an ImportError or HeaderError as such, anything else an Error of its name and message. */
export function errorFrom(fields: ErrorFields): Error {
  const { place } = fields;
  if (place !== undefined) return new ImportError(place.file, place.line, place.column, place.reason);
  const err = fields.name === 'HeaderError' ? new HeaderError(fields.message) : new Error(fields.message);
  err.name = fields.name;
  if (fields.stack !== undefined) err.stack = fields.stack;
  return err;
}
