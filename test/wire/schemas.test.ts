/**
 * The JSON Schemas the wire decoders carry (src/wire/schema.ts), which the OpenAPI
 * document publishes: every variant a schema declares is one its decoder knows, a made-up
 * tag is refused by both, every successful request of docs/queries.md and README.md passes
 * the request schema, and bodies the decoder refuses for their shape fail it too.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseJson } from '../../src/core/json.js';
import { expressionDecoders } from '../../src/wire/expr.js';
import { elementRef } from '../../src/wire/expr.js';
import { indexSpec } from '../../src/wire/index-ops.js';
import { OPS, planNode } from '../../src/wire/ops.js';
import { decodeRequest, queryRequestSchema } from '../../src/wire/request.js';
import { COMPONENTS, type Field, type JsonSchema } from '../../src/wire/schema.js';
import { paramType, propertyValue } from '../../src/wire/values.js';
import { examples } from '../helpers/doc-examples.js';

const ROOT = new URL('../../../', import.meta.url);
const read = (file: string) => readFileSync(fileURLToPath(new URL(file, ROOT)), 'utf8');

function components(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, full] of COMPONENTS) out[name] = full();
  out.QueryRequest = queryRequestSchema();
  return out;
}

/** A validator of `#/components/schemas/<name>` within the whole set of components. */
function validator(name: string): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  ajv.addSchema({ $id: 'trellis', components: { schemas: components() } });
  return ajv.compile({ $ref: `trellis#/components/schemas/${name}` });
}

/** The unit tags and object tags a tagged-union schema declares. */
function variants(schema: JsonSchema): { units: string[]; tags: string[] } {
  const units: string[] = [];
  const tags: string[] = [];
  for (const option of schema.anyOf as JsonSchema[]) {
    if (Array.isArray(option.enum)) units.push(...(option.enum as string[]));
    else tags.push(...Object.keys(option.properties as object));
  }
  return { units, tags };
}

/** A refusal of the tag itself, at the decoded value's own path `x` (not of something inside it). */
const UNKNOWN =
  /^[a-z_]+: x: (?:unknown (?:operation|expression|predicate|property value tag|reference|index kind|batch entry|projection|binding)|expected "value" or "expr"|expected "literal" or "expr"|expected a parameter type)/;

/** Decodes `json`; the message of the refusal, or null. */
function refusal(field: Field<unknown>, json: unknown): string | null {
  try {
    field(json, 'x');
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

test('every variant a tagged schema declares is one its decoder knows, and an unknown tag is refused by the decoder', () => {
  const { expr, predicate, propertyInput, streamBound } = expressionDecoders(planNode);
  const decoders: Record<string, Field<unknown>> = {
    Operation: planNode,
    Expression: expr,
    Predicate: predicate,
    PropertyInput: propertyInput,
    StreamBound: streamBound,
    ElementRef: elementRef,
    PropertyValue: propertyValue,
    IndexSpec: indexSpec,
  };
  const all = components();
  for (const [name, decode] of Object.entries(decoders)) {
    const { units, tags } = variants(all[name]!);
    assert.ok(units.length + tags.length > 0, name);
    for (const unit of units) assert.doesNotMatch(refusal(decode, unit) ?? '', UNKNOWN, `${name}: "${unit}"`);
    for (const tag of tags) {
      for (const payload of [{}, null, 1n, 'x', []])
        assert.doesNotMatch(refusal(decode, { [tag]: payload }) ?? '', UNKNOWN, `${name}: ${tag}`);
    }
    assert.match(refusal(decode, { no_such_variant: {} }) ?? '', UNKNOWN, `${name}: a made-up tag`);
  }
  assert.match(refusal(paramType, { tuple: 'i64' }) ?? '', UNKNOWN);
});

test('the operation schema lists every kind of OPS but the two that are no JSON object', () => {
  const { units, tags } = variants(components().Operation!);
  assert.deepEqual(units, ['context']);
  assert.deepEqual(
    tags.sort(),
    Object.keys(OPS)
      .filter((k) => k !== 'context' && k !== 'table')
      .sort(),
  );
});

test('every successful request of docs/queries.md and README.md passes the request schema', () => {
  const valid = validator('QueryRequest');
  const bodies = examples(read('docs/queries.md'))
    .filter((ex) => ex.response.status === 200)
    .map((ex) => ex.request);
  for (const m of read('README.md').matchAll(/^curl [^\n]*?-d '([^']*)'\n# \{/gm)) bodies.push(m[1]!);
  assert.ok(bodies.length >= 15, `${bodies.length} bodies`);
  for (const body of bodies) {
    const json = JSON.parse(body) as unknown;
    assert.doesNotThrow(() => decodeRequest(parseJson(body)), body);
    assert.ok(valid(json), `the schema refuses a request the server runs:\n${body}\n${JSON.stringify(valid.length)}`);
  }
});

const read1 = (root: unknown) => ({ request_type: 'read', query: { read: { entries: [{ query: { name: 'x', root } }], returns: ['x'] } } });

test('the Trellis extensions of expressions, searches, sorts and paths pass the request schema (math, cast, ef, missing_index, order_by expr, a path per input row)', () => {
  const valid = validator('QueryRequest');
  const pow = { math: { function: 'pow', args: [{ property: 'km' }, { constant: { i64: 2 } }] } };
  const bodies: unknown[] = [
    read1({ project: { input: { nodes: { reference: 'all' } }, projections: [{ expr: { alias: 'p', expr: pow } }] } }),
    read1({ order_by: { input: { nodes: { reference: 'all' } }, expr: { math: { function: 'pi' } }, order: 'asc' } }),
    read1({ order_by: { input: { nodes: { reference: 'all' } }, expr: { cast: { expr: { property: 'n' }, to: 'u32' } }, order: 'asc' } }),
    read1({
      weighted_shortest_path: { source: { ids: [0] }, target: { ids: [1] }, direction: 'out', weight: pow, heuristic: 'h' },
    }),
    read1({
      shortest_path: { input: { nodes: { reference: 'all' } }, source: 'input', target: { ids: [1] }, direction: 'out', max_depth: 4 },
    }),
    read1({
      project: {
        input: { nodes: { reference: 'all' } },
        projections: [
          {
            expr: {
              alias: 'route',
              expr: {
                traversal: {
                  root: {
                    weighted_shortest_path: { input: 'context', source: { param: 'from' }, target: 'input', direction: 'out', weight: pow },
                  },
                  first: true,
                },
              },
            },
          },
        ],
      },
    }),
    read1({
      vector_search_nodes: {
        label: 'Doc',
        property: 'v',
        query_vector: { value: { f32_array: [1, 0] } },
        k: { literal: 2 },
        ef: { literal: 64 },
        missing_index: 'empty',
      },
    }),
  ];
  for (const body of bodies) {
    assert.doesNotThrow(() => decodeRequest(parseJson(JSON.stringify(body))), JSON.stringify(body));
    assert.ok(valid(body), `the schema refuses a request the server runs:\n${JSON.stringify(body)}`);
  }
});

test('bodies the decoder refuses for their shape fail the schema too', () => {
  const valid = validator('QueryRequest');
  const labelIs = { eq: { left: { property: '$label' }, right: { constant: { string: 'User' } } } };
  assert.ok(valid(read1({ nodes_where: { predicate: labelIs } })), 'the base case is valid');
  const bad: unknown[] = [
    read1({ no_such_op: {} }),
    read1({ nodes_where: { predicate: labelIs, extra: 1 } }),
    read1({ nodes_where: {} }),
    read1({ limit: { input: 'context', count: { literal: -1 } } }),
    read1({ nodes_where: { predicate: { eq: { left: { property: '' }, right: { constant: { string: 'x' } } } } } }),
    read1({ nodes_where: { predicate: { eq: { left: { nope: 1 }, right: { constant: { string: 'x' } } } } } }),
    read1({ nodes_where: { predicate: { eq: { left: { property: 'a' }, right: { constant: { int: 1 } } } } } }),
    read1({ nodes: { reference: { ids: ['1'] } } }),
    read1({ shortest_path: { source: 'inputs', target: { ids: [1] }, direction: 'out', max_depth: 4 } }),
    read1({ create_index: { spec: { node_vector: { label: 'A', property: 'v', dimension: 0, metric: 'cosine' } } } }),
    { request_type: 'read', query: { write: { entries: [] } } },
    { request_type: 'read', query: { read: { entries: [] } }, surprise: true },
    { request_type: 'maybe', query: { read: { entries: [] } } },
    { request_type: 'read', query: { read: { entries: [] } }, parameters: [] },
    { request_type: 'read', query: { read: { entries: [] } }, parameters: {}, parameter_types: { a: 'f64' } },
  ];
  for (const body of bad) {
    assert.throws(() => decodeRequest(parseJson(JSON.stringify(body))), /./, JSON.stringify(body));
    assert.equal(valid(body), false, `the schema accepts a body the server refuses:\n${JSON.stringify(body)}`);
  }
});
