/**
 * What the MCP endpoint's tools tell agents, without a server: the JSON Schema of each
 * parameter type agrees with the parameter checks (src/hql/json-schema.ts against
 * params.ts), and the schema, index and counts descriptions of a schema (src/hql/describe.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRIMITIVE_TYPES, type TypeDef } from '../../src/hql/ast.js';
import { countsQuery, describeIndexes, describeSchema } from '../../src/hql/describe.js';
import { parametersSchema, typeSchema } from '../../src/hql/json-schema.js';
import { checkParameters } from '../../src/hql/params.js';
import { parse } from '../../src/hql/parser.js';
import { buildSchema } from '../../src/hql/schema.js';
import { parseJson } from '../../src/core/json.js';

function schemaOf(source: string) {
  const { file, errors } = parse(source);
  assert.deepEqual(errors, []);
  const built = buildSchema(file.types.map((item: TypeDef) => ({ file: 'schema.hx', item })));
  assert.deepEqual(built.problems, []);
  return built.schema;
}

function paramsOf(declared: string) {
  const { file, errors } = parse(`QUERY q(${declared}) =>\n RETURN NONE`);
  assert.deepEqual(errors, []);
  return file.queries[0]!.params;
}

test('an integer type: the bounds its JSON Schema gives are the ones the parameter check applies', () => {
  for (const type of PRIMITIVE_TYPES) {
    const schema = typeSchema({ kind: 'primitive', name: type, pos: { offset: 0, line: 1, column: 1 } });
    const bounds = type === 'ID' ? (schema.anyOf as Record<string, unknown>[])[0]! : schema;
    if (bounds.type !== 'integer') continue;
    const params = paramsOf(`v: ${type}`);
    const call = (n: bigint) => () => checkParameters(params, parseJson(`{"v": ${n}}`));
    if (typeof bounds.minimum === 'number') {
      assert.doesNotThrow(call(BigInt(bounds.minimum)), `${type} at its minimum`);
      assert.throws(call(BigInt(bounds.minimum) - 1n), /out of the range/, `${type} below its minimum`);
    }
    if (typeof bounds.maximum === 'number') {
      assert.doesNotThrow(call(BigInt(bounds.maximum)), `${type} at its maximum`);
      assert.throws(call(BigInt(bounds.maximum) + 1n), /out of the range/, `${type} above its maximum`);
    }
    // Every integer type says its exact range in words, bounds or not.
    assert.match(String(schema.description), /\d+/);
  }
});

test('parametersSchema: optional parameters are not required; no parameters is an empty object', () => {
  assert.deepEqual(parametersSchema(paramsOf('a: String, b?: [Boolean]')), {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'boolean' } } },
    required: ['a'],
    additionalProperties: false,
  });
  assert.deepEqual(parametersSchema([]), { type: 'object', properties: {}, additionalProperties: false });
});

const SCHEMA = `
N::Person {
    UNIQUE INDEX email: String,
    INDEX nick: String DEFAULT "anon",
    tags: [String],
}
E::Knows UNIQUE {
    From: Person,
    To: Person,
    Properties: { weight: F64 DEFAULT 1.5 }
}
V::Doc {
    INDEX topic: String,
}
`;

test('describeSchema: nodes, edges (ends, UNIQUE, properties) and vectors, each field with its type, index and default', () => {
  assert.deepEqual(describeSchema(schemaOf(SCHEMA)), {
    implicit_fields: { node: ['id', 'label'], edge: ['id', 'label', 'from_node', 'to_node'] },
    nodes: [
      {
        name: 'Person',
        fields: [
          { name: 'email', type: 'String', index: 'UNIQUE INDEX' },
          { name: 'nick', type: 'String', index: 'INDEX', default: '"anon"' },
          { name: 'tags', type: '[String]' },
        ],
      },
    ],
    edges: [{ name: 'Knows', from: 'Person', to: 'Person', unique: true, properties: [{ name: 'weight', type: 'F64', default: '1.5' }] }],
    vectors: [{ name: 'Doc', fields: [{ name: 'topic', type: 'String', index: 'INDEX' }] }],
  });
});

test('describeIndexes: every INDEX and UNIQUE INDEX field, vector types included', () => {
  assert.deepEqual(describeIndexes(schemaOf(SCHEMA)), [
    { type: 'Person', field: 'email', unique: true },
    { type: 'Person', field: 'nick', unique: false },
    { type: 'Doc', field: 'topic', unique: false },
  ]);
});

test('countsQuery: a read counting each node and edge type (not vectors); none without such types', () => {
  const counts = countsQuery(schemaOf(SCHEMA), 'trellis_counts')!;
  assert.deepEqual(counts.keys, [
    { key: 'n0', kind: 'nodes', type: 'Person' },
    { key: 'e0', kind: 'edges', type: 'Knows' },
  ]);
  assert.equal(counts.query.name, 'trellis_counts');
  assert.equal(counts.query.write, false);
  assert.deepEqual(counts.query.params, []);
  assert.deepEqual(counts.query.returnNames, ['n0', 'e0']);
  assert.equal(countsQuery(schemaOf('V::Doc { topic: String }'), 'trellis_counts'), null);
  assert.equal(countsQuery(schemaOf(''), 'trellis_counts'), null);
});
