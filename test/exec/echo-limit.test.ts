/**
 * Error messages quote at most about 200 characters of any one piece of client input
 * (src/core/clip.ts): a 64 KiB key, name, tag or string comes back cut and marked, from
 * every place that quotes one (JSON parser, wire decoding, static validation, execution).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphError, type ErrorCode } from '../../src/core/errors.js';
import { openTestDb, type TestDb } from '../helpers/embedded.js';

const N = 65536;
const LONG = 'k'.repeat(N);
const CUT = `${'k'.repeat(200)}…(cut, ${N} characters)`;
const DIGITS = '9'.repeat(300);

let t: TestDb;
before(async () => {
  t = await openTestDb();
});
after(() => t.close());

const all = { nodes: { reference: 'all' } };
const entry = (root: unknown, extra: Record<string, unknown> = {}) => ({ query: { name: 'r', root, ...extra } });
const text = (request: Record<string, unknown>) => JSON.stringify(request);
const req = (type: 'read' | 'write', entries: unknown[], returns: string[] = [], extra: Record<string, unknown> = {}) =>
  text({ request_type: type, query: { [type]: { entries, returns } }, ...extra });

/** [what, request text, code, what the msg quotes instead of the whole input] */
const CASES: [string, string, ErrorCode, string][] = [
  [
    'a duplicate JSON key',
    `{"request_type":"read","query":{"read":{"entries":[]}},"parameters":{"${LONG}":1,"${LONG}":2}}`,
    'invalid_query_json',
    `duplicate key "${CUT}"`,
  ],
  ['an unknown envelope key', text({ [LONG]: 1, request_type: 'read', query: { read: { entries: [] } } }), 'invalid_query_json', CUT],
  ['a second key of a tagged object', req('read', [{ query: { root: all }, [LONG]: 1 }]), 'invalid_query_json', `"query" and "${CUT}"`],
  ['an unknown operation', req('read', [entry({ [LONG]: {} })]), 'invalid_query_json', `unknown operation "${CUT}"`],
  [
    'an unknown expression',
    req('read', [entry({ nodes_where: { predicate: { compare: { left: { [LONG]: 1 }, op: 'eq', right: { constant: { i64: 1 } } } } } })]),
    'invalid_query_json',
    `unknown expression "${CUT}"`,
  ],
  ['an unknown predicate', req('read', [entry({ nodes_where: { predicate: { [LONG]: {} } } })]), 'invalid_query_json', `"${CUT}"`],
  ['an unknown reference', req('read', [entry({ nodes: { reference: { [LONG]: 1 } } })]), 'invalid_query_json', `"${CUT}"`],
  [
    'an unknown property value tag',
    req('write', [entry({ add_n: { label: 'L', properties: [['p', { value: { [LONG]: 1 } }]] } })]),
    'invalid_query_json',
    `tag "${CUT}"`,
  ],
  [
    'a property input tag',
    req('write', [entry({ add_n: { label: 'L', properties: [['p', { [LONG]: 1 }]] } })]),
    'invalid_query_json',
    `got "${CUT}"`,
  ],
  [
    'a key inside an object value (in the path)',
    req('write', [entry({ add_n: { label: 'L', properties: [['p', { value: { object: { [LONG]: { nope: 1 } } } }]] } })]),
    'invalid_query_json',
    `.object.${CUT}: unknown property value tag "nope"`,
  ],
  [
    'a stream bound tag',
    req('read', [entry({ range: { input: all, start: { [LONG]: 1 }, end: { literal: 2 } } })]),
    'invalid_query_json',
    `got "${CUT}"`,
  ],
  ['an unknown batch entry', req('read', [{ [LONG]: {} }]), 'invalid_query_json', `"${CUT}"`],
  ['an unknown batch condition', req('read', [entry(all, { condition: { [LONG]: 'x' } })]), 'invalid_query_json', `"${CUT}"`],
  ['an unknown batch kind', text({ request_type: 'read', query: { [LONG]: {} } }), 'invalid_query_json', `got "${CUT}"`],
  [
    'a string where another type belongs (quoted to 40 characters)',
    text({ request_type: LONG, query: { read: { entries: [] } } }),
    'invalid_query_json',
    `got the string "${'k'.repeat(40)}…(cut, ${N} characters)"`,
  ],
  [
    'an unknown parameter type',
    req('read', [], [], { parameters: { p: 1 }, parameter_types: { p: LONG } }),
    'invalid_query_json',
    `unknown parameter type "${CUT}"`,
  ],
  [
    'declared parameters that are not sent',
    req('read', [], [], { parameters: {}, parameter_types: { [LONG]: 'i64' } }),
    'invalid_query_json',
    `declared but not sent: ${CUT}`,
  ],
  [
    'a parameter name in the path',
    req('read', [], [], { parameters: { [LONG]: 'x' }, parameter_types: { [LONG]: 'bool' } }),
    'invalid_query_json',
    `parameters.${CUT}: declared bool`,
  ],
  [
    'a key inside an untyped parameter (in the path)',
    `{"request_type":"read","query":{"read":{"entries":[]}},"parameters":{"p":{"${LONG}":${DIGITS}}}}`,
    'invalid_query_json',
    `parameters.p.${CUT}: ${'9'.repeat(200)}…(cut, 300 characters) is outside the i64 range`,
  ],
  [
    'a long negative integer where an id belongs',
    `{"request_type":"read","query":{"read":{"entries":[{"query":{"root":{"nodes":{"reference":{"ids":[-${DIGITS}]}}}}}]}}}`,
    'invalid_query_json',
    `got -${'9'.repeat(199)}…(cut, 301 characters)`,
  ],
  [
    'a long integer beyond u64',
    `{"request_type":"read","query":{"read":{"entries":[{"query":{"root":{"nodes":{"reference":{"ids":[${DIGITS}]}}}}}]}}}`,
    'invalid_query_json',
    `${'9'.repeat(200)}…(cut, 300 characters) is larger than the largest u64`,
  ],
  ['an unknown return variable', req('read', [entry(all)], [LONG]), 'unknown_return_variable', `"${CUT}"`],
  [
    'a repeated return variable',
    req('read', [{ query: { name: LONG, root: all } }], [LONG, LONG]),
    'duplicate_return_variable',
    `"${CUT}" is listed twice`,
  ],
  ['an unbound parameter', req('read', [entry({ nodes: { reference: { param: LONG } } })]), 'invalid_query', `parameter "${CUT}"`],
  ['an unknown variable', req('read', [entry({ nodes: { reference: { var: LONG } } })]), 'unknown_variable', `variable "${CUT}"`],
  [
    'an unbound for_each parameter',
    req('write', [{ for_each: { param: LONG, body: [entry({ add_n: { label: 'L', properties: [] } })] } }]),
    'invalid_query',
    `parameter "${CUT}"`,
  ],
  [
    'a repeated property selection',
    req('read', [entry({ values: { input: all, properties: [LONG, LONG] } })]),
    'duplicate_property_selection',
    `property "${CUT}"`,
  ],
  [
    'a parameter that is not an id (found while running)',
    req('read', [entry({ nodes: { reference: { param: LONG } } })], [], { parameters: { [LONG]: 'x' } }),
    'invalid_query',
    `parameter "${CUT}" must hold`,
  ],
  [
    'a for_each parameter that is not an array (found while running)',
    req('write', [{ for_each: { param: LONG, body: [entry({ add_n: { label: 'L', properties: [] } })] } }], [], {
      parameters: { [LONG]: 5 },
    }),
    'invalid_query',
    `parameter "${CUT}" must be an array`,
  ],
];

for (const [what, request, code, quoted] of CASES) {
  test(`${what}: the msg quotes the input cut to 200 characters`, async () => {
    await assert.rejects(t.db.queryText(request), (err: unknown) => {
      assert.ok(err instanceof GraphError, String(err));
      assert.equal(err.code, code, err.msg.slice(0, 500));
      assert.ok(err.msg.includes(quoted), `expected ${JSON.stringify(quoted.slice(0, 60))}… in ${err.msg.slice(0, 500)}`);
      assert.ok(!err.msg.includes('k'.repeat(201)), 'no more than 200 characters of the input');
      assert.ok(err.msg.length < 1000, `msg of ${err.msg.length} characters`);
      return true;
    });
  });
}

test('short inputs are quoted whole, as before', async () => {
  await assert.rejects(t.db.queryText(req('read', [entry({ nodes: { reference: { var: 'nope' } } })])), (err: unknown) => {
    assert.ok(err instanceof GraphError);
    assert.match(err.msg, /variable "nope" is not bound/);
    return true;
  });
});
