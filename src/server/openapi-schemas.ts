/**
 * The response bodies of the OpenAPI document (openapi.ts), as TypeBox schemas. The server
 * builds its answers as text and checks none of them against a schema, so these are the one
 * statement of their shapes; test/server/openapi.test.ts checks real answers against them.
 */
import Type from 'typebox';

const ErrorCode = Type.Unsafe<string>({ $ref: '#/components/schemas/ErrorCode' });

export const RESPONSE_SCHEMAS = {
  Error: Type.Object(
    {
      error: ErrorCode,
      msg: Type.String({ description: 'what was wrong and where; quotes at most 200 characters of any one piece of the request' }),
      details: Type.Optional(
        Type.Object(
          {
            detail: Type.String({ description: "openCypher's code for the rule (the TCK's names)" }),
            phase: Type.Union([Type.Literal('compile'), Type.Literal('runtime')]),
            span: Type.Union([Type.Object({ start: Type.Integer({ minimum: 0 }), end: Type.Integer({ minimum: 0 }) }), Type.Null()], {
              description: 'the UTF-8 byte range of the statement at fault',
            }),
          },
          { additionalProperties: false, description: 'errors of a Cypher statement only' },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  QueryResponse: Type.Record(Type.String(), Type.Union([Type.Array(Type.Unknown()), Type.Object({})]), {
    description:
      'Exactly the names of `returns`, in order; every value is an array (docs/queries.md, Response), except index DDL and index operations, which answer one object',
  }),
  CypherResponse: Type.Object(
    {
      columns: Type.Array(Type.String()),
      rows: Type.Array(Type.Array(Type.Unknown()), {
        description:
          'nodes, relationships and paths are {"$type": ...} objects with decimal string ids; integers beyond ±2^53 and non-finite floats are envelopes',
      }),
    },
    { additionalProperties: false },
  ),
  ExplainResponse: Type.Object(
    {
      effect: Type.Union([Type.Literal('Read'), Type.Literal('Write')]),
      bindings: Type.Array(Type.Object({ slot: Type.Integer({ minimum: 0 }), name: Type.String() })),
      // A pair as JSON Schema 2020-12 writes it (TypeBox's Tuple uses the older array form of `items`).
      returns: Type.Array(
        Type.Unsafe<[string, number]>({
          type: 'array',
          prefixItems: [{ type: 'string' }, { type: 'integer', minimum: 0 }],
          minItems: 2,
          maxItems: 2,
        }),
      ),
      operators: Type.Array(Type.Object({ op: Type.String() }), { description: 'source first; nested plans are lists of the same shape' }),
      planner: Type.String(),
      notices: Type.Array(Type.Unknown()),
    },
    { additionalProperties: false },
  ),
  Health: Type.Object(
    {
      ready: Type.Boolean(),
      mode: Type.Union([Type.Literal('writer'), Type.Literal('reader'), Type.Literal('gateway')]),
      index_runtime: Type.String({ description: 'starting, ready or failed (a gateway: ready or rate_limit_unavailable)' }),
    },
    { additionalProperties: false },
  ),
  NamedQueryResponse: Type.Union([Type.Object({}), Type.Null()], {
    description: 'one key per RETURN item, shaped as the query says (docs/query-language.md); null for RETURN NONE',
  }),
  McpConnection: Type.Object({ connection_id: Type.String() }, { additionalProperties: false }),
};
