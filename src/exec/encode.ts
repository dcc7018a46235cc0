/**
 * Results to JSON text (reference §7, DECISIONS D8/D9). Every returned variable is an
 * array: a count is `[n]`, an exists `[true]`, a bare element stream `[{"$id": 7}]`.
 * Values print untagged: i64 as exact digits, f64 with a fraction (`3.0`, as the
 * reference), non-finite floats as null, date_time as RFC 3339 UTC with milliseconds.
 */
import { GraphError } from '../core/errors.js';
import { LIMITS } from '../plan/limits.js';
import { formatRfc3339 } from '../core/datetime.js';
import { floatText } from '../core/json-stringify.js';
import { scalarText, type ScalarStyle } from '../core/scalar-text.js';
import { DateTime, type Value } from '../core/value.js';
import type { Flow } from './flow.js';
import { EDGE, NODE, keyKind, keyId, type ElementKey, type Row } from './row.js';

/** Scalars in responses: strings as JSON strings, floats that still read as floats (`3.0`). */
const JSON_SCALARS: ScalarStyle = { string: (s) => JSON.stringify(s), number: floatText };

export function encodeValue(v: Value): string {
  if (v === null) return 'null';
  if (typeof v !== 'object') return scalarText(v, JSON_SCALARS);
  if (v instanceof DateTime) {
    const text = formatRfc3339(v.ms);
    if (text === null) throw new GraphError('serialization_error', `date_time ${v.ms} ms cannot be printed as RFC 3339`);
    return `"${text}"`;
  }
  if (v instanceof Uint8Array) return `[${v.join(',')}]`;
  if (v instanceof BigInt64Array) return `[${v.join(',')}]`;
  if (v instanceof Float64Array || v instanceof Float32Array) return `[${Array.from(v, floatText).join(',')}]`;
  if (Array.isArray(v)) return `[${v.map(encodeValue).join(',')}]`;
  let out = '{';
  let first = true;
  for (const key in v) {
    out += `${first ? '' : ','}${JSON.stringify(key)}:${encodeValue(v[key] as Value)}`;
    first = false;
  }
  return out + '}';
}

function encodeKey(key: ElementKey | null): string {
  if (key === null) return 'null';
  return `{"${keyKind(key) === NODE ? 'node' : 'edge'}":${keyId(key)}}`;
}

function encodeRow(row: Row, showPath: boolean, showSack: boolean): string {
  const plain = row.kind !== 2 && (row.bindings === null || row.bindings.size === 0) && !showPath && !showSack;
  if (plain) {
    let out = `{"$id":${row.id}`;
    if (row.distance !== undefined) out += `,"$distance":${floatText(row.distance)}`;
    if (row.score !== undefined) out += `,"$score":${floatText(row.score)}`;
    return out + '}';
  }
  let out = `{"current":${encodeKey(row.kind === NODE || row.kind === EDGE ? row.key : null)},"bindings":{`;
  let first = true;
  for (const [name, binding] of row.bindings ?? []) {
    out += `${first ? '' : ','}${JSON.stringify(name)}:${encodeKey(binding.key)}`;
    first = false;
  }
  out += '}';
  if (showPath) out += `,"path":[${(row.path ?? []).map(encodeKey).join(',')}]`;
  if (showSack) out += `,"sack":${encodeValue(row.sack ?? null)}`;
  return out + '}';
}

export function encodeFlow(flow: Flow): string {
  switch (flow.t) {
    case 'count':
      return `[${flow.n}]`;
    case 'bool':
      return `[${flow.v}]`;
    case 'values':
      if (flow.single === true) return encodeValue(flow.items[0] ?? null);
      return `[${flow.items.map(encodeValue).join(',')}]`;
    case 'rows': {
      const parts: string[] = [];
      for (const row of flow.rows) parts.push(encodeRow(row, flow.showPath, flow.showSack));
      return `[${parts.join(',')}]`;
    }
    case 'table':
      // Cypher statements answer as a whole (Batch.format), never as a returned variable.
      throw new GraphError('internal_error', 'a Cypher result reached the /v2/query encoder');
  }
}

/** The response body: an object keyed by the returned names (missing ones print `[]`). */
export function encodeResponse(returns: readonly string[], lookup: (name: string) => Flow | undefined): string {
  let out = '{';
  try {
    returns.forEach((name, i) => {
      const flow = lookup(name);
      out += `${i ? ',' : ''}${JSON.stringify(name)}:${flow ? encodeFlow(flow) : '[]'}`;
      if (out.length > LIMITS.maxResponseChars) throw tooLarge();
    });
  } catch (err) {
    // V8 refuses strings past ~512 MiB with a RangeError; either way the answer is too big.
    if (err instanceof RangeError) throw tooLarge();
    throw err;
  }
  return out + '}';
}

function tooLarge(): GraphError {
  return new GraphError(
    'limit_exceeded',
    `the response would exceed ${LIMITS.maxResponseChars} characters; return fewer rows or properties (limit, range, values)`,
  );
}
