/**
 * Schema combinators for the wire format. A `Field<T>` both checks a JSON value and
 * converts it (integer tokens arrive as bigint from src/core/json.ts), so each operation's
 * schema in ops.ts is one declarative table and its decoder at once. Every failure is a
 * 400 `invalid_query_json` whose msg starts with the JSON path, e.g.
 * `query.read.entries[0].query.root.count: unknown key "foo"`.
 */
import { GraphError, type ErrorCode } from '../core/errors.js';
import { LIMITS } from '../plan/limits.js';
import { clip } from '../core/clip.js';
import { isObject } from '../core/json.js';

export type Field<T> = (json: unknown, path: string) => T;

export function fail(path: string, msg: string, code: ErrorCode = 'invalid_query_json'): never {
  throw new GraphError(code, `${path}: ${msg}`);
}

export function describe(json: unknown): string {
  if (json === null) return 'null';
  if (Array.isArray(json)) return 'an array';
  if (typeof json === 'bigint') return `the integer ${clip(String(json))}`;
  if (typeof json === 'number') return `the number ${json}`;
  if (typeof json === 'string') return `the string ${JSON.stringify(clip(json, 40))}`;
  return typeof json === 'object' ? 'an object' : `a ${typeof json}`;
}

export const str: Field<string> = (json, path) =>
  typeof json === 'string' ? json : fail(path, `expected a string, got ${describe(json)}`);

/** A name that must not be empty (labels, properties, variables): 400 invalid_empty_name. */
export const name: Field<string> = (json, path) => {
  const s = str(json, path);
  return s.length > 0 ? s : fail(path, 'must not be empty', 'invalid_empty_name');
};

/** A node or edge label: a name of at most LIMITS.maxLabelBytes UTF-8 bytes (labels are index keys). */
export const label: Field<string> = (json, path) => {
  const s = name(json, path);
  return Buffer.byteLength(s) <= LIMITS.maxLabelBytes
    ? s
    : fail(path, `a label is at most ${LIMITS.maxLabelBytes} bytes of UTF-8, this one is ${Buffer.byteLength(s)}`, 'limit_exceeded');
};

export const bool: Field<boolean> = (json, path) =>
  typeof json === 'boolean' ? json : fail(path, `expected true or false, got ${describe(json)}`);

/**
 * A non-negative integer (u64/usize on the wire). Values beyond 2^53 cannot be a count we
 * could honour nor an id that exists, so they become Infinity: "more than anything".
 */
export const u64: Field<number> = (json, path) => {
  if (typeof json !== 'bigint') return fail(path, `expected a non-negative integer, got ${describe(json)}`);
  if (json < 0n) return fail(path, `expected a non-negative integer, got ${clip(String(json))}`);
  if (json >= 1n << 64n) return fail(path, `${clip(String(json))} is larger than the largest u64`);
  return json <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(json) : Number.POSITIVE_INFINITY;
};

export function optional<T>(field: Field<T>): Field<T | null> {
  return (json, path) => (json === undefined || json === null ? null : field(json, path));
}

export function withDefault<T>(field: Field<T>, value: T): Field<T> {
  return (json, path) => (json === undefined || json === null ? value : field(json, path));
}

export function list<T>(item: Field<T>): Field<T[]> {
  return (json, path) => {
    if (!Array.isArray(json)) return fail(path, `expected an array, got ${describe(json)}`);
    const out = new Array<T>(json.length);
    for (let i = 0; i < json.length; i++) out[i] = item(json[i], `${path}[${i}]`);
    return out;
  };
}

export function tuple<A, B>(a: Field<A>, b: Field<B>): Field<[A, B]> {
  return (json, path) => {
    if (!Array.isArray(json) || json.length !== 2) return fail(path, `expected an array of exactly 2 items, got ${describe(json)}`);
    return [a(json[0], `${path}[0]`), b(json[1], `${path}[1]`)];
  };
}

export function oneOf<T extends string>(values: readonly T[]): Field<T> {
  return (json, path) =>
    typeof json === 'string' && (values as readonly string[]).includes(json)
      ? (json as T)
      : fail(path, `expected one of ${values.map((v) => `"${v}"`).join(', ')}, got ${describe(json)}`);
}

type Decoded<S> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/** An object with exactly these keys (missing optional fields decode as their default). */
export function struct<S extends Record<string, Field<unknown>>>(shape: S): Field<Decoded<S>> {
  const keys = Object.keys(shape);
  return (json, path) => {
    if (!isObject(json)) return fail(path, `expected an object, got ${describe(json)}`);
    for (const key in json) {
      if (!Object.hasOwn(shape, key))
        fail(path, `unknown key "${clip(key)}" (expected ${keys.map((k) => `"${k}"`).join(', ') || 'no keys'})`);
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      const value = json[key];
      const childPath = `${path}.${key}`;
      out[key] = (shape[key] as Field<unknown>)(value, childPath);
    }
    return out as Decoded<S>;
  };
}

/** A required field: a clear "missing" message instead of a type error on undefined. */
export function required<T>(field: Field<T>): Field<T> {
  return (json, path) => {
    if (json === undefined) {
      const dot = path.lastIndexOf('.');
      return fail(path.slice(0, dot), `missing required key "${path.slice(dot + 1)}"`);
    }
    return field(json, path);
  };
}

/**
 * An externally tagged enum: a bare string for unit variants, or an object with exactly one
 * key naming the variant. Returns the tag, the payload and the payload's path.
 */
export function tagged(json: unknown, path: string, what: string): { tag: string; body: unknown; bodyPath: string } {
  if (typeof json === 'string') return { tag: json, body: undefined, bodyPath: path };
  if (!isObject(json)) return fail(path, `expected ${what} (a string or an object with one key), got ${describe(json)}`);
  let tag: string | undefined;
  for (const key in json) {
    if (tag !== undefined) return fail(path, `${what} must have exactly one key, got "${clip(tag)}" and "${clip(key)}"`);
    tag = key;
  }
  if (tag === undefined) return fail(path, `${what} must have exactly one key, got an empty object`);
  return { tag, body: json[tag], bodyPath: `${path}.${tag}` };
}
