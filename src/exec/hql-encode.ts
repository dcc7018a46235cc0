/**
 * The response of a named query of the query language (DECISIONS D16, D17), written from
 * the results of its batch, beside the /v2/query encoder (encode.ts) and Cypher's
 * (table/encode.ts). Each returned value is shown as the query's RETURN says
 * (plan/hql-format.ts): one element or null, a list, a count, property values, groups, a
 * path, or objects and arrays of these. Elements are read from the store here, so a
 * returned node costs one record read and no intermediate object; values print as
 * /v2/query prints them (`3.0` stays a float).
 */
import { GraphError } from '../core/errors.js';
import { isValueObject, setOwn, type Value, type ValueObject } from '../core/value.js';
import type { HqlElement, HqlFormat, HqlGroup, HqlNested, HqlPath, HqlShow, HqlValue } from '../plan/hql-format.js';
import { LIMITS } from '../plan/limits.js';
import type { EdgeRecord } from '../store/index.js';
import type { Exec } from './context.js';
import { encodeValue } from './encode.js';
import type { Flow } from './flow.js';
import { EDGE, NODE, Row } from './row.js';

/**
 * The named query's response body. `x` is the execution (null when the batch had nothing
 * to run: a query that only returns literals); `lookup` gives each entry's result.
 */
export function encodeHqlResponse(x: Exec | null, format: HqlFormat, lookup: (name: string) => Flow | undefined): string {
  if (format.returns === null) return 'null';
  const out = objectText(x, format.returns, lookup);
  if (out.length > LIMITS.maxResponseChars) throw tooLarge();
  return out;
}

function objectText(
  x: Exec | null,
  fields: readonly { key: string; value: HqlValue }[],
  lookup: (name: string) => Flow | undefined,
): string {
  let out = '{';
  fields.forEach((f, i) => {
    out += `${i ? ',' : ''}${JSON.stringify(f.key)}:${valueText(x, f.value, lookup)}`;
    if (out.length > LIMITS.maxResponseChars) throw tooLarge();
  });
  return out + '}';
}

function valueText(x: Exec | null, v: HqlValue, lookup: (name: string) => Flow | undefined): string {
  switch (v.kind) {
    case 'literal':
      return encodeValue(v.value);
    case 'object':
      return objectText(x, v.fields, lookup);
    case 'array':
      return `[${v.items.map((item) => valueText(x, item, lookup)).join(',')}]`;
    case 'entry':
      return shown(x, v, v.source, lookup(v.source));
  }
}

function shown(x: Exec | null, r: HqlShow, source: string, flow: Flow | undefined): string {
  if (r.path !== null) return r.unwrap === 'list' ? pathsText(x!, r.path, flow) : pathText(x!, r.path, flow, source);
  if (flow === undefined) return r.unwrap === 'count' ? '0' : r.unwrap === 'one' ? 'null' : '[]';
  if (flow.t === 'count') return String(flow.n);
  if (flow.t === 'bool') return String(flow.v);
  let parts: string[];
  if (r.element !== null) {
    parts = [];
    if (flow.t === 'rows')
      for (const row of flow.rows) {
        const text = elementText(x!, row, r.element);
        if (text !== null) parts.push(text);
      }
  } else {
    const items = flow.t === 'values' ? flow.items : flow.t === 'rows' ? [...flow.rows].map((row) => BigInt(row.id)) : [];
    if (r.group !== null) return encodeValue(groups(r.group, items));
    const { pluck, nested } = r;
    parts = items.map((v) => encodeValue(pluck !== null ? pluckValue(v, pluck) : nested !== null ? withNested(x, v, nested) : v));
  }
  if (r.unwrap === 'list') return `[${parts.join(',')}]`;
  return parts[0] ?? (r.unwrap === 'count' ? '0' : 'null');
}

/**
 * A node, edge or vector as the language shows it: id, label (edges: from_node, to_node;
 * vectors: score, when the row has one), then every declared field, null when unset; null
 * for an element deleted since it was found.
 */
function elementText(x: Exec, row: Row, element: HqlElement): string | null {
  const rec = row.kind === NODE || row.kind === EDGE ? x.record(row) : undefined;
  if (rec === undefined) return null;
  let out = `{"id":${row.id},"label":${JSON.stringify(rec.label)}`;
  if (row.kind === EDGE) {
    const edge = rec as EdgeRecord;
    out += `,"from_node":${edge.from},"to_node":${edge.to}`;
  }
  if (element.kind === 'vector') {
    const score = scoreOf(row);
    if (score !== undefined) out += `,"score":${encodeValue(score)}`;
  }
  const keys = keysOf(element.fields);
  for (let i = 0; i < element.fields.length; i++) {
    const v = rec.props[element.fields[i]!];
    out += `${keys[i]}${v === undefined ? 'null' : encodeValue(v as Value)}`;
  }
  return `${out}}`;
}

/**
 * A vector's score as HelixDB shows it: a reranker's or fusion's score, else the search
 * distance on HelixDB's cosine scale (1 − cosine, 0 to 2: twice Trellis's $distance).
 */
export function scoreOf(row: Row): number | undefined {
  if (row.score !== undefined) return row.score;
  return row.distance === undefined ? undefined : row.distance * 2;
}

/** The one path of a path step (`{nodes, edges, length, weight?}` of ids) with its nodes and edges whole; none is 404. */
function pathText(x: Exec, show: HqlPath, flow: Flow | undefined, source: string): string {
  const path = flow !== undefined && flow.t === 'values' ? flow.items[0] : undefined;
  if (!isValueObject(path)) throw new GraphError('path_not_found', `no path was found for "${source.replace(/^\$r/, '')}"`);
  return encodeValue(shownPath(x, show, path));
}

/** The paths of a path step from several nodes, one per node that has one; none is `[]`. */
function pathsText(x: Exec, show: HqlPath, flow: Flow | undefined): string {
  const items = flow !== undefined && flow.t === 'values' ? flow.items : [];
  return `[${items.map((path) => encodeValue(isValueObject(path) ? shownPath(x, show, path) : null)).join(',')}]`;
}

/** A path of ids as the language shows it: its nodes and edges whole, each by the type of its label. */
function shownPath(x: Exec, show: HqlPath, path: ValueObject): ValueObject {
  const element = (kind: typeof NODE | typeof EDGE, id: Value): Value => {
    const row = new Row(kind, Number(id));
    const rec = x.record(row);
    const type = rec === undefined ? undefined : show.types[rec.label];
    return (type === undefined ? null : elementValue(x, row, type)) ?? { id };
  };
  const out: ValueObject = {
    nodes: (path.nodes as Value[]).map((id) => element(NODE, id)),
    edges: (path.edges as Value[]).map((id) => element(EDGE, id)),
    length: path.length!,
  };
  if (path.weight !== undefined) out.weight = path.weight;
  return out;
}

/** elementText's element as a value, for the elements of a path (shown inside other values). */
function elementValue(x: Exec, row: Row, element: HqlElement): ValueObject | null {
  const rec = row.kind === NODE || row.kind === EDGE ? x.record(row) : undefined;
  if (rec === undefined) return null;
  const out: ValueObject = { id: BigInt(row.id), label: rec.label };
  if (row.kind === EDGE) {
    const edge = rec as EdgeRecord;
    out.from_node = BigInt(edge.from);
    out.to_node = BigInt(edge.to);
  }
  for (const f of element.fields) setOwn(out, f, (rec.props[f] as Value | undefined) ?? null);
  return out;
}

/** `,"field":` for each field of an element type, printed once per type (the lists live as long as the project). */
const KEYS = new WeakMap<readonly string[], readonly string[]>();

function keysOf(fields: readonly string[]): readonly string[] {
  let keys = KEYS.get(fields);
  if (keys === undefined) KEYS.set(fields, (keys = fields.map((f) => `,${JSON.stringify(f)}:`)));
  return keys;
}

function pluckValue(v: Value, key: string): Value {
  return isValueObject(v) ? (v[key] ?? null) : null;
}

/**
 * An object with the one-key objects of each `nested` path shown as their bare values, the
 * rows of each nested grouping as their groups, and each nested shortest path with its
 * elements whole. A path names fields from the object down (`bylines.by`); arrays on the
 * way apply it to each of their items.
 */
function withNested(x: Exec | null, v: Value, nested: Readonly<Record<string, HqlNested>>): Value {
  let out = v;
  for (const path in nested) out = plucked(x, out, path.split('.'), nested[path]!);
  return out;
}

function plucked(x: Exec | null, v: Value, path: readonly string[], key: HqlNested): Value {
  if (path.length === 0 && typeof key !== 'string' && !('types' in key)) return groups(key, Array.isArray(v) ? v : []);
  if (Array.isArray(v)) return v.map((item) => plucked(x, item, path, key));
  if (path.length === 0) {
    if (typeof key === 'string') return pluckValue(v, key);
    return isValueObject(v) ? shownPath(x!, key as HqlPath, v) : null;
  }
  if (!isValueObject(v) || !Object.hasOwn(v, path[0]!)) return v;
  const out: ValueObject = {};
  for (const k in v) out[k] = k === path[0] ? plucked(x, v[k] as Value, path.slice(1), key) : (v[k] as Value);
  return out;
}

/**
 * D17: GROUP_BY gives `[{p1: v1, ..., count}]`, AGGREGATE_BY `[{count, data: [elements]}]`,
 * one per distinct combination, in the order each combination first appears.
 */
function groups({ properties, aggregate }: HqlGroup, rows: readonly Value[]): Value[] {
  const byKey = new Map<string, { values: Value[]; rows: Value[] }>();
  for (const row of rows) {
    const values = properties.map((p) => (isValueObject(row) ? (row[p] ?? null) : null));
    const key = encodeValue(values);
    let group = byKey.get(key);
    if (group === undefined) byKey.set(key, (group = { values, rows: [] }));
    group.rows.push(row);
  }
  const out: Value[] = [];
  for (const g of byKey.values()) {
    const count = BigInt(g.rows.length);
    if (aggregate) out.push({ count, data: g.rows });
    else {
      const group: ValueObject = {};
      properties.forEach((p, i) => setOwn(group, p, g.values[i]!));
      setOwn(group, 'count', count);
      out.push(group);
    }
  }
  return out;
}

function tooLarge(): GraphError {
  return new GraphError(
    'limit_exceeded',
    `the response would exceed ${LIMITS.maxResponseChars} characters; return fewer rows or properties`,
  );
}
