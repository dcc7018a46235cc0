/**
 * `POST /v2/import` (a Trellis extension; docs/import-export.md, "The import route"): one
 * label's nodes or edges as columns, in msgpack, the way `trellis import --url` sends its
 * batches. JSON rows cost the client more to write and the server more to read than the
 * writer spends storing them (docs/benchmarks.md, "Bulk import"); columns of numbers
 * travel here as typed arrays, copied whole, and the values JSON cannot carry (date-times,
 * bytes, NaN and the infinities, -0.0) travel as they are.
 *
 * The body is the msgpack (the value codec of src/core/value-msgpack.ts: i64 as integers,
 * f64 as floats, typed arrays and DateTime as extensions) of
 *
 *   { "label": "User", "element": "node" | "edge", "count": 3,  (count: needed for nodes without columns)
 *     "from": [ids], "to": [ids],                       (edges only)
 *     "columns": [{ "name": "age", "kind": "int" | "float" | "any", "values": [...] }] }
 *
 * where every row has every column (a client splits rows by the properties they have),
 * `int` and `float` values are numbers (a Float64Array, or an array), `any` values are
 * values of any kind. It becomes the plan a /v2/query bulk load would be, a `for_each` of
 * one `add_n` or `add_e` over a row table (src/core/row-table.ts), so it is checked,
 * indexed, logged and answered as every write is: one transaction, all or nothing.
 */
import { Packr, Unpackr } from 'msgpackr';
import { GraphError, messageOf } from '../core/errors.js';
import { tableArray, cellValue, type Column, type RowTable } from '../core/row-table.js';
import { DateTime, I64_MAX, I64_MIN, isValueObject, setOwn, type Value, type ValueObject } from '../core/value.js';
import { markNegativeZeros, PACKR_OPTIONS, registerValueExtensions } from '../core/value-msgpack.js';
import type { QueryPlan } from '../plan/batch.js';
import { importMessage, type ImportFormat } from '../plan/import-format.js';

export type { ImportAnswer } from '../plan/import-format.js';
import { LIMITS } from '../plan/limits.js';

import { clip } from '../core/clip.js';
import { decodePreparedRequest } from './request.js';
import { describe } from './schema.js';

registerValueExtensions();
const packr = new Packr(PACKR_OPTIONS);
// No structured-clone extensions (cycles, sets, regular expressions): values only.
const unpackr = new Unpackr({ ...PACKR_OPTIONS, structuredClone: false });

export type ImportElement = ImportFormat['element'];

/** One column of an import batch: a property's value in every row. */
export type ImportColumn =
  | { readonly name: string; readonly kind: 'int' | 'float'; readonly values: Float64Array }
  | { readonly name: string; readonly kind: 'any'; readonly values: readonly Value[] };

export interface ImportBatch {
  readonly label: string;
  readonly element: ImportElement;
  /** The rows: needed only for nodes without columns (otherwise the columns' length). */
  readonly count?: number;
  /** Edges: the ids of each row's start and end nodes. */
  readonly from?: Float64Array;
  readonly to?: Float64Array;
  readonly columns: readonly ImportColumn[];
}

/** The body of a /v2/import request. */
export function encodeImportBatch(batch: ImportBatch): Uint8Array {
  return packr.pack(markNegativeZeros(batch));
}

const bad = (msg: string): GraphError => new GraphError('invalid_request', `/v2/import: ${msg}`);

/** Names the plan gives the first row's values and the table of the others. */
const FIRST = 'first';
const ROWS = 'rows';
const FROM = 'f';
const TO = 't';
const propertyParam = (c: number) => `p${c}`;

/** A number column: a Float64Array as it is, or an array of numbers (integers for `int`). */
function numbers(values: unknown, kind: 'int' | 'float', where: string): Float64Array {
  if (values instanceof Float64Array) {
    if (kind === 'int') {
      for (let i = 0; i < values.length; i++)
        if (!Number.isSafeInteger(values[i])) throw bad(`${where}[${i}] is ${values[i]}, not an integer within ±(2^53 - 1)`);
    }
    return values;
  }
  if (!Array.isArray(values)) throw bad(`${where} must be an array (or a Float64Array)`);
  const out = new Float64Array(values.length);
  values.forEach((v: unknown, i) => {
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (typeof n !== 'number' || (kind === 'int' && (!Number.isSafeInteger(n) || (typeof v === 'number' && !Number.isInteger(v)))))
      throw bad(`${where}[${i}] is ${describe(v)}, not ${kind === 'int' ? 'an integer within ±(2^53 - 1)' : 'a number'}`);
    out[i] = n;
  });
  return out;
}

/** A node id column (from, to): non-negative integers. */
function ids(values: unknown, where: string): Float64Array {
  const out = numbers(values, 'int', where);
  for (let i = 0; i < out.length; i++) if (out[i]! < 0) throw bad(`${where}[${i}] is ${out[i]}, not a node id`);
  return out;
}

function column(raw: unknown, c: number): Column & { readonly name: string } {
  const where = `columns[${c}]`;
  if (!isValueObject(raw as Value)) throw bad(`${where} must be a map of name, kind and values`);
  const { name, kind, values } = raw as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') throw bad(`${where}.name must be a non-empty string`);
  if (kind === 'int' || kind === 'float') return { name, kind, values: numbers(values, kind, `${where}.values`) };
  if (kind !== 'any') throw bad(`${where}.kind must be "int", "float" or "any", got ${describe(kind)}`);
  if (!Array.isArray(values)) throw bad(`${where}.values must be an array`);
  return { name, kind, values: values.map((v: unknown, i) => valueOf(v, `${where}.values[${i}]`, 0)) };
}

/** Nesting depth of a value at most (the request JSON's limit, docs/queries.md); cycles end here too. */
const MAX_DEPTH = 64;

/**
 * A decoded msgpack value as a value kind of the store, or a 400 naming it: msgpack's own
 * timestamp (a JS Date) becomes a date-time; integers must be within i64; typed arrays
 * other than the value kinds' (Float32Array, Float64Array, BigInt64Array, bytes) and
 * anything else msgpackr can make are refused.
 */
function valueOf(v: unknown, where: string, depth: number): Value {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'number':
      return v;
    case 'bigint':
      if (v < I64_MIN || v > I64_MAX) throw bad(`${where} is the integer ${clip(String(v))}, outside the i64 range`);
      return v;
  }
  if (v === null || v instanceof DateTime) return v as Value;
  if (depth >= MAX_DEPTH) throw bad(`${where} is nested more than ${MAX_DEPTH} deep`);
  if (v instanceof Date) {
    const ms = v.getTime();
    if (!Number.isFinite(ms)) throw bad(`${where} is an invalid timestamp`);
    return new DateTime(ms);
  }
  if (v instanceof Float32Array || v instanceof Float64Array || v instanceof BigInt64Array) return v;
  if (v instanceof Uint8Array && (v.constructor === Uint8Array || Buffer.isBuffer(v))) return v;
  if (Array.isArray(v)) return v.map((x: unknown, i) => valueOf(x, `${where}[${i}]`, depth + 1));
  if (typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
    const out: ValueObject = {};
    for (const key of Object.keys(v)) setOwn(out, key, valueOf((v as Record<string, unknown>)[key], `${where}.${clip(key)}`, depth + 1));
    return out;
  }
  const kind = typeof v === 'object' ? ((v as object).constructor?.name ?? 'object') : typeof v;
  throw bad(
    `${where} is a ${clip(String(kind))}, which is not a value kind (null, booleans, numbers, i64, text, date-times, bytes, vectors, arrays and maps)`,
  );
}

/** The rows [1, length) of a column: the table the for_each reads (row 0 is the named entry). */
function rest(col: Column): Column {
  return col.kind === 'any' ? { kind: 'any', values: col.values.slice(1) } : { kind: col.kind, values: col.values.subarray(1) };
}

/** A /v2/import body to the write plan it stands for (validated by the caller, as any plan). */
export function decodeImportRequest(body: Uint8Array): QueryPlan {
  let raw: unknown;
  try {
    raw = unpackr.unpack(body);
  } catch (err) {
    throw bad(`the body is not msgpack: ${messageOf(err)}`);
  }
  if (!isValueObject(raw as Value)) throw bad('the body must be a msgpack map of label, element and columns');
  const fields = raw as Record<string, unknown>;
  const { label, element } = fields;
  if (typeof label !== 'string' || label === '') throw bad('label must be a non-empty string');
  if (element !== 'node' && element !== 'edge') throw bad(`element must be "node" or "edge", got ${describe(element)}`);
  if (!Array.isArray(fields.columns)) throw bad('columns must be an array (empty for elements without properties)');
  const columns = fields.columns.map(column);
  const names = new Set<string>();
  for (const c of columns) {
    if (names.has(c.name)) throw bad(`the column ${clip(c.name)} is given twice`);
    names.add(c.name);
  }
  const ends = element === 'edge' ? { from: ids(fields.from, 'from'), to: ids(fields.to, 'to') } : null;
  if (element === 'node' && (fields.from !== undefined || fields.to !== undefined)) throw bad('from and to are for edges');
  const given = fields.count;
  if (given !== undefined && !(typeof given === 'number' && Number.isSafeInteger(given) && given >= 0))
    throw bad(`count must be a non-negative integer, got ${describe(given)}`);
  const count = given ?? ends?.from.length ?? columns[0]?.values.length;
  if (count === undefined) throw bad('a node batch without columns needs count (how many nodes to make)');
  if (count === 0) throw bad('the batch has no rows');
  // The for_each runs count - 1 rows (the first is the named entry), within its limit.
  if (count - 1 > LIMITS.maxLoopIterations)
    throw new GraphError('limit_exceeded', `/v2/import: a batch holds at most ${LIMITS.maxLoopIterations + 1} rows, this one ${count}`);
  const lengths: [string, number][] = columns.map((c, k) => [`columns[${k}].values`, c.values.length]);
  if (ends !== null) lengths.push(['from', ends.from.length], ['to', ends.to.length]);
  for (const [what, n] of lengths) if (n !== count) throw bad(`${what} has ${n} rows where the batch has ${count}`);

  const properties = columns.map((c, k) => [c.name, { expr: { param: propertyParam(k) } }]);
  const root =
    ends === null
      ? { add_n: { label, properties } }
      : { add_e: { input: { nodes: { reference: { param: FROM }, missing: 'error' } }, label, to: { param: TO }, properties } };
  const entries: object[] = [{ query: { name: FIRST, root } }];
  if (count > 1) entries.push({ for_each: { param: ROWS, body: [{ query: { root } }] } });
  const { plan } = inBodyTerms(() => decodePreparedRequest({ request_type: 'write', query: { write: { entries, returns: [FIRST] } } }));

  // Row 0 as the named entry's parameters, the others as one row table.
  const tableColumns: Column[] = columns.map((c) => c);
  const keys = columns.map((_, k) => propertyParam(k));
  if (ends !== null) {
    tableColumns.push({ kind: 'int', values: ends.from }, { kind: 'int', values: ends.to });
    keys.push(FROM, TO);
  }
  const table: RowTable = { length: count, keys, columns: tableColumns };
  const params = new Map<string, Value>(keys.map((key, k) => [key, cellValue(table, k, 0)]));
  if (count > 1) params.set(ROWS, tableArray({ length: count - 1, keys, columns: tableColumns.map(rest) }));
  return { ...plan, batch: { ...plan.batch, format: { kind: 'import', element, label, count } }, params };
}

/**
 * Runs `check` on the plan made of a body; a GraphError it throws names the body's fields
 * (`columns[1].name`, `label`) instead of the plan's paths, which the request never showed.
 */
export function inBodyTerms<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof GraphError) throw new GraphError(err.code, importMessage(err.msg, null));
    throw err;
  }
}
