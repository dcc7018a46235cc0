/**
 * Values as the export writes them: CSV cells (read back by cells.ts with the column's
 * type), JSON members, tagged values of the v2 wire (the `json` type) and Cypher literals.
 */
import { formatRfc3339 } from '../core/datetime.js';
import { DateTime, type Value } from '../core/value.js';
import type { ValueType } from './header.js';

/** A double as text that reads back to the same double: -0.0, NaN, Infinity, 1e+308, 5.0. */
export function doubleText(v: number): string {
  if (Object.is(v, -0)) return '-0.0';
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  const s = String(v);
  return Number.isInteger(v) && !s.includes('e') ? `${s}.0` : s;
}

const dateText = (v: DateTime) => formatRfc3339(v.ms) ?? String(v.ms);

/** A JSON number token of a finite double that keeps it a float (5.0, -0.0). */
const jsonDouble = (v: number) => doubleText(v);

/** A JSON string. */
const str = (s: string) => JSON.stringify(s);

/** The value as a tagged PropertyValue of the v2 wire (reference §4.1), as JSON text. */
export function taggedJson(v: Value): string {
  if (v === null) return '"null"';
  switch (typeof v) {
    case 'boolean':
      return `{"bool":${v}}`;
    case 'bigint':
      return `{"i64":${v}}`;
    case 'number':
      return `{"f64":${Number.isFinite(v) ? jsonDouble(v) : str(doubleText(v))}}`;
    case 'string':
      return `{"string":${str(v)}}`;
  }
  if (v instanceof DateTime) return `{"date_time":${v.ms}}`;
  if (v instanceof Uint8Array) return `{"bytes":[${Array.from(v).join(',')}]}`;
  if (v instanceof BigInt64Array) return `{"i64_array":[${Array.from(v).join(',')}]}`;
  if (v instanceof Float64Array) return `{"f64_array":[${Array.from(v, jsonDouble).join(',')}]}`;
  if (v instanceof Float32Array) return `{"f32_array":[${Array.from(v, jsonDouble).join(',')}]}`;
  if (Array.isArray(v)) return `{"array":[${v.map(taggedJson).join(',')}]}`;
  const members = Object.entries(v).map(([k, x]) => `${str(k)}:${taggedJson(x)}`);
  return `{"object":{${members.join(',')}}}`;
}

/** A cell's text for a value of `type` (before CSV quoting). */
export function cellText(v: Value, type: ValueType, arrayDelimiter: string): string {
  if (type.scalar === 'json') return taggedJson(v);
  if (type.array) {
    const items = Array.from(v as ArrayLike<Value>);
    return items.map((x) => cellText(x, { scalar: type.scalar, array: false }, arrayDelimiter)).join(arrayDelimiter);
  }
  switch (typeof v) {
    case 'number':
      return doubleText(v);
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'string':
      return v;
  }
  if (v instanceof DateTime) return dateText(v);
  return taggedJson(v);
}

/** A CSV field: quoted when it holds the delimiter, a quote or a line break, or is empty. */
export function csvField(text: string, delimiter: string, quote: string): string {
  if (text !== '' && !text.includes(delimiter) && !text.includes(quote) && !text.includes('\n') && !text.includes('\r')) return text;
  return quote + text.split(quote).join(quote + quote) + quote;
}

/** A JSON member value that cells.ts reads back as a value of `type`. */
export function jsonMember(v: Value, type: ValueType): string {
  if (type.scalar === 'json') return taggedJson(v);
  if (type.array) {
    const items = Array.from(v as ArrayLike<Value>);
    return `[${items.map((x) => jsonMember(x, { scalar: type.scalar, array: false })).join(',')}]`;
  }
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? jsonDouble(v) : str(doubleText(v));
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'string':
      return str(v);
  }
  if (v instanceof DateTime) return str(dateText(v));
  return taggedJson(v);
}

/** A name as a Cypher identifier, in backticks unless it is a plain one. */
export function cypherName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : '`' + name.split('`').join('``') + '`';
}

/** A string as a Cypher literal. */
function cypherString(s: string): string {
  return "'" + s.replace(/[\\'\n\r\t]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : '\\' + c)) + "'";
}

/** A value as a Cypher expression (NaN and infinities as divisions, date-times as datetime()). */
export function cypherLiteral(v: Value): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
    case 'bigint':
      return String(v);
    case 'number':
      if (Number.isNaN(v)) return '(0.0 / 0.0)';
      if (!Number.isFinite(v)) return v > 0 ? '(1.0 / 0.0)' : '(-1.0 / 0.0)';
      return doubleText(v);
    case 'string':
      return cypherString(v);
  }
  if (v instanceof DateTime) return `datetime(${cypherString(dateText(v))})`;
  if (ArrayBuffer.isView(v)) return `[${Array.from(v as ArrayLike<number | bigint>, (x) => cypherLiteral(x)).join(', ')}]`;
  if (Array.isArray(v)) return `[${v.map(cypherLiteral).join(', ')}]`;
  return cypherMap(v);
}

/** A property map as a Cypher map literal. */
export function cypherMap(props: Record<string, Value>): string {
  const members = Object.entries(props).map(([k, x]) => `${cypherName(k)}: ${cypherLiteral(x)}`);
  return `{${members.join(', ')}}`;
}
