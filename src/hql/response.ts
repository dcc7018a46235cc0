/**
 * The response of a named query (DECISIONS D16, D17), made from the /v2/query response of
 * its lowered batch. That response holds every returned value as an array (D8); here each
 * is shown as the query's RETURN says: one element or null, a list, a count, property
 * values, or groups. Values are cut out of the response text, not parsed and printed
 * again, so numbers keep the exact form the executor wrote (`3.0` stays a float).
 */
import { GraphError } from '../core/errors.js';
import { parseJson } from '../core/json.js';
import { floatText, stringifyJson } from '../core/json-stringify.js';
import type { ReturnShape } from './types.js';

/** The named query's response body, from the /v2/query response body `text`. */
export function shapeResponse(returns: readonly ReturnShape[] | null, text: string): string {
  if (returns === null) return 'null';
  const values = members(text, 0);
  const parts = returns.map((r) => `${JSON.stringify(r.key)}:${shapeOne(r, values, text)}`);
  return `{${parts.join(',')}}`;
}

function shapeOne(r: ReturnShape, values: ReadonlyMap<string, readonly [number, number]>, text: string): string {
  if (r.source === null) return literalText(r.literal);
  const span = values.get(r.source);
  if (span === undefined) throw new GraphError('internal_error', `the response has no value for "${r.source}"`);
  const items = elements(text, span[0]);
  if (r.group !== null)
    return groups(
      r.group.properties,
      r.group.aggregate,
      items.map(([s, e]) => text.slice(s, e)),
    );
  const { nested, element } = r;
  const shown =
    r.pluck !== null
      ? items.map(([s]) => pluck(text, s, r.pluck!))
      : element !== null
        ? items.map(([s]) => elementObject(text, s, element.kind, element.fields))
        : nested !== null
          ? items.map(([s, e]) => withNested(text, s, e, nested))
          : items.map(([s, e]) => text.slice(s, e));
  if (r.unwrap === 'list') return `[${shown.join(',')}]`;
  return shown[0] ?? (r.unwrap === 'count' ? '0' : 'null');
}

function literalText(v: ReturnShape['literal']): string {
  if (typeof v === 'number') return floatText(v);
  return stringifyJson(v);
}

/** The value of key `key` in the object starting at `start`, or null when it has none. */
function pluck(text: string, start: number, key: string): string {
  const span = members(text, start).get(key);
  return span === undefined ? 'null' : text.slice(span[0], span[1]);
}

/** A value_map / edge_properties object as the language shows an element: id, label, ends, then every declared field. */
function elementObject(text: string, start: number, kind: 'node' | 'edge', fields: readonly string[]): string {
  const map = members(text, start);
  const get = (key: string) => {
    const span = map.get(key);
    return span === undefined ? 'null' : text.slice(span[0], span[1]);
  };
  let out = `{"id":${get('$id')},"label":${get('$label')}`;
  if (kind === 'edge') out += `,"from_node":${get('$from')},"to_node":${get('$to')}`;
  const keys = keysOf(fields);
  for (let i = 0; i < fields.length; i++) out += `${keys[i]}${get(fields[i]!)}`;
  return `${out}}`;
}

/** `,"field":` for each field of an element type, printed once per type (the lists live as long as the project). */
const KEYS = new WeakMap<readonly string[], readonly string[]>();

function keysOf(fields: readonly string[]): readonly string[] {
  let keys = KEYS.get(fields);
  if (keys === undefined) KEYS.set(fields, (keys = fields.map((f) => `,${JSON.stringify(f)}:`)));
  return keys;
}

/** The object at [start, end) with each `nested` field's one-key objects shown as their bare values. */
function withNested(text: string, start: number, end: number, nested: Readonly<Record<string, string>>): string {
  if (text[start] !== '{') return text.slice(start, end);
  const parts: string[] = [];
  for (const [key, [s, e]] of members(text, start)) {
    const inner = nested[key];
    let value = text.slice(s, e);
    if (inner !== undefined) {
      if (text[s] === '[')
        value = `[${elements(text, s)
          .map(([a]) => pluck(text, a, inner))
          .join(',')}]`;
      else if (text[s] === '{') value = pluck(text, s, inner);
    }
    parts.push(`${JSON.stringify(key)}:${value}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * D17: GROUP_BY gives `[{p1: v1, ..., count}]`, AGGREGATE_BY `[{count, data: [elements]}]`,
 * one per distinct combination, in the order each combination first appears.
 */
function groups(properties: readonly string[], aggregate: boolean, rows: readonly string[]): string {
  const byKey = new Map<string, { values: unknown[]; rows: string[] }>();
  for (const row of rows) {
    const obj = parseJson(row) as Record<string, unknown>;
    const values = properties.map((p) => obj[p] ?? null);
    const key = stringifyJson(values);
    let group = byKey.get(key);
    if (group === undefined) byKey.set(key, (group = { values, rows: [] }));
    group.rows.push(row);
  }
  const out: string[] = [];
  for (const g of byKey.values()) {
    if (aggregate) out.push(`{"count":${g.rows.length},"data":[${g.rows.join(',')}]}`);
    else out.push(`{${properties.map((p, i) => `${JSON.stringify(p)}:${stringifyJson(g.values[i])}`).join(',')},"count":${g.rows.length}}`);
  }
  return `[${out.join(',')}]`;
}

// ---- cutting values out of compact JSON text (as src/exec/encode.ts writes it) ----

/** The end (exclusive) of the JSON value starting at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 34 /* " */) return stringEnd(text, i);
  if (c === 123 /* { */ || c === 91 /* [ */) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === 34) j = stringEnd(text, j) - 1;
      else if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return text.length;
  }
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 44 /* , */ || d === 125 /* } */ || d === 93 /* ] */) break;
    j++;
  }
  return j;
}

function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92 /* \ */) j++;
    else if (c === 34) return j + 1;
  }
  return text.length;
}

/** The members of the object starting at `start`: key to [start, end) of its value. */
function members(text: string, start: number): Map<string, readonly [number, number]> {
  const map = new Map<string, readonly [number, number]>();
  let i = start + 1;
  while (i < text.length && text[i] !== '}') {
    const keyEnd = stringEnd(text, i);
    const raw = text.slice(i + 1, keyEnd - 1);
    const key = raw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
    const vStart = keyEnd + 1; // past the colon
    const vEnd = valueEnd(text, vStart);
    map.set(key, [vStart, vEnd]);
    i = text[vEnd] === ',' ? vEnd + 1 : vEnd;
  }
  return map;
}

/** The elements of the array starting at `start`, as [start, end) spans. */
function elements(text: string, start: number): (readonly [number, number])[] {
  const out: (readonly [number, number])[] = [];
  let i = start + 1;
  while (i < text.length && text[i] !== ']') {
    const end = valueEnd(text, i);
    out.push([i, end]);
    i = text[end] === ',' ? end + 1 : end;
  }
  return out;
}
