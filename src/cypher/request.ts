/**
 * The body of POST /v2/cypher and /v2/cypher/explain (reference/cypher.md, "Request"):
 * `{"query", "parameters"?, "query_name"?}`, unknown keys rejected, parameters as plain JSON
 * or the lossless `$type` envelopes:
 *
 * - `{"$type":"integer","value":"<decimal i64>"}`: an integer beyond a double's exact range;
 * - `{"$type":"float","value":"NaN"|"Infinity"|"-Infinity"}`: a float JSON cannot write (a
 *   JSON number is accepted as `value` too, and is a float whatever its spelling);
 * - `{"$type":"map","value":{...}}`: a map whose keys are taken as written, so a map may have
 *   a key `$type` of its own; its values are decoded like any other.
 *
 * Envelopes are decoded in lists and maps at any depth. An object with a `$type` key is an
 * envelope: another tag, another key beside `$type` and `value`, or a value of the wrong
 * kind is 400 `invalid_query_json` naming the JSON path, and so is a plain JSON integer (the
 * parser reads every integer token exactly, as a bigint) outside the 64-bit range.
 */
import { GraphError } from '../core/errors.js';
import { clip } from '../core/clip.js';
import { tableOf } from '../core/row-table.js';
import { I64_MAX, I64_MIN, isValueObject, setOwn, type Value, type ValueObject } from '../core/value.js';

export interface CypherRequest {
  readonly query: string;
  readonly parameters: ReadonlyMap<string, Value>;
  readonly queryName: string | null;
}

const KEYS = new Set(['query', 'parameters', 'query_name']);
const DECIMAL_I64_PATTERN = '^-?(0|[1-9][0-9]*)$';

/**
 * The JSON Schema of what decodeCypherRequest accepts, for the OpenAPI document
 * (src/server/openapi.ts); test/cypher/request-schema.test.ts checks that the two agree on
 * generated bodies. A schema cannot say "outside the 64-bit range", so that is a description.
 */
export const CYPHER_REQUEST_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'one openCypher statement' },
    parameters: {
      anyOf: [{ type: 'object', additionalProperties: { $ref: '#/components/schemas/CypherParameter' } }, { type: 'null' }],
    },
    query_name: { type: ['string', 'null'] },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

/** A parameter value: plain JSON, with `$type` envelopes at any depth (integers within the 64-bit range). */
export const CYPHER_PARAMETER_SCHEMA = {
  anyOf: [
    { type: ['null', 'boolean', 'number', 'string'] },
    { type: 'array', items: { $ref: '#/components/schemas/CypherParameter' } },
    {
      type: 'object',
      properties: { $type: { const: 'integer' }, value: { type: 'string', pattern: DECIMAL_I64_PATTERN } },
      required: ['$type', 'value'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        $type: { const: 'float' },
        value: { anyOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }] },
      },
      required: ['$type', 'value'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        $type: { const: 'map' },
        value: { type: 'object', additionalProperties: { $ref: '#/components/schemas/CypherParameter' } },
      },
      required: ['$type', 'value'],
      additionalProperties: false,
    },
    { type: 'object', not: { required: ['$type'] }, additionalProperties: { $ref: '#/components/schemas/CypherParameter' } },
  ],
  description: 'plain JSON (integers are exact 64-bit integers, other numbers floats) or the lossless $type envelopes, at any depth',
} as const;

function bad(msg: string): GraphError {
  return new GraphError('invalid_query_json', msg);
}

/** A parsed JSON body (integers as bigint, as core/json.ts parses them) to a request. */
export function decodeCypherRequest(json: unknown): CypherRequest {
  if (!isValueObject(json)) throw bad('the body must be a JSON object with a "query" string');
  const body = json;
  for (const key of Object.keys(body))
    if (!KEYS.has(key)) throw bad(`unknown key "${clip(key)}": the body may have only "query", "parameters" and "query_name"`);
  if (typeof body.query !== 'string') throw bad(body.query === undefined ? 'the body has no "query"' : '"query" must be a string');
  const params = new Map<string, Value>();
  const given = body.parameters ?? null;
  if (given !== null) {
    if (!isValueObject(given)) throw bad('"parameters" must be an object');
    for (const name of Object.keys(given)) params.set(name, decodeParameter(given[name]!, child('parameters', name)));
  }
  const name = body.query_name ?? null;
  if (name !== null && typeof name !== 'string') throw bad('"query_name" must be a string or null');
  return { query: body.query, parameters: params, queryName: name };
}

/** A key as a JSON path step: `.name`, or `["odd key"]`. */
function pathKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : `[${JSON.stringify(clip(key, 40))}]`;
}

function child(path: string, key: string): string {
  const step = pathKey(key);
  return step.startsWith('[') ? path + step : `${path}.${step}`;
}

/** One parameter value with its envelopes decoded; `path` names it in messages. */
export function decodeParameter(value: Value, path: string): Value {
  switch (typeof value) {
    case 'bigint':
      if (value > I64_MAX || value < I64_MIN) throw bad(`${path}: the integer ${clip(value.toString())} is outside the 64-bit range`);
      return value;
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    if (plainTable(value)) return value;
    const out: Value[] = new Array<Value>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = decodeParameter(value[i]!, `${path}[${i}]`);
    return out;
  }
  if (!isValueObject(value)) return value;
  if (Object.hasOwn(value, '$type')) return decodeEnvelope(value, path);
  return decodeMap(value, path);
}

function decodeMap(map: ValueObject, path: string): ValueObject {
  const out: ValueObject = {};
  for (const key of Object.keys(map)) setOwn(out, key, decodeParameter(map[key]!, child(path, key)));
  return out;
}

const DECIMAL_I64 = new RegExp(DECIMAL_I64_PATTERN);
const NON_FINITE: Readonly<Record<string, number>> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': -Infinity };

function decodeEnvelope(env: ValueObject, path: string): Value {
  const tag = env.$type;
  for (const key of Object.keys(env))
    if (key !== '$type' && key !== 'value')
      throw bad(`${path}: a {"$type", "value"} envelope has the key "${clip(key)}"; it may have only "$type" and "value"`);
  if (!Object.hasOwn(env, 'value')) throw bad(`${path}: the envelope has no "value"`);
  const value = env.value!;
  switch (tag) {
    case 'integer': {
      if (typeof value !== 'string' || !DECIMAL_I64.test(value))
        throw bad(`${path}: an integer envelope's "value" must be a decimal integer in a string, e.g. "9007199254740993"`);
      const n = BigInt(value);
      if (n > I64_MAX || n < I64_MIN) throw bad(`${path}: the integer ${clip(value)} is outside the 64-bit range`);
      return n;
    }
    case 'float':
      if (typeof value === 'string' && Object.hasOwn(NON_FINITE, value)) return NON_FINITE[value]!;
      if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
      throw bad(`${path}: a float envelope's "value" must be "NaN", "Infinity", "-Infinity" or a JSON number`);
    case 'map':
      if (!isValueObject(value)) throw bad(`${path}: a map envelope's "value" must be a JSON object`);
      return decodeMap(value, path);
    default:
      throw bad(
        `${path}: unknown "$type" ${clip(JSON.stringify(typeof tag === 'bigint' ? tag.toString() : tag) ?? 'null')}; ` +
          'the envelopes are "integer", "float" and "map"',
      );
  }
}

/**
 * An array the JSON parser read as a row table (uniform flat rows, core/row-table.ts) that
 * no envelope or out-of-range integer can hide in: it stays as it is, so a bulk parameter
 * keeps its columns instead of being rebuilt row by row.
 */
function plainTable(list: readonly Value[]): boolean {
  const table = tableOf(list as Value);
  if (table === undefined || table.keys.includes('$type')) return false;
  for (const column of table.columns) {
    if (column.kind !== 'any') continue;
    for (const v of column.values) {
      if (typeof v === 'bigint' ? v > I64_MAX || v < I64_MIN : typeof v === 'object' && v !== null) return false;
    }
  }
  return true;
}
