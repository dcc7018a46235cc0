/** The bigint-safe JSON writer (the reader is src/core/json.ts). */
import { isSafeI64 } from './value.js';

/**
 * JSON.stringify without whitespace, extended for Trellis values: bigint prints its exact digits,
 * non-finite numbers print null, typed arrays print as arrays. Like JSON.stringify, toJSON is
 * honoured (Date), undefined/function/symbol members are skipped and array slots become null.
 * A top-level value with no JSON form is a TypeError (JSON.stringify would return undefined).
 */
export function stringifyJson(value: unknown): string {
  out = '';
  try {
    if (!write(value, '', 0)) throw new TypeError(`cannot stringify ${typeof value} as JSON`);
    return out;
  } finally {
    out = '';
  }
}

// Appending to one string keeps a single rope; returning a string per level makes many short-lived
// ones and was several times slower on large responses.
let out = '';

// Guards cycles (JSON.stringify throws on them too) well before the stack would overflow.
const MAX_STRINGIFY_DEPTH = 2000;

/** Appends `value` to `out`; false (and nothing appended) when it has no JSON form. */
function write(value: unknown, key: string | number, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      out += JSON.stringify(value);
      return true;
    case 'number':
      out += Number.isFinite(value) ? String(value) : 'null';
      return true;
    case 'bigint':
      out += value.toString();
      return true;
    case 'boolean':
      out += value ? 'true' : 'false';
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) {
    out += 'null';
    return true;
  }
  if (depth >= MAX_STRINGIFY_DEPTH) throw new TypeError('cannot stringify a cyclic or too deeply nested value');
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return write(toJSON.call(value, String(key)), key, depth);
  if (Array.isArray(value)) {
    out += '[';
    for (let k = 0; k < value.length; k++) {
      if (k > 0) out += ',';
      if (!write(value[k], k, depth + 1)) out += 'null';
    }
    out += ']';
    return true;
  }
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const items = value as unknown as ArrayLike<number | bigint>;
    out += '[';
    for (let k = 0; k < items.length; k++) {
      if (k > 0) out += ',';
      const item = items[k]!;
      out += typeof item === 'bigint' ? item.toString() : Number.isFinite(item) ? String(item) : 'null';
    }
    out += ']';
    return true;
  }
  out += '{';
  let first = true;
  const obj = value as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    const member = obj[k];
    const t = typeof member;
    if (member === undefined || t === 'function' || t === 'symbol') continue;
    const mark = out.length;
    out += first ? quoteKey(k) : ',' + quoteKey(k);
    if (write(member, k, depth + 1)) first = false;
    else out = out.slice(0, mark); // a toJSON that returned undefined
  }
  out += '}';
  return true;
}

// Responses repeat the same property names; quoting each once saves most of the escaping work.
const quotedKeys = new Map<string, string>();

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key) + ':';
    if (quotedKeys.size < 4096) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** A float as JSON text that still reads as a float: `3.0`, `-0.0`, `1e+21`; non-finite is null. */
export function floatText(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  if (Object.is(n, -0)) return '-0.0';
  const s = String(n);
  return Number.isInteger(n) && !s.includes('e') ? `${s}.0` : s;
}

/**
 * An integer (bigint) or float as a Cypher response cell: a JSON number when it reads back
 * exactly (integers within ±2^53, finite floats with their fraction: `1.0`), otherwise a
 * `$type` envelope, `{"$type":"integer","value":"<digits>"}` or
 * `{"$type":"float","value":"NaN" | "Infinity" | "-Infinity"}` (reference/cypher.md).
 */
export function cypherNumberText(v: bigint | number): string {
  if (typeof v === 'bigint') return isSafeI64(v) ? v.toString() : `{"$type":"integer","value":"${v}"}`;
  if (Number.isFinite(v)) return floatText(v);
  return `{"$type":"float","value":"${Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'}"}`;
}
