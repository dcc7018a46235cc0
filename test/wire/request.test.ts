import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preparePlan } from '../../src/database.js';
import { GraphError } from '../../src/core/errors.js';
import { DateTime } from '../../src/core/value.js';

const read = (entries: unknown[], returns: string[] = [], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ request_type: 'read', query: { read: { entries, returns } }, ...extra });
const nodesAll = { query: { name: 'n', root: { nodes: { reference: 'all' } } } };

function rejects(body: string, code: string, msgPart?: string | RegExp): void {
  assert.throws(
    () => preparePlan(body),
    (err: unknown) => {
      assert.ok(err instanceof GraphError, `expected GraphError, got ${String(err)}`);
      assert.equal(err.code, code, err.msg);
      if (typeof msgPart === 'string') assert.ok(err.msg.includes(msgPart), `msg "${err.msg}" lacks "${msgPart}"`);
      else if (msgPart) assert.match(err.msg, msgPart);
      return true;
    },
  );
}

test('the contract example decodes: nodes_where on $label, count, returns', () => {
  const plan = preparePlan(
    read(
      [
        {
          query: {
            name: 'c',
            root: {
              count: {
                input: { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'User' } } } } } },
              },
            },
          },
        },
      ],
      ['c'],
    ),
  );
  assert.equal(plan.type, 'read');
  assert.equal(plan.batch.entries.length, 1);
  assert.deepEqual(plan.batch.returns, ['c']);
});

test('malformed JSON is invalid_query_json with a position', () => {
  rejects('{"request_type": "read",', 'invalid_query_json', /line 1 column/);
  rejects('', 'invalid_query_json');
  rejects('[1,2]', 'invalid_query_json', 'request: expected an object');
});

test('unknown keys are rejected everywhere, naming the JSON path', () => {
  rejects(read([nodesAll], [], { params: {} }), 'invalid_query_json', 'request: unknown key "params"');
  rejects(
    JSON.stringify({ request_type: 'read', query: { read: { entries: [nodesAll], returns: [], extra: 1 } } }),
    'invalid_query_json',
    'query.read: unknown key "extra"',
  );
  rejects(
    read([{ query: { name: 'n', root: { nodes: { reference: 'all' } }, foo: 1 } }]),
    'invalid_query_json',
    'query.read.entries[0].query: unknown key "foo"',
  );
  rejects(
    read([{ query: { name: 'c', root: { count: { input: { nodes: { reference: 'all' } }, foo: 1 } } } }]),
    'invalid_query_json',
    'query.read.entries[0].query.root.count: unknown key "foo"',
  );
});

test('an operation object with two keys is rejected', () => {
  rejects(read([{ query: { name: 'n', root: { nodes: { reference: 'all' }, count: {} } } }]), 'invalid_query_json', 'exactly one key');
});

test('unknown operation tags and wrong field types are rejected with their path', () => {
  rejects(read([{ query: { name: 'n', root: { teleport: {} } } }]), 'invalid_query_json', 'unknown operation "teleport"');
  rejects(
    read([{ query: { name: 'n', root: { nodes: { reference: { ids: ['1'] } } } } }]),
    'invalid_query_json',
    'query.read.entries[0].query.root.nodes.reference.ids[0]: expected a non-negative integer',
  );
  rejects(
    read([{ query: { name: 'n', root: { out: { input: { nodes: { reference: 'all' } }, label: 7 } } } }]),
    'invalid_query_json',
    'root.out.label: expected a string',
  );
  rejects(read([{ query: { name: 'n', root: { out: { label: 'X' } } } }]), 'invalid_query_json', 'missing required key "input"');
});

test('request_type must match the batch variant', () => {
  rejects(JSON.stringify({ request_type: 'write', query: { read: { entries: [nodesAll] } } }), 'invalid_query_json', 'must match');
  rejects(
    JSON.stringify({ request_type: 'delete', query: { read: { entries: [nodesAll] } } }),
    'invalid_query_json',
    'request.request_type',
  );
});

test('a mutation in a read batch is rejected at any depth', () => {
  const addN = { add_n: { label: 'User', properties: [] } };
  rejects(read([{ query: { name: 'a', root: addN } }]), 'mutation_in_read_batch', 'read batches cannot contain mutations');
  rejects(
    read([{ for_each: { param: 'rows', body: [{ query: { root: addN } }] } }], [], { parameters: { rows: [] } }),
    'mutation_in_read_batch',
    'for_each.body[0]',
  );
  rejects(
    read([
      {
        query: {
          name: 'u',
          root: {
            union: { input: { nodes: { reference: 'all' } }, traversals: [{ root: 'context' }, { root: { drop: { input: 'context' } } }] },
          },
        },
      },
    ]),
    'mutation_in_read_batch',
    'union.traversals[1].root.drop',
  );
});

test('parameter_types must match parameters exactly and use only contract types', () => {
  rejects(read([nodesAll], [], { parameter_types: { a: 'i64' } }), 'invalid_query_json', 'only allowed together with parameters');
  rejects(
    read([nodesAll], [], { parameters: { a: 1, b: 2 }, parameter_types: { a: 'i64', c: 'i64' } }),
    'invalid_query_json',
    /declared but not sent: c; sent but not declared: b/,
  );
  rejects(
    read([nodesAll], [], { parameters: { a: 1.5 }, parameter_types: { a: 'f64' } }),
    'invalid_query_json',
    'send floating-point numbers without parameter_types',
  );
  rejects(read([nodesAll], [], { parameters: { a: 1.5 }, parameter_types: { a: 'f32' } }), 'invalid_query_json', 'parameter_types.a');
  rejects(
    read([nodesAll], [], { parameters: { a: '5' }, parameter_types: { a: 'i64' } }),
    'invalid_query_json',
    'parameters.a: declared i64',
  );
  rejects(
    read([nodesAll], [], { parameters: { a: [1, 'x'] }, parameter_types: { a: { array: 'i64' } } }),
    'invalid_query_json',
    'parameters.a[1]',
  );
});

test('date_time parameters must be RFC 3339 and become real date-times (D7)', () => {
  rejects(
    read([nodesAll], [], { parameters: { t: '2026-13-01T00:00:00Z' }, parameter_types: { t: 'date_time' } }),
    'invalid_query_json',
    'RFC 3339',
  );
  rejects(
    read([nodesAll], [], { parameters: { t: 'yesterday' }, parameter_types: { t: 'date_time' } }),
    'invalid_query_json',
    'parameters.t',
  );
  const plan = preparePlan(read([nodesAll], [], { parameters: { t: '2026-01-01T01:00:00+01:00' }, parameter_types: { t: 'date_time' } }));
  const t = plan.params.get('t');
  assert.ok(t instanceof DateTime);
  assert.equal(t.ms, Date.UTC(2026, 0, 1));
});

test('integers beyond i64 are rejected; i64 beyond 2^53 keeps every digit', () => {
  rejects(
    '{"request_type":"read","query":{"read":{"entries":[{"query":{"root":{"nodes":{"reference":"all"}}}}]}},"parameters":{"a":9223372036854775808}}',
    'invalid_query_json',
    'outside the i64 range',
  );
  rejects(
    '{"request_type":"read","query":{"read":{"entries":[{"query":{"root":{"has":{"input":{"nodes":{"reference":"all"}},"property":"x","value":{"i64":-9223372036854775809}}}}}]}}}',
    'invalid_query_json',
    'outside the i64 range',
  );
  const plan = preparePlan(
    '{"request_type":"read","query":{"read":{"entries":[{"query":{"root":{"nodes":{"reference":"all"}}}}]}},"parameters":{"a":9223372036854775807,"f":5.0,"i":5}}',
  );
  assert.equal(plan.params.get('a'), 9223372036854775807n);
  assert.equal(plan.params.get('f'), 5);
  assert.equal(plan.params.get('i'), 5n);
});

test('static plan rules have their own codes', () => {
  const n = { nodes: { reference: 'all' } };
  rejects(read([]), 'invalid_batch_arity');
  rejects(read([nodesAll], ['n', 'n']), 'duplicate_return_variable', 'query.read.returns[1]');
  rejects(read([nodesAll], ['zzz']), 'unknown_return_variable', '"zzz"');
  rejects(read([nodesAll], ['']), 'invalid_empty_name');
  rejects(read([{ query: { name: 'n', root: n, condition: 'prev_not_empty' } }]), 'invalid_initial_batch_condition');
  rejects(read([nodesAll, { query: { name: 'm', root: n, condition: { var_min_size: ['n', 0] } } }]), 'invalid_batch_condition_min_size');
  rejects(read([{ query: { name: 'n', root: 'context' } }]), 'unbound_context');
  rejects(read([{ query: { name: 'n', root: { nodes: { reference: { ids: [1, 1] } } } } }]), 'duplicate_element_id');
  rejects(read([{ query: { name: 'n', root: { has_label: { input: n, label: '' } } } }]), 'invalid_empty_name', 'root.has_label.label');
  rejects(
    read([{ query: { name: 'n', root: { range: { input: n, start: { literal: 5 }, end: { literal: 2 } } } } }]),
    'invalid_stream_range',
  );
  rejects(
    read([{ query: { name: 'n', root: { limit: { input: n, count: { expr: { constant: { i64: -1 } } } } } } }]),
    'invalid_stream_bound_expression',
  );
  rejects(read([{ query: { name: 'n', root: { and: {} } } }]), 'invalid_query_json');
  rejects(
    read([{ query: { name: 'n', root: { where: { input: n, predicate: { and: { predicates: [] } } } } } }]),
    'invalid_predicate_arity',
  );
  rejects(
    read([{ query: { name: 'n', root: { out: { input: { count: { input: n } } } } } }]),
    'internal_planner_error',
    'cannot follow "count"',
  );
  rejects(read([{ query: { name: 'n', root: { value_map: { input: n, properties: ['a', 'a'] } } } }]), 'duplicate_property_selection');
  rejects(
    JSON.stringify({
      request_type: 'write',
      query: {
        write: {
          entries: [
            {
              query: {
                name: 'a',
                root: {
                  add_n: {
                    label: 'U',
                    properties: [
                      ['x', { value: 'null' }],
                      ['x', { value: 'null' }],
                    ],
                  },
                },
              },
            },
          ],
        },
      },
    }),
    'duplicate_property_assignment',
  );
  rejects(
    JSON.stringify({
      request_type: 'write',
      query: { write: { entries: [{ query: { name: 'a', root: { bind: { input: n, name: 'b' } } } }] } },
    }),
    'read_only_traversal_in_write_batch',
  );
});

test('limit over a value list is allowed; a node step after value_map is not', () => {
  const n = { nodes: { reference: 'all' } };
  preparePlan(read([{ query: { name: 'v', root: { limit: { input: { value_map: { input: n } }, count: { literal: 1 } } } } }], ['v']));
  rejects(
    read([{ query: { name: 'v', root: { out: { input: { limit: { input: { value_map: { input: n } }, count: { literal: 1 } } } } } } }]),
    'internal_planner_error',
  );
});

test('every variable a batch reads must be bound somewhere in it', () => {
  const n = { nodes: { reference: 'all' } };
  rejects(
    read([{ query: { name: 'a', root: { nodes: { reference: { var: 'ghost' } } } } }]),
    'unknown_variable',
    'root.nodes.reference.var: variable "ghost"',
  );
  rejects(
    read([nodesAll, { query: { name: 'm', root: n, condition: { var_empty: 'gost' } } }]),
    'unknown_variable',
    'entries[1].query.condition',
  );
  rejects(read([{ query: { name: 'a', root: { within: { input: n, variable: 'x' } } } }]), 'unknown_variable', 'root.within.variable');
  // Bound by an entry, by as/store, or inside a for_each body: all fine.
  preparePlan(read([nodesAll, { query: { name: 'b', root: { within: { input: n, variable: 'n' } } } }]));
  preparePlan(read([{ query: { name: 'a', root: { select: { input: { as: { input: n, name: 's' } }, name: 's' } } } }]));
  preparePlan(
    read([{ for_each: { param: 'p', body: [nodesAll] } }, { query: { name: 'c', root: { nodes: { reference: { var: 'n' } } } } }], [], {
      parameters: { p: [] },
    }),
  );
});

test('ids beyond 2^53 are distinct, decode, and name no element', () => {
  const body =
    '{"request_type":"read","query":{"read":{"entries":[{"query":{"name":"n","root":{"nodes":{"reference":{"ids":[9007199254740993,9007199254740995]}}}}}],"returns":["n"]}}}';
  const plan = preparePlan(body);
  assert.equal(plan.batch.entries.length, 1);
  rejects(body.replace('9007199254740995', '9007199254740993'), 'duplicate_element_id', 'id 9007199254740993 appears more than once');
});
