/**
 * An RFC 4180 CSV reader over bytes: fields separated by a delimiter, rows by LF or CRLF,
 * a field may be quoted (the quote doubled inside it). It hands out rows in batches as
 * offsets into the bytes it read, so numbers are parsed straight from the bytes and no
 * string is made for a field nobody reads (cells.ts).
 *
 * Strict where RFC 4180 is: a quote inside an unquoted field, text after a closing quote
 * and a quote never closed are errors with their line and column. Empty lines are skipped.
 * Lines count LF bytes, so a row's line is the line of the file it starts on.
 */

export interface CsvOptions {
  /** One byte (an ASCII character). */
  readonly delimiter: number;
  readonly quote: number;
}

/** A CSV syntax error: where (1-based line and column, in characters) and what. */
export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'CsvSyntaxError';
  }
}

/** How a field was written: plain, quoted, or quoted with doubled quotes inside. */
export const PLAIN = 0;
export const QUOTED = 1;
export const ESCAPED = 2;

const LF = 10;
const CR = 13;

/**
 * Rows of one batch: row r's fields are fields [rowField[r], rowField[r + 1]); field f's
 * content is bytes [start[f], end[f]) of `bytes` (inside the quotes for a quoted one).
 */
export class CsvBatch {
  rows = 0;
  fields = 0;
  bytes: Buffer = Buffer.alloc(0);
  rowField = new Int32Array(1025);
  rowLine = new Float64Array(1024);
  /** Byte offset in `bytes` where each row's first line starts (for columns and rejects). */
  rowStart = new Int32Array(1024);
  /** Byte offset where each row ends (its line break excluded). */
  rowEnd = new Int32Array(1024);
  start = new Int32Array(8192);
  end = new Int32Array(8192);
  kind = new Uint8Array(8192);

  /** The number of fields of row r. */
  fieldCount(r: number): number {
    return this.rowField[r + 1]! - this.rowField[r]!;
  }

  /** Field f's text, quotes removed and doubled quotes undone. */
  text(f: number, quote = 34): string {
    const s = this.bytes.toString('utf8', this.start[f], this.end[f]);
    if (this.kind[f] !== ESCAPED) return s;
    const q = String.fromCharCode(quote);
    return s.split(q + q).join(q);
  }

  /** Whether field f is empty and unquoted (a missing value). */
  isMissing(f: number): boolean {
    return this.kind[f] === PLAIN && this.start[f] === this.end[f];
  }

  /** The row's text as it was in the file (for the rejects file). */
  rawRow(r: number): string {
    return this.bytes.toString('utf8', this.rowStart[r], this.rowEnd[r]);
  }

  /**
   * Line and column (1-based, characters) of field f of row r. Quoted fields may hold line
   * breaks, so the line is counted from the row's start; a quoted field's column is its quote's.
   */
  position(r: number, f: number): { line: number; column: number } {
    let line = this.rowLine[r]!;
    let lineStart = this.rowStart[r]!;
    const at = this.kind[f] === PLAIN ? this.start[f]! : this.start[f]! - 1;
    for (let i = lineStart; i < at; i++) {
      if (this.bytes[i] === LF) {
        line++;
        lineStart = i + 1;
      }
    }
    return { line, column: characters(this.bytes, lineStart, at) + 1 };
  }

  reset(bytes: Buffer): void {
    this.bytes = bytes;
    this.rows = 0;
    this.fields = 0;
    this.rowField[0] = 0;
  }

  growRows(): void {
    const size = this.rowLine.length * 2;
    const rowField = new Int32Array(size + 1);
    rowField.set(this.rowField);
    const rowLine = new Float64Array(size);
    rowLine.set(this.rowLine);
    const rowStart = new Int32Array(size);
    rowStart.set(this.rowStart);
    const rowEnd = new Int32Array(size);
    rowEnd.set(this.rowEnd);
    Object.assign(this, { rowField, rowLine, rowStart, rowEnd });
  }

  growFields(): void {
    const size = this.start.length * 2;
    const start = new Int32Array(size);
    start.set(this.start);
    const end = new Int32Array(size);
    end.set(this.end);
    const kind = new Uint8Array(size);
    kind.set(this.kind);
    Object.assign(this, { start, end, kind });
  }
}

/** UTF-8 characters in bytes [from, to) (continuation bytes do not count). */
function characters(bytes: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if ((bytes[i]! & 0xc0) !== 0x80) n++;
  return n;
}

/**
 * Parses a stream of byte chunks: `feed` each chunk as it comes, then `finish`. Each call
 * returns the batch of rows completed so far (valid until the next call); a row cut by
 * the end of a chunk waits for the next one.
 */
export class CsvParser {
  private pending: Buffer = Buffer.alloc(0);
  /** Line number of the first byte of `pending`. */
  private line = 1;
  private readonly batch = new CsvBatch();

  /** 1 for the bytes that end an unquoted field's scan: the delimiter, the quote, CR and LF. */
  private readonly special = new Uint8Array(256);

  constructor(private readonly options: CsvOptions) {
    for (const b of [options.delimiter, options.quote, LF, CR]) this.special[b] = 1;
  }

  feed(chunk: Buffer): CsvBatch {
    const bytes = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    return this.parse(bytes, false);
  }

  finish(): CsvBatch {
    return this.parse(this.pending, true);
  }

  private parse(bytes: Buffer, last: boolean): CsvBatch {
    const batch = this.batch;
    batch.reset(bytes);
    const { delimiter, quote } = this.options;
    const special = this.special;
    const n = bytes.length;
    let line = this.line;
    let pos = 0;
    // Each iteration reads one row, or stops (without consuming it) at a row the chunk cuts.
    rows: while (pos < n) {
      const rowStart = pos;
      const rowLine = line;
      const b0 = bytes[pos]!;
      if (b0 === LF || b0 === CR) {
        // An empty line.
        if (b0 === CR && pos + 1 >= n && !last) break;
        pos = lineBreakEnd(bytes, pos);
        if (bytes[pos - 1] === LF) line++;
        continue;
      }
      let f = batch.fields;
      for (;;) {
        if (f >= batch.start.length) batch.growFields();
        if (bytes[pos] === quote) {
          // Quoted: to the closing quote (a doubled quote is a quote of the content).
          const open = pos;
          let i = pos + 1;
          let escaped = false;
          for (;;) {
            if (i >= n) {
              if (!last) break rows;
              throw this.errorAt(bytes, rowStart, rowLine, open, 'a quoted field is never closed (the file ends inside it)');
            }
            const b = bytes[i]!;
            if (b === quote) {
              if (i + 1 < n && bytes[i + 1] === quote) {
                escaped = true;
                i += 2;
                continue;
              }
              if (i + 1 >= n && !last) break rows;
              break;
            }
            if (b === LF) line++;
            i++;
          }
          batch.start[f] = open + 1;
          batch.end[f] = i;
          batch.kind[f] = escaped ? ESCAPED : QUOTED;
          f++;
          pos = i + 1;
          if (pos < n) {
            const b = bytes[pos]!;
            if (b !== delimiter && b !== LF && b !== CR) {
              throw this.errorAt(
                bytes,
                rowStart,
                rowLine,
                pos,
                'text after the closing quote of a field (a quote inside a field is written twice)',
              );
            }
          }
        } else {
          // One table look-up per byte: the delimiter, the quote and line breaks stop the scan.
          let i = pos;
          while (i < n && special[bytes[i]!] === 0) i++;
          if (i < n && bytes[i] === quote) {
            throw this.errorAt(
              bytes,
              rowStart,
              rowLine,
              i,
              'a quote inside an unquoted field (quote the whole field, and write the quote twice)',
            );
          }
          if (i >= n && !last) break rows;
          batch.start[f] = pos;
          batch.end[f] = i;
          batch.kind[f] = PLAIN;
          f++;
          pos = i;
        }
        // After a field: a delimiter (another field follows), a line break, or the end.
        if (pos < n && bytes[pos] === delimiter) {
          pos++;
          if (pos >= n) {
            if (!last) break rows;
            // A trailing delimiter at the very end: one more, empty field.
            if (f >= batch.start.length) batch.growFields();
            batch.start[f] = pos;
            batch.end[f] = pos;
            batch.kind[f] = PLAIN;
            f++;
            break;
          }
          continue;
        }
        break;
      }
      // The row is complete.
      const rowEnd = pos;
      if (pos < n) {
        if (bytes[pos] === CR && pos + 1 >= n && !last) break;
        pos = lineBreakEnd(bytes, pos);
        if (bytes[pos - 1] === LF) line++;
      }
      if (batch.rows + 1 >= batch.rowLine.length) batch.growRows();
      const r = batch.rows++;
      batch.rowLine[r] = rowLine;
      batch.rowStart[r] = rowStart;
      batch.rowEnd[r] = rowEnd;
      batch.fields = f;
      batch.rowField[r + 1] = f;
      continue;
    }
    // What was not consumed waits for the next chunk; count its lines from where the last row ended.
    const consumed = batch.rows === 0 ? 0 : rowsEnd(batch, bytes);
    this.pending = bytes.subarray(consumed);
    this.line = lineAfter(batch, bytes, consumed, this.line);
    return batch;
  }

  private errorAt(bytes: Buffer, rowStart: number, rowLine: number, at: number, reason: string): CsvSyntaxError {
    let line = rowLine;
    let lineStart = rowStart;
    for (let i = rowStart; i < at; i++) {
      if (bytes[i] === LF) {
        line++;
        lineStart = i + 1;
      }
    }
    return new CsvSyntaxError(line, characters(bytes, lineStart, at) + 1, reason);
  }
}

/** Past the line break (LF, CR LF or a lone CR) at `pos`. */
function lineBreakEnd(bytes: Buffer, pos: number): number {
  if (bytes[pos] === CR) return bytes[pos + 1] === LF ? pos + 2 : pos + 1;
  return pos + 1;
}

/** Where the last complete row's line break ends. */
function rowsEnd(batch: CsvBatch, bytes: Buffer): number {
  const pos = batch.rowEnd[batch.rows - 1]!;
  return pos < bytes.length ? lineBreakEnd(bytes, pos) : pos;
}

/** The line number at byte `consumed`. */
function lineAfter(batch: CsvBatch, bytes: Buffer, consumed: number, first: number): number {
  if (batch.rows === 0) {
    let line = first;
    for (let i = 0; i < consumed; i++) if (bytes[i] === LF) line++;
    return line;
  }
  let line = batch.rowLine[batch.rows - 1]!;
  for (let i = batch.rowStart[batch.rows - 1]!; i < consumed; i++) if (bytes[i] === LF) line++;
  return line;
}
