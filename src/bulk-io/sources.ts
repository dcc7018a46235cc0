/**
 * The input files of one `--nodes` or `--edges` group, read batch by batch: CSV (plain or
 * gzip-compressed), JSON Lines (also gzip) and Parquet. Each batch comes out converted
 * (convert.ts), with the bytes read so far for the progress report.
 */
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import type { SchemaTree } from 'hyparquet';
import { parseJson } from '../core/json.js';
import { messageOf } from '../core/errors.js';
import { CsvParser, CsvSyntaxError, type CsvBatch } from './csv.js';
import { convertCsv, convertObjects, ImportError, ObjectFields, type ConvertContext, type ParsedBatch, type RowPlaces } from './convert.js';
import { HeaderError, parseField, parseHeader, type Field, type IdType, type ValueType } from './header.js';

export type Format = 'csv' | 'jsonl' | 'parquet';

/** One `--nodes` / `--edges` group: files read as one, with one header. */
export interface FileGroup {
  readonly element: 'node' | 'edge';
  /** The label (nodes) or type (edges) of every row, unless a :LABEL / :TYPE column gives one. */
  readonly label: string | undefined;
  readonly files: readonly string[];
  readonly format: Format;
  /**
   * CSV: header fields given outside the files (a mapping file). Then every file's first
   * line is skipped when `headerLine` is set; otherwise the first line of the first file
   * is the header (neo4j-admin's rule: the other files hold rows only).
   */
  readonly header: readonly string[] | undefined;
  readonly headerLine: boolean;
  /** JSON Lines and Parquet: field specs by member name (a mapping file's `columns`). */
  readonly columns: ReadonlyMap<string, string>;
}

export interface ReadOptions {
  readonly delimiter: string;
  readonly quote: string;
  readonly arrayDelimiter: string;
  readonly idType: IdType;
  readonly reject: ConvertContext['reject'];
  /** Bytes of input read since the last call (for progress). */
  readonly onBytes: (bytes: number) => void;
  /** CSV bytes read at a time, and the largest batch (default CSV_CHUNK). */
  readonly chunkBytes?: number;
}

/** CSV bytes read per batch. */
const CSV_CHUNK = 4 * 1024 * 1024;
/**
 * A group's first CSV batch, in bytes; each next one is twice the last, up to the chunk.
 * Read in a thread (threaded-csv.ts), the load waits for the first batch, parsed while
 * the thread's code is still cold: a small one lets it start early.
 */
const FIRST_CSV_BATCH = 64 * 1024;
/** JSON Lines and Parquet rows per batch. */
const OBJECT_ROWS = 65_536;

export function formatOf(file: string): Format {
  const name = file.toLowerCase().replace(/\.gz$/, '');
  if (name.endsWith('.parquet') || name.endsWith('.pq')) return 'parquet';
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson') || name.endsWith('.json')) return 'jsonl';
  return 'csv';
}

/** The input size of the group's files, bytes (for progress). */
export function groupBytes(group: FileGroup): number {
  let total = 0;
  for (const file of group.files) total += statSync(file).size;
  return total;
}

/** Whether a file starts with gzip's magic bytes. */
function isGzip(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** The file's bytes, decompressed when gzip, in chunks; reports raw bytes read. */
async function* chunks(file: string, onBytes: (n: number) => void, size: number): AsyncGenerator<Buffer> {
  const raw = createReadStream(file, { highWaterMark: size });
  let read = 0;
  raw.on('data', (d: string | Buffer) => {
    read += d.length;
  });
  const stream = isGzip(file) ? raw.pipe(createGunzip()) : raw;
  raw.on('error', (err) => stream.destroy(err));
  let reported = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      onBytes(read - reported);
      reported = read;
      yield chunk;
    }
  } catch (err) {
    throw new ImportError(file, 0, 0, `cannot read the file: ${messageOf(err)}`);
  }
  onBytes(read - reported);
}

function oneByte(text: string, what: string): number {
  if (Buffer.byteLength(text) !== 1) throw new HeaderError(`the ${what} must be one ASCII character, got ${JSON.stringify(text)}`);
  return text.charCodeAt(0);
}

/** Splits a header line into its field texts (with the file's delimiter and quote). */
function headerFields(batch: CsvBatch, r: number, quote: number): string[] {
  const out: string[] = [];
  for (let f = batch.rowField[r]!; f < batch.rowField[r + 1]!; f++) out.push(batch.text(f, quote));
  return out;
}

/** A batch with its first `skip` rows left out. */
function skipRows(batch: CsvBatch, skip: number): CsvBatch {
  if (skip === 0) return batch;
  const view = Object.create(batch) as CsvBatch;
  view.rows = batch.rows - skip;
  view.rowField = batch.rowField.subarray(skip);
  view.rowLine = batch.rowLine.subarray(skip);
  view.rowStart = batch.rowStart.subarray(skip);
  view.rowEnd = batch.rowEnd.subarray(skip);
  return view;
}

/** The group's rows, batch by batch, converted. */
export async function* readGroup(group: FileGroup, options: ReadOptions): AsyncGenerator<ParsedBatch> {
  if (group.format === 'csv') yield* readCsv(group, options);
  else if (group.format === 'jsonl') yield* readJsonLines(group, options);
  else yield* readParquet(group, options);
}

/** A CSV group's rows (also read in a thread of their own: threaded-csv.ts). */
export async function* readCsv(group: FileGroup, options: ReadOptions): AsyncGenerator<ParsedBatch> {
  const delimiter = oneByte(options.delimiter, 'delimiter');
  const quote = oneByte(options.quote, 'quote character');
  const ctx: ConvertContext = { arrayDelimiter: options.arrayDelimiter, quote, reject: options.reject };
  let fields: Field[] | null = null;
  if (group.header !== undefined) fields = parseHeader(group.header, group.element, options.idType);
  const chunkBytes = options.chunkBytes ?? CSV_CHUNK;
  let batchBytes = Math.min(FIRST_CSV_BATCH, chunkBytes);
  for (const [index, file] of group.files.entries()) {
    const parser = new CsvParser({ delimiter, quote });
    // neo4j-admin: the first line of the first file is the header; with a header given
    // outside the files, each file's first line is skipped when it holds one.
    let skipFirst = group.header === undefined ? index === 0 : group.headerLine;
    const convert = (batch: CsvBatch): ParsedBatch | null => {
      let skip = 0;
      if (skipFirst && batch.rows > 0) {
        skipFirst = false;
        skip = 1;
        if (fields === null) {
          try {
            fields = parseHeader(headerFields(batch, 0, quote), group.element, options.idType);
          } catch (err) {
            if (err instanceof HeaderError) throw new ImportError(file, batch.rowLine[0]!, 1, err.message);
            throw err;
          }
        }
      }
      if (fields === null) return null; // no row yet: the header comes with the first
      const rows = skipRows(batch, skip);
      return rows.rows === 0 ? null : convertCsv(rows, fields, file, ctx);
    };
    try {
      for await (const chunk of chunks(file, options.onBytes, chunkBytes)) {
        for (let at = 0; at < chunk.length; at += batchBytes, batchBytes = Math.min(2 * batchBytes, chunkBytes)) {
          const converted = convert(parser.feed(chunk.subarray(at, at + batchBytes)));
          if (converted !== null) yield converted;
        }
      }
      const converted = convert(parser.finish());
      if (converted !== null) yield converted;
    } catch (err) {
      if (err instanceof CsvSyntaxError) throw new ImportError(file, err.line, err.column, err.reason);
      throw err;
    }
    if (fields === null) throw new ImportError(file, 1, 1, 'the file is empty: the first file of a group starts with its header line');
  }
}

/**
 * Member field specs of a group (the mapping's `columns`), parsed. A spec that starts with
 * a colon gets the member's name in front (`":long"` keeps the name, `":ID(User)"` keeps
 * the key as a property of the member's name); `"score2:double"` renames.
 */
function declaredFields(group: FileGroup, idType: IdType): Map<string, Field> {
  const out = new Map<string, Field>();
  for (const [name, spec] of group.columns) out.set(name, parseField(spec.startsWith(':') ? name + spec : spec, group.element, idType));
  return out;
}

async function* readJsonLines(group: FileGroup, options: ReadOptions): AsyncGenerator<ParsedBatch> {
  const fields = new ObjectFields(declaredFields(group, options.idType), group.element, options.idType);
  const ctx: ConvertContext = { arrayDelimiter: options.arrayDelimiter, quote: 34, reject: options.reject };
  for (const file of group.files) {
    let records: Record<string, unknown>[] = [];
    let lines: number[] = [];
    let texts: string[] = [];
    let line = 0;
    let tail = '';
    const flush = (): ParsedBatch => {
      const lineOf = lines;
      const textOf = texts;
      const places: RowPlaces = { file, position: (r) => ({ line: lineOf[r]!, column: 1 }), raw: (r) => textOf[r]! };
      const batch = convertObjects(records, fields, places, ctx);
      records = [];
      lines = [];
      texts = [];
      return batch;
    };
    const take = (text: string): void => {
      line++;
      if (text.trim() === '') return;
      let value: unknown;
      let reason: string | null = null;
      try {
        value = parseJson(text);
        if (typeof value !== 'object' || value === null || Array.isArray(value)) reason = 'each line must hold one JSON object';
      } catch (err) {
        reason = `not a JSON object: ${messageOf(err)}`;
      }
      if (reason !== null) {
        if (options.reject === undefined) throw new ImportError(file, line, 1, reason);
        options.reject({ file, line, column: 1, reason, row: text });
        return;
      }
      records.push(value as Record<string, unknown>);
      lines.push(line);
      texts.push(text);
    };
    // A chunk may end inside a character: the decoder keeps its first bytes for the next.
    const decoder = new StringDecoder('utf8');
    for await (const chunk of chunks(file, options.onBytes, CSV_CHUNK)) {
      const text = tail + decoder.write(chunk);
      const parts = text.split('\n');
      tail = parts.pop()!;
      for (const part of parts) take(part.endsWith('\r') ? part.slice(0, -1) : part);
      if (records.length >= OBJECT_ROWS) yield flush();
    }
    tail += decoder.end();
    if (tail !== '') take(tail);
    if (records.length > 0) yield flush();
  }
}

/** A Parquet column's type as a field type, when its name says nothing else. */
function parquetType(node: SchemaTree): ValueType | null {
  const e = node.element;
  const list = node.children.length === 1 && node.children[0]!.children.length === 1 ? node.children[0]!.children[0]! : null;
  if (e.converted_type === 'LIST' || e.logical_type?.type === 'LIST') {
    const item = list === null ? null : parquetType(list);
    return item === null || item.array ? null : { scalar: item.scalar, array: true };
  }
  const logical = e.logical_type?.type;
  if (logical === 'STRING' || e.converted_type === 'UTF8') return { scalar: 'string', array: false };
  if (logical === 'DATE' || e.converted_type === 'DATE') return { scalar: 'date', array: false };
  if (logical === 'TIMESTAMP' || e.converted_type === 'TIMESTAMP_MILLIS' || e.converted_type === 'TIMESTAMP_MICROS') {
    return { scalar: 'datetime', array: false };
  }
  switch (e.type) {
    case 'INT32':
    case 'INT64':
      return { scalar: 'long', array: false };
    case 'FLOAT':
      return { scalar: 'float', array: false };
    case 'DOUBLE':
      return { scalar: 'double', array: false };
    case 'BOOLEAN':
      return { scalar: 'boolean', array: false };
    case 'BYTE_ARRAY':
      return { scalar: 'string', array: false };
    default:
      return null;
  }
}

async function* readParquet(group: FileGroup, options: ReadOptions): AsyncGenerator<ParsedBatch> {
  // Loaded when needed: most imports read no Parquet.
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } = await import('hyparquet');
  const ctx: ConvertContext = { arrayDelimiter: options.arrayDelimiter, quote: 34, reject: options.reject };
  for (const file of group.files) {
    let metadata;
    let buffer;
    try {
      buffer = await asyncBufferFromFile(file);
      metadata = await parquetMetadataAsync(buffer);
    } catch (err) {
      throw new ImportError(file, 0, 0, `cannot read it as Parquet: ${messageOf(err)}`);
    }
    const declared = declaredFields(group, options.idType);
    for (const column of parquetSchema(metadata).children) {
      const name = column.element.name;
      if (declared.has(name) || name.includes(':')) continue;
      const type = parquetType(column);
      if (type !== null) declared.set(name, { role: 'property', name, type });
    }
    const fields = new ObjectFields(declared, group.element, options.idType);
    const rows = Number(metadata.num_rows);
    const size = statSync(file).size;
    for (let start = 0; start < rows; start += OBJECT_ROWS) {
      const end = Math.min(rows, start + OBJECT_ROWS);
      let records: Record<string, unknown>[];
      try {
        records = await parquetReadObjects({ file: buffer, metadata, rowStart: start, rowEnd: end, utf8: true });
      } catch (err) {
        throw new ImportError(file, start + 1, 0, `cannot read it as Parquet: ${messageOf(err)}`);
      }
      const first = start;
      const places: RowPlaces = {
        file,
        position: (r, c) => ({ line: first + r + 1, column: c + 1 }),
        raw: (r) => JSON.stringify(records[r], (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      };
      yield convertObjects(records, fields, places, ctx);
      options.onBytes(Math.round((size * (end - start)) / Math.max(1, rows)));
    }
  }
}
