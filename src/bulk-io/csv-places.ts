/**
 * Where the rows of a CSV batch came from (convert.ts RowPlaces): their lines, columns and
 * raw text, for errors and the rejects file. CsvPlaces reads them from the parser's batch,
 * which the parser reuses for its next chunk; RowsCopy is what outlives it — the rows'
 * lines, offsets and bytes in typed arrays a reading thread moves (not copies) to the
 * main thread (csv-thread.ts), where CopiedPlaces answers from them.
 *
 * Both have RowPlaces' shape without naming it: convert.ts imports this file.
 */
import { CsvParser, type CsvBatch } from './csv.js';

/** The places of the rows of a parser's batch (valid until the parser's next batch). */
export class CsvPlaces {
  constructor(
    readonly file: string,
    readonly batch: CsvBatch,
  ) {}

  position(r: number, c: number): { line: number; column: number } {
    const batch = this.batch;
    return c < 0 ? { line: batch.rowLine[r]!, column: 1 } : batch.position(r, batch.rowField[r]! + c);
  }

  raw(r: number): string {
    return this.batch.rawRow(r);
  }
}

/** The rows of a batch on their own: row r is bytes [starts[r], ends[r]), starting on line lines[r]. */
export interface RowsCopy {
  readonly file: string;
  readonly lines: Float64Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly bytes: Uint8Array;
}

/** A copy of the batch's rows (one copy of their bytes), to outlive the parser's next batch. */
export function copyRows(places: CsvPlaces): RowsCopy {
  const batch = places.batch;
  const rows = batch.rows;
  const from = rows === 0 ? 0 : batch.rowStart[0]!;
  const to = rows === 0 ? 0 : batch.rowEnd[rows - 1]!;
  const starts = batch.rowStart.slice(0, rows);
  const ends = batch.rowEnd.slice(0, rows);
  for (let r = 0; r < rows; r++) {
    starts[r] = starts[r]! - from;
    ends[r] = ends[r]! - from;
  }
  // A Buffer's slice is a view: a new Uint8Array of it is the copy.
  return { file: places.file, lines: batch.rowLine.slice(0, rows), starts, ends, bytes: new Uint8Array(batch.bytes.subarray(from, to)) };
}

/** The buffers of a copy, to move it to another thread rather than copy it again. */
export const rowsTransfer = (rows: RowsCopy): ArrayBuffer[] =>
  [rows.lines, rows.starts, rows.ends, rows.bytes].map((a) => a.buffer as ArrayBuffer);

/** Places answered from a copy of the rows; a cell's column by parsing its row again (rare: errors only). */
export class CopiedPlaces {
  readonly file: string;

  constructor(
    private readonly rows: RowsCopy,
    private readonly delimiter: number,
    private readonly quote: number,
  ) {
    this.file = rows.file;
  }

  position(r: number, c: number): { line: number; column: number } {
    const line = this.rows.lines[r]!;
    if (c < 0) return { line, column: 1 };
    const parser = new CsvParser({ delimiter: this.delimiter, quote: this.quote });
    parser.feed(this.rowBytes(r));
    const batch = parser.finish();
    const at = batch.position(0, Math.min(c, batch.fieldCount(0) - 1));
    return { line: line + at.line - 1, column: at.column };
  }

  raw(r: number): string {
    return this.rowBytes(r).toString('utf8');
  }

  private rowBytes(r: number): Buffer {
    const { bytes, starts, ends } = this.rows;
    return Buffer.from(bytes.buffer, bytes.byteOffset + starts[r]!, ends[r]! - starts[r]!);
  }
}
