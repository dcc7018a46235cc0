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

test('an integer type: the bounds its JSON Schema gives, and the range its description states, are the ones the parameter check applies', () => {
  const checked: [string, boolean, boolean][] = [];
  for (const type of PRIMITIVE_TYPES) {
    const schema = typeSchema({ kind: 'primitive', name: type, pos: { offset: 0, line: 1, column: 1 } });
    const bounds = type === 'ID' ? (schema.anyOf as Record<string, unknown>[])[0]! : schema;
    if (bounds.type !== 'integer') continue;
    const params = paramsOf(`v: ${type}`);
    const call = (n: bigint) => () => checkParameters(params, parseJson(`{"v": ${n}}`));
    const edges = (min: bigint | undefined, max: bigint | undefined, what: string) => {
      if (min !== undefined) {
        assert.doesNotThrow(call(min), `${type} at its ${what} minimum`);
        assert.throws(call(min - 1n), /out of the range/, `${type} below its ${what} minimum`);
      }
      if (max !== undefined) {
        assert.doesNotThrow(call(max), `${type} at its ${what} maximum`);
        assert.throws(call(max + 1n), /out of the range/, `${type} above its ${what} maximum`);
      }
    };
    const asBig = (n: unknown) => (typeof n === 'number' ? BigInt(n) : undefined);
    edges(asBig(bounds.minimum), asBig(bounds.maximum), 'schema');
    // Bounds a double cannot hold exactly are in the words instead: they must be exact too.
    const words = /from (-?\d+) to (\d+)$|up to (\d+) /.exec(String(schema.description));
    assert.ok(words !== null, `${type}: ${String(schema.description)}`);
    if (words[3] !== undefined) edges(0n, BigInt(words[3]), 'described');
    else edges(BigInt(words[1]!), BigInt(words[2]!), 'described');
    checked.push([type, bounds.minimum !== undefined, bounds.maximum !== undefined]);
  }
  assert.deepEqual(checked, [
    ['I8', true, true],
    ['I16', true, true],
    ['I32', true, true],
    ['I64', false, false],
    ['U8', true, true],
    ['U16', true, true],
    ['U32', true, true],
    ['U64', true, false],
    ['U128', true, false],
    ['ID', true, false],
  ]);
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
  assert.deepEqual(counts.query.batch.returns, ['n0', 'e0']);
  assert.equal(countsQuery(schemaOf('V::Doc { topic: String }'), 'trellis_counts'), null);
  assert.equal(countsQuery(schemaOf(''), 'trellis_counts'), null);
});
