/**
 * JSON Schemas (draft 2020-12 keywords) of a query's parameters, for the tools of the MCP
 * endpoint (docs/query-language.md, "Agents"). A schema says what params.ts accepts, as
 * far as JSON Schema can say it: a bound that a double cannot hold exactly (the ends of
 * I64, U64, U128) is left out and written in the description instead. The schemas are for
 * agents writing calls; the call is still checked by params.ts, which has the last word.
 */
import type { ParamDef, TypeExpr } from './ast.js';
import { F32_MAX, I64_MAX, isSafeI64 } from '../core/value.js';
import { integerRange } from './schema.js';

export type JsonSchema = Readonly<Record<string, unknown>>;

/** The schema of a call's arguments: an object of the parameters, the optional ones not required. */
export function parametersSchema(params: readonly ParamDef[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const p of params) properties[p.name.text] = typeSchema(p.type);
  const required = params.filter((p) => !p.optional).map((p) => p.name.text);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

export function typeSchema(type: TypeExpr): JsonSchema {
  switch (type.kind) {
    case 'array':
      return { type: 'array', items: typeSchema(type.of) };
    case 'object': {
      const properties: Record<string, JsonSchema> = {};
      for (const f of type.fields) properties[f.name.text] = typeSchema(f.type);
      // params.ts requires every field of an object parameter.
      return { type: 'object', properties, required: type.fields.map((f) => f.name.text), additionalProperties: false };
    }
    case 'named':
      // Not a parameter type (the checker refuses it), so no compiled query has one.
      return {};
    case 'primitive':
      return primitiveSchema(type.name);
  }
}

function primitiveSchema(name: string): JsonSchema {
  switch (name) {
    case 'String':
      return { type: 'string' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'Date':
      return { type: 'string', format: 'date-time', description: 'Date: an RFC 3339 date-time, e.g. "2026-01-02T03:04:05Z"' };
    case 'F32':
      return { type: 'number', minimum: -F32_MAX, maximum: F32_MAX, description: 'F32' };
    case 'F64':
      return { type: 'number', description: 'F64' };
    case 'ID':
      return {
        anyOf: [
          { type: 'integer', minimum: 0, ...exactBound('maximum', I64_MAX) },
          { type: 'string', pattern: '^[0-9]{1,20}$' },
        ],
        description: `ID: an element id, a non-negative integer up to ${I64_MAX} (or its digits as a string)`,
      };
  }
  const range = integerRange(name)!;
  return {
    type: 'integer',
    ...exactBound('minimum', range[0]),
    ...exactBound('maximum', range[1]),
    description: `${name}: an integer from ${range[0]} to ${range[1]}`,
  };
}

/** `{key: n}` when a double holds `n` exactly and JSON prints it as digits; otherwise nothing. */
function exactBound(key: 'minimum' | 'maximum', n: bigint): JsonSchema {
  return isSafeI64(n) ? { [key]: Number(n) } : {};
}
