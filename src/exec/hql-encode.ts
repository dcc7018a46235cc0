/**
 * The response of a named query of the query language (DECISIONS D16, D17), written from
 * the results of its batch, beside the /v2/query encoder (encode.ts) and Cypher's
 * (table/encode.ts). Each returned value is shown as the query's RETURN says
 * (plan/hql-format.ts): one element or null, a list, a count, property values, groups.
 * Elements are read from the store here, so a returned node costs one record read and no
 * intermediate object; values print as /v2/query prints them (`3.0` stays a float).
 */
import { GraphError } from '../core/errors.js';
import { isValueObject, type Value, type ValueObject } from '../core/value.js';
import type { HqlElement, HqlFormat, HqlReturn } from '../plan/hql-format.js';
import { LIMITS } from '../plan/limits.js';
import type { Exec } from './context.js';
import type { EdgeRecord } from '../store/index.js';
import { encodeValue } from './encode.js';
import type { Flow } from './flow.js';
import { EDGE, NODE, type Row } from './row.js';

/**
 * The named query's response body. `x` is the execution (null when the batch had nothing
 * to run: a query that only returns literals); `lookup` gives each entry's result.
 */
export function encodeHqlResponse(x: Exec | null, format: HqlFormat, lookup: (name: string) => Flow | undefined): string {
  if (format.returns === null) return 'null';
  let out = '{';
  format.returns.forEach((r, i) => {
    out += `${i ? ',' : ''}${JSON.stringify(r.key)}:${shown(x, r, lookup)}`;
    if (out.length > LIMITS.maxResponseChars) throw tooLarge();
  });
  return out + '}';
}

function shown(x: Exec | null, r: HqlReturn, lookup: (name: string) => Flow | undefined): string {
  if (r.source === null) return encodeValue(r.literal);
  const flow = lookup(r.source);
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
    if (r.group !== null) return groups(r.group.properties, r.group.aggregate, items);
    const { pluck, nested } = r;
    parts = items.map((v) => encodeValue(pluck !== null ? pluckValue(v, pluck) : nested !== null ? withNested(v, nested) : v));
  }
  if (r.unwrap === 'list') return `[${parts.join(',')}]`;
  return parts[0] ?? (r.unwrap === 'count' ? '0' : 'null');
}

/**
 * A node or edge as the language shows it: id, label (edges: from_node, to_node), then
 * every declared field, null when unset; null for an element deleted since it was found.
 */
function elementText(x: Exec, row: Row, element: HqlElement): string | null {
  const rec = row.kind === NODE || row.kind === EDGE ? x.record(row) : undefined;
  if (rec === undefined) return null;
  let out = `{"id":${row.id},"label":${JSON.stringify(rec.label)}`;
  if (row.kind === EDGE) {
    const edge = rec as EdgeRecord;
    out += `,"from_node":${edge.from},"to_node":${edge.to}`;
  }
  const keys = keysOf(element.fields);
  for (let i = 0; i < element.fields.length; i++) {
    const v = rec.props[element.fields[i]!];
    out += `${keys[i]}${v === undefined ? 'null' : encodeValue(v as Value)}`;
  }
  return `${out}}`;
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

/** An object with each `nested` field's one-key objects shown as their bare values. */
function withNested(v: Value, nested: Readonly<Record<string, string>>): Value {
  if (!isValueObject(v)) return v;
  const out: ValueObject = {};
  for (const key in v) {
    const inner = nested[key];
    const value = v[key] as Value;
    if (inner === undefined) out[key] = value;
    else if (Array.isArray(value)) out[key] = value.map((item) => pluckValue(item, inner));
    else out[key] = isValueObject(value) ? pluckValue(value, inner) : value;
  }
  return out;
}

/**
 * D17: GROUP_BY gives `[{p1: v1, ..., count}]`, AGGREGATE_BY `[{count, data: [elements]}]`,
 * one per distinct combination, in the order each combination first appears.
 */
function groups(properties: readonly string[], aggregate: boolean, rows: readonly Value[]): string {
  const byKey = new Map<string, { values: Value[]; rows: Value[] }>();
  for (const row of rows) {
    const values = properties.map((p) => (isValueObject(row) ? (row[p] ?? null) : null));
    const key = encodeValue(values);
    let group = byKey.get(key);
    if (group === undefined) byKey.set(key, (group = { values, rows: [] }));
    group.rows.push(row);
  }
  const out: string[] = [];
  for (const g of byKey.values()) {
    if (aggregate) out.push(`{"count":${g.rows.length},"data":${encodeValue(g.rows)}}`);
    else out.push(`{${properties.map((p, i) => `${JSON.stringify(p)}:${encodeValue(g.values[i]!)}`).join(',')},"count":${g.rows.length}}`);
  }
  return `[${out.join(',')}]`;
}

function tooLarge(): GraphError {
  return new GraphError(
    'limit_exceeded',
    `the response would exceed ${LIMITS.maxResponseChars} characters; return fewer rows or properties`,
  );
}
