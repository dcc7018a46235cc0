/**
 * A converted CSV batch as a thread message, from the reading thread (csv-thread.ts) to
 * the import (threaded-csv.ts). Number columns and the rows' places (csv-places.ts
 * RowsCopy) are typed arrays moved with the message, not copied. Value columns are cloned,
 * except those holding objects (DateTime, arrays of dates, json values): cloning would
 * drop DateTime's class, so those go packed with msgpackr in the settings every thread
 * message of values uses (src/core/value-msgpack.ts). Nothing here loads the store: the
 * reading thread stays light.
 */
import { Packr } from 'msgpackr';
import { markNegativeZeros, PACKR_OPTIONS, registerValueExtensions } from '../core/value-msgpack.js';
import type { Value } from '../core/value.js';
import type { BulkColumn } from '../store/index.js';
import type { Keys, ParsedBatch } from './convert.js';
import { CopiedPlaces, CsvPlaces, copyRows, rowsTransfer, type RowsCopy } from './csv-places.js';

registerValueExtensions();
const packr = new Packr(PACKR_OPTIONS);

type ColumnMessage =
  | { readonly name: string; readonly kind: 'i64' | 'f64'; readonly values: Float64Array; readonly present: Uint8Array | null }
  | { readonly name: string; readonly kind: 'value'; readonly values: readonly (Value | undefined)[] }
  | { readonly name: string; readonly kind: 'packed'; readonly packed: Uint8Array };

export interface BatchMessage {
  readonly count: number;
  readonly columns: ColumnMessage[];
  readonly keys: Keys | null;
  readonly labels: (string | undefined)[] | null;
  readonly starts: Keys | null;
  readonly ends: Keys | null;
  readonly spaces: ParsedBatch['spaces'];
  readonly rowOf: readonly number[] | null;
  readonly rows: RowsCopy;
}

/** Whether a value column holds something cloning would change (a class instance). */
const holdsObjects = (values: readonly (Value | undefined)[]): boolean =>
  values.some((v) => typeof v === 'object' && v !== null && !ArrayBuffer.isView(v));

/** A typed array whose buffer is its own (so moving the buffer moves nothing else). */
function owned<T extends Float64Array | Uint8Array>(a: T): T {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength ? a : (a.slice() as T);
}

/**
 * Keys as a Float64Array when every one is a number: moved, where an array of numbers
 * would be cloned, and read back one by one, on the main thread (an edge has two keys).
 */
function movedKeys(keys: Keys | null, transfer: ArrayBuffer[]): Keys | null {
  if (keys === null || keys instanceof Float64Array) return keys;
  const out = new Float64Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key !== 'number') return keys;
    out[i] = key;
  }
  transfer.push(out.buffer);
  return out;
}

/** The message of a batch convertCsv made, and the buffers to move with it. */
export function toMessage(batch: ParsedBatch): { message: BatchMessage; transfer: ArrayBuffer[] } {
  if (!(batch.places instanceof CsvPlaces)) throw new Error('only a CSV batch goes to another thread');
  const transfer: ArrayBuffer[] = [];
  const columns = batch.columns.map((c): ColumnMessage => {
    if (c.kind === 'value')
      return holdsObjects(c.values) ? { name: c.name, kind: 'packed', packed: packr.pack(markNegativeZeros(c.values)) } : c;
    const values = owned(c.values);
    const present = c.present === null ? null : owned(c.present);
    transfer.push(values.buffer as ArrayBuffer);
    if (present !== null) transfer.push(present.buffer as ArrayBuffer);
    return { name: c.name, kind: c.kind, values, present };
  });
  const rows = copyRows(batch.places);
  transfer.push(...rowsTransfer(rows));
  const moved = (keys: Keys | null) => movedKeys(keys, transfer);
  const { count, labels, spaces, rowOf } = batch;
  return {
    message: { count, columns, keys: moved(batch.keys), labels, starts: moved(batch.starts), ends: moved(batch.ends), spaces, rowOf, rows },
    transfer,
  };
}

/** The batch again, its places answered from the copied rows (delimiter and quote: the file's). */
export function fromMessage(m: BatchMessage, delimiter: number, quote: number): ParsedBatch {
  // Made again as literals, of the shapes convert.ts makes (the bulk build reads them per row).
  const columns = m.columns.map((c): BulkColumn => {
    if (c.kind === 'packed') return { name: c.name, kind: 'value', values: packr.unpack(c.packed) as (Value | undefined)[] };
    if (c.kind === 'value') return { name: c.name, kind: 'value', values: c.values };
    return { name: c.name, kind: c.kind, values: c.values, present: c.present };
  });
  const { count, keys, labels, starts, ends, spaces, rowOf } = m;
  return { count, columns, keys, labels, starts, ends, spaces, rowOf, places: new CopiedPlaces(m.rows, delimiter, quote) };
}
