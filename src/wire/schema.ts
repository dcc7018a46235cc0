/**
 * Schema combinators for the wire format. A `Field<T>` both checks a JSON value and
 * converts it (integer tokens arrive as bigint from src/core/json.ts), so each operation's
 * schema in ops.ts is one declarative table and its decoder at once. Every failure is a
 * 400 `invalid_query_json` whose msg starts with the JSON path, e.g.
 * `query.read.entries[0].query.root.count: unknown key "foo"`.
 *
 * Each combinator also carries the JSON Schema (2020-12, as OpenAPI 3.1 uses it) of what
 * it accepts, in `schema`: the OpenAPI document (src/server/openapi.ts) is made from the
 * very decoders that check requests. A decoder written by hand (a tagged union with
 * logic per tag) declares its variants with `described`; test/wire/schemas.test.ts checks
 * that every declared variant is one the decoder knows, and that valid documented
 * requests pass the schema.
 */
import { GraphError, type ErrorCode } from '../core/errors.js';
import { LIMITS } from '../plan/limits.js';
import { clip } from '../core/clip.js';
import { isObject } from '../core/json.js';

export type JsonSchema = { readonly [key: string]: unknown };

export interface Field<T> {
  (json: unknown, path: string): T;
  /** The JSON Schema of the values this field accepts. */
  schema?: JsonSchema;
  /** The field accepts a missing key (optional, withDefault): not `required` in its object. */
  mayBeAbsent?: boolean;
}

/** `decode` with the schema of what it accepts. */
export function described<T>(decode: (json: unknown, path: string) => T, schema: JsonSchema, mayBeAbsent = false): Field<T> {
  const field = decode as Field<T>;
  field.schema = schema;
  if (mayBeAbsent) field.mayBeAbsent = true;
  return field;
}

/** The schema of a field, `{}` (anything) for one that declares none. */
export function schemaOf(field: Field<unknown>): JsonSchema {
  return field.schema ?? {};
}

/**
 * The schema of an externally tagged enum (see `tagged`): each unit variant as its bare
 * string, each other variant as an object with exactly its one key.
 */
export function taggedSchema(units: readonly string[], variants: Readonly<Record<string, Field<unknown> | JsonSchema>>): JsonSchema {
  const options: JsonSchema[] = [];
  if (units.length > 0) options.push({ type: 'string', enum: [...units] });
  for (const [tag, payload] of Object.entries(variants)) {
    const schema = typeof payload === 'function' ? schemaOf(payload) : payload;
    options.push({ type: 'object', properties: { [tag]: schema }, required: [tag], additionalProperties: false });
  }
  return { anyOf: options };
}

/**
 * Named schemas, referred to as `#/components/schemas/<name>`: the recursive ones (an
 * operation holds expressions that hold operations) cannot be written inline.
 */
export const COMPONENTS = new Map<string, () => JsonSchema>();

/** A reference to the named schema `name`, whose full schema `full` gives (on demand, as the parts may not exist yet). */
export function component(name: string, full: () => JsonSchema): JsonSchema {
  COMPONENTS.set(name, full);
  return { $ref: `#/components/schemas/${name}` };
}

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

export const str: Field<string> = described(
  (json, path) => (typeof json === 'string' ? json : fail(path, `expected a string, got ${describe(json)}`)),
  { type: 'string' },
);

/** A name that must not be empty (labels, properties, variables): 400 invalid_empty_name. */
export const name: Field<string> = described(
  (json, path) => {
    const s = str(json, path);
    return s.length > 0 ? s : fail(path, 'must not be empty', 'invalid_empty_name');
  },
  { type: 'string', minLength: 1 },
);

/** A node or edge label: a name of at most LIMITS.maxLabelBytes UTF-8 bytes (labels are index keys). */
export const label: Field<string> = described(
  (json, path) => {
    const s = name(json, path);
    return Buffer.byteLength(s) <= LIMITS.maxLabelBytes
      ? s
      : fail(path, `a label is at most ${LIMITS.maxLabelBytes} bytes of UTF-8, this one is ${Buffer.byteLength(s)}`, 'limit_exceeded');
  },
  { type: 'string', minLength: 1, description: `a label: at most ${LIMITS.maxLabelBytes} bytes of UTF-8` },
);

export const bool: Field<boolean> = described(
  (json, path) => (typeof json === 'boolean' ? json : fail(path, `expected true or false, got ${describe(json)}`)),
  { type: 'boolean' },
);

/**
 * A non-negative integer (u64/usize on the wire). Values beyond 2^53 cannot be a count we
 * could honour nor an id that exists, so they become Infinity: "more than anything".
 */
export const u64: Field<number> = described(
  (json, path) => {
    if (typeof json !== 'bigint') return fail(path, `expected a non-negative integer, got ${describe(json)}`);
    if (json < 0n) return fail(path, `expected a non-negative integer, got ${clip(String(json))}`);
    if (json >= 1n << 64n) return fail(path, `${clip(String(json))} is larger than the largest u64`);
    return json <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(json) : Number.POSITIVE_INFINITY;
  },
  { type: 'integer', minimum: 0, description: 'u64: a non-negative integer below 2^64' },
);

/** The schema of a value that may also be null. */
function orNull(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: 'null' }] };
}

export function optional<T>(field: Field<T>): Field<T | null> {
  return described((json, path) => (json === undefined || json === null ? null : field(json, path)), orNull(schemaOf(field)), true);
}

/** JSON for a default value the schema can state (bigints and typed values have none). */
function jsonDefault(value: unknown): JsonSchema {
  return value === null || ['string', 'boolean', 'number'].includes(typeof value) || (Array.isArray(value) && value.length === 0)
    ? { default: value }
    : {};
}

export function withDefault<T>(field: Field<T>, value: T): Field<T> {
  return described(
    (json, path) => (json === undefined || json === null ? value : field(json, path)),
    { ...orNull(schemaOf(field)), ...jsonDefault(value) },
    true,
  );
}

export function list<T>(item: Field<T>): Field<T[]> {
  return described(
    (json, path) => {
      if (!Array.isArray(json)) return fail(path, `expected an array, got ${describe(json)}`);
      const out = new Array<T>(json.length);
      for (let i = 0; i < json.length; i++) out[i] = item(json[i], `${path}[${i}]`);
      return out;
    },
    { type: 'array', items: schemaOf(item) },
  );
}

export function tuple<A, B>(a: Field<A>, b: Field<B>): Field<[A, B]> {
  return described(
    (json, path) => {
      if (!Array.isArray(json) || json.length !== 2) return fail(path, `expected an array of exactly 2 items, got ${describe(json)}`);
      return [a(json[0], `${path}[0]`), b(json[1], `${path}[1]`)];
    },
    { type: 'array', prefixItems: [schemaOf(a), schemaOf(b)], minItems: 2, maxItems: 2 },
  );
}

export function oneOf<T extends string>(values: readonly T[]): Field<T> {
  return described(
    (json, path) =>
      typeof json === 'string' && (values as readonly string[]).includes(json)
        ? (json as T)
        : fail(path, `expected one of ${values.map((v) => `"${v}"`).join(', ')}, got ${describe(json)}`),
    { type: 'string', enum: [...values] },
  );
}

type Decoded<S> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/** An object with exactly these keys (missing optional fields decode as their default). */
export function struct<S extends Record<string, Field<unknown>>>(shape: S): Field<Decoded<S>> {
  const keys = Object.keys(shape);
  const properties: Record<string, JsonSchema> = {};
  for (const key of keys) properties[key] = schemaOf(shape[key]!);
  const required = keys.filter((key) => shape[key]!.mayBeAbsent !== true);
  return described(
    (json, path) => {
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
    },
    { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
  );
}

/** A required field: a clear "missing" message instead of a type error on undefined. */
export function required<T>(field: Field<T>): Field<T> {
  return described((json, path) => {
    if (json === undefined) {
      const dot = path.lastIndexOf('.');
      return fail(path.slice(0, dot), `missing required key "${path.slice(dot + 1)}"`);
    }
    return field(json, path);
  }, schemaOf(field));
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
