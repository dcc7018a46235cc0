/**
 * The parameters of a named-query call (DECISIONS D16): a JSON object holding exactly the
 * declared parameters, each checked against its declared type, with the parameter named in
 * every error. The checked values are what the query's batch is run with (decoded by its
 * `parameter_types`, as /v2/query decodes them): floats stay floats (`3` for an F64
 * parameter is 3.0), ids and integers are exact, a missing optional parameter is null.
 */
import { GraphError } from '../core/errors.js';
import { parseRfc3339 } from '../core/datetime.js';
import { F32_MAX, I64_MAX } from '../core/value.js';
import type { ParamDef, TypeExpr } from './ast.js';
import { integerRange, isFloatType } from './schema.js';
import { typeText } from './types.js';

function bad(where: string, message: string): never {
  throw new GraphError('invalid_parameter', `parameter ${where} ${message}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'bigint') return `the integer ${v}`;
  if (typeof v === 'number') return `the number ${v}`;
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v}`;
}

/** A checked parameter value: JSON as src/core/json.ts reads it (integers as bigints), floats as numbers. */
export type ParamValue = string | bigint | number | boolean | null | readonly ParamValue[] | { readonly [key: string]: ParamValue };

/** The checked parameters of a call, from its parsed body, in the declared order. */
export function checkParameters(params: readonly ParamDef[], body: unknown): Record<string, ParamValue> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GraphError('invalid_parameter', `the body must be a JSON object of the query's parameters, got ${describe(body)}`);
  }
  const given = body as Record<string, unknown>;
  const declared = namesOf(params);
  const extra = Object.keys(given).filter((k) => !declared.has(k));
  if (extra.length > 0) {
    const known = params.length === 0 ? 'the query takes no parameters' : `its parameters are ${params.map((p) => p.name.text).join(', ')}`;
    throw new GraphError(
      'invalid_parameter',
      `unknown parameter${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}; ${known}`,
    );
  }
  const out: Record<string, ParamValue> = {};
  for (const p of params) {
    const name = p.name.text;
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    if (value === undefined || value === null) {
      if (!p.optional) bad(`"${name}"`, `(${typeText(p.type)}) is missing`);
      out[name] = null;
      continue;
    }
    out[name] = checked(p.type, value, `"${name}"`);
  }
  return out;
}

/** The names of a query's parameters or an object type's fields, once per list (the lists live as long as the project). */
const NAMES = new WeakMap<readonly { readonly name: { readonly text: string } }[], ReadonlySet<string>>();

function namesOf(list: readonly { readonly name: { readonly text: string } }[]): ReadonlySet<string> {
  let names = NAMES.get(list);
  if (names === undefined) NAMES.set(list, (names = new Set(list.map((p) => p.name.text))));
  return names;
}

/** `value` checked against type `type`; `where` names it in errors (`"tags"[2]`). */
function checked(type: TypeExpr, value: unknown, where: string): ParamValue {
  switch (type.kind) {
    case 'array': {
      if (!Array.isArray(value)) bad(where, `must be an array (${typeText(type)}), got ${describe(value)}`);
      return value.map((v, i) => checked(type.of, v, `${where}[${i}]`));
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        bad(where, `must be an object (${typeText(type)}), got ${describe(value)}`);
      const obj = value as Record<string, unknown>;
      const names = namesOf(type.fields);
      const extra = Object.keys(obj).find((k) => !names.has(k));
      if (extra !== undefined) bad(where, `has an unknown field "${extra}" (${typeText(type)})`);
      const fields: Record<string, ParamValue> = {};
      for (const f of type.fields) {
        const v = obj[f.name.text];
        if (v === undefined || v === null) bad(`${where}.${f.name.text}`, `(${typeText(f.type)}) is missing`);
        fields[f.name.text] = checked(f.type, v, `${where}.${f.name.text}`);
      }
      return fields;
    }
    case 'named':
      return value as ParamValue;
    case 'primitive':
      return primitive(type.name, value, where);
  }
}

function primitive(type: string, value: unknown, where: string): ParamValue {
  if (type === 'String') return typeof value === 'string' ? value : bad(where, `must be a String, got ${describe(value)}`);
  if (type === 'Boolean')
    return typeof value === 'boolean' ? value : bad(where, `must be a Boolean (true or false), got ${describe(value)}`);
  if (type === 'Date') {
    if (typeof value !== 'string' || parseRfc3339(value) === null)
      bad(where, `must be a Date: an RFC 3339 string such as "2026-01-02T03:04:05Z", got ${describe(value)}`);
    return value;
  }
  if (isFloatType(type)) {
    if (typeof value === 'bigint') return Number(value);
    if (typeof value !== 'number') bad(where, `must be a number (${type}), got ${describe(value)}`);
    if (type === 'F32' && Math.abs(value) > F32_MAX) bad(where, `is out of the range of F32`);
    return value;
  }
  const range = integerRange(type)!;
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (type === 'ID' && typeof value === 'string' && /^[0-9]{1,20}$/.test(value)) n = BigInt(value);
  else if (type === 'ID') bad(where, `must be an ID: a non-negative integer (or its digits as a string), got ${describe(value)}`);
  else bad(where, `must be an integer (${type}), got ${describe(value)}`);
  const max = type === 'ID' ? I64_MAX : range[1];
  if (n < range[0] || n > max) bad(where, `is ${n}, out of the range of ${type} (${range[0]} to ${max})`);
  return n;
}
