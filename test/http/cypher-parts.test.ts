/**
 * The parts of the Cypher routes that need no server: the body decoder and its lossless
 * envelopes, the plan cache, explain, the pipeline's order of checks (database.ts
 * answerCypher, with statements placed in the plan cache by hand until the lowering
 * exists), the route table, the msgpack trip of a table plan to the writer, the read
 * pool's frames and the `cypher` setting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCypherRequest, decodeParameter } from '../../src/cypher/request.js';
import { PlanCache, planCache } from '../../src/cypher/plan-cache.js';
import { compileCypher } from '../../src/cypher/compile.js';
import { explainCypher, explainJson } from '../../src/cypher/explain.js';
import type { CompiledCypher } from '../../src/cypher/compile.js';
import type { TableNode, TableStatement } from '../../src/plan/table.js';
import type { PlanNode } from '../../src/plan/ops.js';
import type { QueryPlan } from '../../src/plan/batch.js';
import { answerCypher, type QueryAnswer } from '../../src/database.js';
import { CypherError, GraphError } from '../../src/core/errors.js';
import { parseJson } from '../../src/core/json.js';
import { MIN_TABLE_ROWS, tableArray, tableOf } from '../../src/core/row-table.js';
import type { Value } from '../../src/core/value.js';
import { decodeMessage, encodeMessage, fromPlanMessage, toPlanMessage } from '../../src/protocol/codec.js';
import type { PlanMessage } from '../../src/protocol/messages.js';
import { decodeTask, encodeTask } from '../../src/protocol/frames.js';
import { createHandler, serverRoutes } from '../../src/server/handle.js';
import { createRouter } from '../../src/server/routes.js';
import type { HttpRequest } from '../../src/server/http-types.js';
import type { QueryService } from '../../src/server/service.js';
import type { PipelineOptions } from '../../src/core/request-options.js';
import { loadConfig } from '../../src/config.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const json = (text: string) => parseJson(text, { tables: { minRows: MIN_TABLE_ROWS, make: tableArray } });
const decode = (text: string) => decodeCypherRequest(json(text));
const params = (p: string) => decode(`{"query":"RETURN 1","parameters":${p}}`).parameters;

function invalidJson(fn: () => unknown, msg: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof GraphError && !(err instanceof CypherError), String(err));
    assert.equal(err.code, 'invalid_query_json');
    assert.match(err.msg, msg);
    return true;
  });
}

// ---- the body ----

test('request: query, parameters and query_name; parameters plain JSON, integers exact and apart from floats', () => {
  const r = decode('{"query":"RETURN $a","parameters":{"a":1,"b":1.0,"c":[1,"x",null,true],"d":{"e":{"f":2.5}}},"query_name":"q"}');
  assert.equal(r.query, 'RETURN $a');
  assert.equal(r.queryName, 'q');
  assert.deepEqual(Object.fromEntries(r.parameters), { a: 1n, b: 1, c: [1n, 'x', null, true], d: { e: { f: 2.5 } } });
  const bare = decode('{"query":"RETURN 1"}');
  assert.equal(bare.parameters.size, 0);
  assert.equal(bare.queryName, null);
  assert.equal(decode('{"query":"RETURN 1","parameters":null,"query_name":null}').parameters.size, 0);
});

test('request: the lossless envelopes, at any depth in lists and maps', () => {
  const p = params(
    '{"big":{"$type":"integer","value":"1152921504606846976"},' +
      '"min":{"$type":"integer","value":"-9223372036854775808"},"max":{"$type":"integer","value":"9223372036854775807"},' +
      '"nan":{"$type":"float","value":"NaN"},"inf":{"$type":"float","value":"Infinity"},"ninf":{"$type":"float","value":"-Infinity"},' +
      '"f":{"$type":"float","value":3},' +
      '"list":[{"$type":"integer","value":"-5"},[{"$type":"float","value":"NaN"}]],' +
      '"map":{"a":{"$type":"integer","value":"7"},"b":[{"c":{"$type":"float","value":"Infinity"}}]}}',
  );
  assert.equal(p.get('big'), 2n ** 60n);
  assert.equal(p.get('min'), -(2n ** 63n));
  assert.equal(p.get('max'), 2n ** 63n - 1n);
  assert.ok(Number.isNaN(p.get('nan')));
  assert.equal(p.get('inf'), Infinity);
  assert.equal(p.get('ninf'), -Infinity);
  assert.equal(p.get('f'), 3);
  assert.equal(typeof p.get('f'), 'number');
  assert.deepEqual(p.get('list'), [-5n, [NaN]]);
  assert.deepEqual(p.get('map'), { a: 7n, b: [{ c: Infinity }] });
});

test('request: a map envelope takes its keys as written, so a map may hold keys that look like envelopes', () => {
  const p = params(
    '{"m":{"$type":"map","value":{"$type":"integer","value":"x"}},' +
      '"n":{"$type":"map","value":{"$type":{"$type":"integer","value":"1"},"other":{"$type":"map","value":{}}}},' +
      '"e":{"$type":"map","value":{}}}',
  );
  assert.deepEqual(p.get('m'), { $type: 'integer', value: 'x' });
  // Keys are literal, values are decoded.
  assert.deepEqual(p.get('n'), { $type: 1n, other: {} });
  assert.deepEqual(p.get('e'), {});
  const proto = params('{"m":{"$type":"map","value":{"__proto__":{"$type":"integer","value":"1"}}}}').get('m') as Record<string, Value>;
  assert.deepEqual(Object.keys(proto), ['__proto__']);
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
});

test('request: bad envelopes and out-of-range integers are 400 invalid_query_json naming the JSON path', () => {
  invalidJson(() => params('{"x":{"$type":"date","value":"2020-01-01"}}'), /^parameters\.x: unknown "\$type" "date"/);
  invalidJson(() => params('{"x":[1,{"$type":"integer","value":"1","extra":1}]}'), /^parameters\.x\[1\]: .*the key "extra"/);
  invalidJson(() => params('{"x":{"$type":"integer"}}'), /^parameters\.x: the envelope has no "value"/);
  invalidJson(() => params('{"x":{"$type":"integer","value":5}}'), /decimal integer in a string/);
  invalidJson(() => params('{"x":{"$type":"integer","value":"0x10"}}'), /decimal integer in a string/);
  invalidJson(() => params('{"x":{"$type":"integer","value":"+1"}}'), /decimal integer in a string/);
  invalidJson(() => params('{"x":{"$type":"integer","value":"9223372036854775808"}}'), /outside the 64-bit range/);
  invalidJson(() => params('{"x":{"$type":"integer","value":"-9223372036854775809"}}'), /outside the 64-bit range/);
  invalidJson(() => params('{"x":{"y":[9223372036854775808]}}'), /^parameters\.x\.y\[0\]: the integer 9223372036854775808 is outside/);
  invalidJson(() => params('{"x":18446744073709551615}'), /outside the 64-bit range/);
  invalidJson(() => params('{"x":{"$type":"float","value":"nan"}}'), /"NaN", "Infinity", "-Infinity" or a JSON number/);
  invalidJson(() => params('{"x":{"$type":"map","value":[1]}}'), /map envelope's "value" must be a JSON object/);
  invalidJson(() => params('{"x":{"$type":null,"value":1}}'), /unknown "\$type" null/);
  invalidJson(() => params('{"odd key":{"$type":"x","value":1}}'), /^parameters\["odd key"\]: unknown/);
  invalidJson(() => params('{"x":{"$type":"map","value":{"a b":{"$type":"x","value":1}}}}'), /^parameters\.x\["a b"\]: unknown/);
});

test('request: the body shape: unknown keys, a missing or non-string query, bad parameters or query_name', () => {
  invalidJson(() => decode('{"query":"RETURN 1","params":{}}'), /unknown key "params"/);
  invalidJson(() => decode('{"parameters":{}}'), /the body has no "query"/);
  invalidJson(() => decode('{"query":1}'), /"query" must be a string/);
  invalidJson(() => decode('[]'), /must be a JSON object/);
  invalidJson(() => decode('"RETURN 1"'), /must be a JSON object/);
  invalidJson(() => decode('{"query":"RETURN 1","parameters":[1]}'), /"parameters" must be an object/);
  invalidJson(() => decode('{"query":"RETURN 1","query_name":5}'), /"query_name" must be a string or null/);
});

test('request: a bulk parameter read as a row table stays one; a table hiding envelopes is decoded', () => {
  const rows = Array.from({ length: MIN_TABLE_ROWS + 6 }, (_, i) => `{"id":${i},"name":"n${i}","w":${i}.5}`);
  const plain = json(`[${rows.join(',')}]`) as Value;
  assert.ok(tableOf(plain) !== undefined, 'the parser made a table');
  assert.equal(decodeParameter(plain, 'p'), plain);
  const tagged = json(`[${rows.map((_, i) => `{"$type":"integer","value":"${i}"}`).join(',')}]`) as Value;
  assert.deepEqual(
    decodeParameter(tagged, 'p'),
    rows.map((_, i) => BigInt(i)),
  );
  const big = json(`[${rows.map((_, i) => `{"id":${i === 3 ? '9223372036854775808' : i}}`).join(',')}]`) as Value;
  invalidJson(() => decodeParameter(big, 'p'), /^p\[3\]\.id: the integer 9223372036854775808 is outside/);
});

// ---- the plan cache ----

const statement = (root: TableNode, columns: [string, number][] = [], slotCount = 0): TableStatement => ({ root, columns, slotCount });
const compiledOf = (
  effect: 'read' | 'write',
  root: TableNode,
  parameters: string[] = [],
  columns: [string, number][] = [],
  slotCount = 0,
) => {
  // The compiler names every slot; here only the result columns' slots are named.
  const slotNames = Array.from({ length: slotCount }, (_, slot) => columns.find(([, s]) => s === slot)?.[0] ?? null);
  return { effect, statement: statement(root, columns, slotCount), parameters, slotNames } satisfies CompiledCypher;
};

test('plan cache: compiles a text once, keeps the most recently used, bounded by entries and by characters', () => {
  const compiled: string[] = [];
  const cache = new PlanCache(
    (text) => {
      compiled.push(text);
      if (text === 'bad') throw new Error('no');
      return compiledOf('read', { t: 'unit' });
    },
    { entries: 3, chars: 20, maxTextChars: 8 },
  );
  const a = cache.get('a');
  assert.equal(cache.get('a'), a, 'the same compiled statement');
  cache.get('b');
  cache.get('c');
  cache.get('a'); // a is now the most recent
  cache.get('d'); // evicts b
  cache.get('b');
  assert.deepEqual(compiled, ['a', 'b', 'c', 'd', 'b']);
  assert.deepEqual(cache.stats(), { entries: 3, chars: 3, hits: 2, misses: 5 });
  cache.get('longer than eight');
  cache.get('longer than eight');
  assert.equal(compiled.filter((t) => t === 'longer than eight').length, 2, 'long texts are never kept');
  assert.throws(() => cache.get('bad'));
  assert.throws(() => cache.get('bad'));
  assert.equal(compiled.filter((t) => t === 'bad').length, 2, 'failures are not kept');
  cache.clear();
  for (const t of ['1234567', '2345678', '3456789']) cache.get(t);
  assert.deepEqual(cache.stats().entries, 2, 'the characters bound holds');
  assert.ok(cache.stats().chars <= 20);
});

test('plan cache: a syntax error becomes syntax_error with details {detail, phase: compile, span} in UTF-8 bytes', () => {
  const text = "RETURN 'é€' AS x, )";
  assert.throws(
    () => compileCypher(text),
    (err: unknown) => {
      assert.ok(err instanceof CypherError);
      assert.equal(err.code, 'syntax_error');
      assert.deepEqual(err.details, { detail: 'UnexpectedSyntax', phase: 'compile', span: { start: 21, end: 22 } });
      assert.equal(Buffer.byteLength(text.slice(0, text.indexOf(')'))), 21);
      return true;
    },
  );
});

// ---- explain ----

const nodesWhere = {
  op: 'nodes_where',
  path: '$',
  predicate: { p: 'compare', op: 'eq', left: { e: 'property', name: '$label' }, right: { e: 'constant', value: 'Person' } },
} as unknown as PlanNode;

/** MATCH (a:Person)-[r:KNOWS]->(b) WHERE a.age > $min OPTIONAL MATCH (b)-->(c) RETURN a.name AS name, count(DISTINCT c) AS n ORDER BY n DESC LIMIT 10 */
const readPlan: TableNode = {
  t: 'limit',
  count: { k: 'literal', value: 10n },
  at: null,
  input: {
    t: 'sort',
    keys: [{ expr: { k: 'slot', slot: 5 }, descending: true }],
    input: {
      t: 'aggregate',
      keys: [[4, { k: 'property', object: { k: 'slot', slot: 0 }, key: 'name', at: null }]],
      aggregations: [{ slot: 5, fn: 'count', distinct: true, args: [{ k: 'slot', slot: 3 }], at: null }],
      input: {
        t: 'optional',
        slots: [3],
        body: {
          t: 'expand',
          input: { t: 'argument' },
          from: 2,
          rel: 6,
          to: 3,
          toBound: false,
          relBound: false,
          types: [],
          direction: 'out',
          properties: [],
          length: null,
          distinctFrom: [],
        },
        input: {
          t: 'filter',
          predicate: {
            k: 'compare',
            ops: ['>'],
            operands: [
              { k: 'property', object: { k: 'slot', slot: 0 }, key: 'age', at: null },
              { k: 'param', name: 'min', at: null },
            ],
            at: null,
          },
          input: {
            t: 'expand',
            from: 0,
            rel: 1,
            to: 2,
            toBound: false,
            relBound: false,
            types: ['KNOWS'],
            direction: 'out',
            properties: [['since', { k: 'literal', value: 2020n }]],
            length: null,
            distinctFrom: [],
            input: { t: 'from_traversal', input: { t: 'unit' }, root: nodesWhere, slot: 0, kind: 'node' },
          },
        },
      },
    },
  },
};

test('explain: effect, every slot as a binding, returns, operators source first with their fields and nested plans', () => {
  const compiled = compiledOf(
    'read',
    readPlan,
    ['min'],
    [
      ['name', 4],
      ['n', 5],
    ],
    7,
  );
  const explained = explainCypher(compiled);
  assert.deepEqual(JSON.parse(explainJson(compiled)), explained, 'the body is the explanation as JSON');
  assert.equal(explained.effect, 'Read');
  assert.equal(explained.planner, 'trellis-table-v1');
  assert.deepEqual(explained.notices, []);
  assert.deepEqual(explained.returns, [
    ['name', 4],
    ['n', 5],
  ]);
  // Bindings name each slot as the compiler did.
  assert.deepEqual(
    explained.bindings,
    [null, null, null, null, 'name', 'n', null].map((name, slot) => ({ slot, name })),
  );
  assert.deepEqual(
    explained.operators.map((o) => o.op),
    ['unit', 'from_traversal', 'expand', 'filter', 'optional', 'aggregate', 'sort', 'limit'],
  );
  const [, from, expand, filter, optional, aggregate, sort, limit] = explained.operators;
  assert.deepEqual(from, {
    op: 'from_traversal',
    slot: 0,
    kind: 'node',
    traversal: [
      {
        op: 'nodes_where',
        detail: '{"predicate":{"p":"compare","op":"eq","left":{"e":"property","name":"$label"},"right":{"e":"constant","value":"Person"}}}',
      },
    ],
  });
  assert.deepEqual(expand, {
    op: 'expand',
    from: 0,
    rel: 1,
    to: 2,
    types: ['KNOWS'],
    direction: 'out',
    length: null,
    toBound: false,
    relBound: false,
    properties: [['since', '2020']],
  });
  assert.deepEqual(filter, { op: 'filter', predicate: '(#0.age > $min)' });
  assert.deepEqual(optional, {
    op: 'optional',
    slots: [3],
    body: [
      { op: 'argument' },
      { op: 'expand', from: 2, rel: 6, to: 3, types: [], direction: 'out', length: null, toBound: false, relBound: false },
    ],
  });
  assert.deepEqual(aggregate, { op: 'aggregate', keys: [[4, '#0.name']], aggregations: [[5, 'count(DISTINCT #3)']] });
  assert.deepEqual(sort, { op: 'sort', keys: ['n DESC'] });
  assert.deepEqual(limit, { op: 'limit', count: '10' });
});

test('explain: slot names from the compiler when it gives them; writes; union, merge, foreach and subqueries nest', () => {
  const create = {
    nodes: [{ slot: 0, label: 'A', properties: [['x', { k: 'literal', value: 1.5 }]] as const, propertyMap: null, bound: false }],
    rels: [],
    paths: [],
  };
  const root: TableNode = {
    t: 'foreach',
    slot: 1,
    list: {
      k: 'list',
      items: [
        { k: 'literal', value: 1n },
        { k: 'literal', value: null },
      ],
    },
    body: {
      t: 'set',
      input: { t: 'argument' },
      actions: [{ kind: 'merge', slot: 0, value: { k: 'map', entries: [['y', { k: 'slot', slot: 1 }]] }, at: null }],
    },
    input: {
      t: 'merge',
      input: {
        t: 'filter',
        predicate: {
          k: 'subquery',
          plan: { t: 'scan', input: { t: 'argument' }, slot: 2, label: 'B', id: null },
          project: null,
          exists: true,
        },
        input: { t: 'union', all: false, branches: [{ t: 'unit' }, { t: 'unit' }] },
      },
      match: { t: 'scan', input: { t: 'argument' }, slot: 0, label: 'A', id: null },
      create,
      onMatch: [{ kind: 'property', object: { k: 'slot', slot: 0 }, key: 'seen', value: { k: 'literal', value: true }, at: null }],
      onCreate: [{ kind: 'remove_property', object: { k: 'slot', slot: 0 }, key: 'seen', at: null }],
    },
  };
  const compiled = { ...compiledOf('write', root, [], [], 3), slotNames: ['a', 'x'] } as CompiledCypher;
  const e = explainCypher(compiled);
  assert.equal(e.effect, 'Write');
  assert.deepEqual(e.bindings, [
    { slot: 0, name: 'a' },
    { slot: 1, name: 'x' },
    { slot: 2, name: null },
  ]);
  assert.deepEqual(e.operators, [
    { op: 'union', all: false, branches: [[{ op: 'unit' }], [{ op: 'unit' }]] },
    { op: 'filter', predicate: 'exists(subquery[0])', subqueries: [[{ op: 'argument' }, { op: 'scan', slot: 2, label: 'B' }]] },
    {
      op: 'merge',
      match: [{ op: 'argument' }, { op: 'scan', slot: 0, label: 'A' }],
      create: { nodes: [{ slot: 0, label: 'A', bound: false, properties: [['x', '1.5']] }], rels: [], paths: [] },
      onMatch: ['a.seen = true'],
      onCreate: ['REMOVE a.seen'],
    },
    { op: 'foreach', slot: 1, list: '[1, null]', body: [{ op: 'argument' }, { op: 'set', actions: ['a += {y: x}'] }] },
  ]);
});

test('explain: expressions written back as text', () => {
  const s = (slot: number) => ({ k: 'slot', slot }) as const;
  const lit = (value: null | boolean | bigint | number | string) => ({ k: 'literal', value }) as const;
  const project: TableNode = {
    t: 'project',
    only: true,
    distinct: true,
    input: { t: 'unit' },
    items: [
      [0, { k: 'arith', op: '/', left: lit(1n), right: lit(0n), at: null }],
      [1, { k: 'and', left: { k: 'not', operand: lit(true), at: null }, right: { k: 'is_null', operand: s(0), negated: true }, at: null }],
      [2, { k: 'string_op', op: 'startsWith', left: lit('a"b'), right: lit('a'), at: null }],
      [3, { k: 'call', name: 'tolower', args: [{ k: 'index', object: s(0), index: lit(-1n), at: null }], at: null }],
      [4, { k: 'case', subject: null, alternatives: [[lit(true), lit(1.0)]], otherwise: lit(Number.NaN) }],
      [
        5,
        {
          k: 'list_comprehension',
          slot: 6,
          list: { k: 'slice', object: s(0), from: null, to: lit(2n), at: null },
          where: null,
          project: s(6),
          at: null,
        },
      ],
      [7, { k: 'has_labels', object: s(0), labels: ['A', 'B'], at: null }],
      [8, { k: 'literal', value: [1n, -0, [Infinity]] }],
      [
        9,
        {
          k: 'map_projection',
          object: s(0),
          items: [{ kind: 'property', key: 'x' }, { kind: 'all' }, { kind: 'entry', key: 'y', value: lit(2n) }],
          at: null,
        },
      ],
      [
        10,
        { k: 'reduce', accumulator: 11, init: lit(0n), slot: 12, list: s(0), step: { k: 'negate', operand: s(12), at: null }, at: null },
      ],
      [
        13,
        { k: 'quantifier', quantifier: 'any', slot: 14, list: s(0), predicate: { k: 'in', left: s(14), right: s(0), at: null }, at: null },
      ],
    ],
  };
  const e = explainCypher(compiledOf('read', project, [], [], 15));
  assert.deepEqual(e.operators[1], {
    op: 'project',
    items: [
      [0, '(1 / 0)'],
      [1, '(NOT (true) AND (#0 IS NOT NULL))'],
      [2, '("a\\"b" STARTS WITH "a")'],
      [3, 'tolower(#0[-1])'],
      [4, 'CASE WHEN true THEN 1.0 ELSE NaN END'],
      [5, '[#6 IN #0[..2] | #6]'],
      [7, '#0:A:B'],
      [8, '[1, -0.0, [Infinity]]'],
      [9, '#0 {.x, .*, y: 2}'],
      [10, 'reduce(#11 = 0, #12 IN #0 | -(#12))'],
      [13, 'any(#14 IN #0 WHERE (#14 IN #0))'],
    ],
    only: true,
    distinct: true,
  });
});

// ---- the pipeline's order of checks ----

const NO_OPTIONS: PipelineOptions = { warm: false, requireWriter: false, awaitDurable: undefined };
const seeded = {
  write: 'CREATE (:Seeded) // test',
  read: 'RETURN 1 AS one // test',
  withParam: 'RETURN $p AS p // test',
};
planCache().set(seeded.write, compiledOf('write', { t: 'create', input: { t: 'unit' }, pattern: { nodes: [], rels: [], paths: [] } }));
planCache().set(
  seeded.read,
  compiledOf(
    'read',
    { t: 'project', input: { t: 'unit' }, items: [[0, { k: 'literal', value: 1n }]], only: true, distinct: false },
    [],
    [['one', 0]],
    1,
  ),
);
planCache().set(
  seeded.withParam,
  compiledOf(
    'read',
    { t: 'project', input: { t: 'unit' }, items: [[0, { k: 'param', name: 'p', at: null }]], only: true, distinct: false },
    ['p'],
    [['p', 0]],
    1,
  ),
);

function answer(
  query: string,
  options: Partial<PipelineOptions> = {},
  { reader = false, explain = false, parameters }: { reader?: boolean; explain?: boolean; parameters?: unknown } = {},
): QueryAnswer & { reads: QueryPlan[] } {
  const reads: QueryPlan[] = [];
  const body = JSON.stringify(parameters === undefined ? { query } : { query, parameters });
  const a = answerCypher(body, { ...NO_OPTIONS, ...options }, reader, (plan) => (reads.push(plan), '{"columns":[],"rows":[]}'), explain);
  return { ...a, reads };
}

function failed(a: QueryAnswer, status: number, error: string): any {
  assert.equal(a.kind, 'done');
  if (a.kind !== 'done') return;
  const body = JSON.parse(a.body);
  assert.equal(a.status, status, a.body);
  assert.equal(body.error, error, a.body);
  return body;
}

test('pipeline: a read runs on the reader given; a write comes back for the writer with await-durable', () => {
  const r = answer(seeded.read, { warm: true, requireWriter: true });
  assert.deepEqual([r.kind, r.reads.length], ['done', 1]);
  assert.equal(r.reads[0]!.batch.format, 'cypher');
  assert.equal(r.reads[0]!.type, 'read');
  const w = answer(seeded.write, { awaitDurable: true });
  assert.equal(w.kind, 'write');
  assert.ok(w.kind === 'write' && w.awaitDurable && w.plan.type === 'write');
  const p = answer(seeded.withParam, {}, { parameters: { p: { $type: 'integer', value: '1152921504606846976' } } });
  assert.equal(p.reads[0]!.params.get('p'), 2n ** 60n);
});

test('pipeline: headers against the effect: warm on a write, await-durable on a read, are 400 invalid_request_option', () => {
  const warm = failed(answer(seeded.write, { warm: true }), 400, 'invalid_request_option');
  assert.equal(warm.details, undefined, 'a request error has no details');
  failed(answer(seeded.read, { awaitDurable: true }), 400, 'invalid_request_option');
  assert.equal(answer(seeded.read, { awaitDurable: false }).reads.length, 1, 'await-durable false is accepted on a read');
  // Before the parameters are checked.
  failed(answer(seeded.withParam, { awaitDurable: true }), 400, 'invalid_request_option');
});

test('pipeline: reader mode: a write or X-Svc-Require-Writer is 503 access_mode_error, before the parameters', () => {
  const w = failed(answer(seeded.write, {}, { reader: true }), 503, 'access_mode_error');
  assert.deepEqual(Object.keys(w), ['error', 'msg']);
  failed(answer(seeded.read, { requireWriter: true }, { reader: true }), 503, 'access_mode_error');
  failed(answer(seeded.withParam, { requireWriter: true }, { reader: true }), 503, 'access_mode_error');
  assert.equal(answer(seeded.read, {}, { reader: true }).reads.length, 1);
});

test('pipeline: a missing parameter is 400 parameter_missing with details; JSON and compile errors come first', () => {
  const missing = failed(answer(seeded.withParam), 400, 'parameter_missing');
  assert.deepEqual(missing.details, { detail: 'MissingParameter', phase: 'compile', span: null });
  failed(
    answerCypher('{"query":', NO_OPTIONS, false, () => '', false),
    400,
    'invalid_query_json',
  );
  failed(
    answerCypher('{"query":"RETURN 1","x":1}', { ...NO_OPTIONS, warm: true }, true, () => '', false),
    400,
    'invalid_query_json',
  );
  const syntax = failed(answer('RETURN )', { awaitDurable: true }, { reader: true }), 400, 'syntax_error');
  assert.deepEqual(syntax.details, { detail: 'UnexpectedSyntax', phase: 'compile', span: { start: 7, end: 8 } });
});

test('pipeline: explain never runs, takes read-side options only, explains writes on a reader, checks parameters', () => {
  const e = answer(seeded.write, { warm: true }, { explain: true, reader: true });
  assert.equal(e.reads.length, 0);
  assert.ok(e.kind === 'done' && e.status === 200);
  assert.equal(e.kind === 'done' && JSON.parse(e.body).effect, 'Write');
  failed(answer(seeded.read, { awaitDurable: true }, { explain: true }), 400, 'invalid_request_option');
  failed(answer(seeded.write, { awaitDurable: true }, { explain: true }), 400, 'invalid_request_option');
  failed(answer(seeded.read, { requireWriter: true }, { explain: true, reader: true }), 503, 'access_mode_error');
  failed(answer(seeded.withParam, {}, { explain: true }), 400, 'parameter_missing');
  const r = answer(seeded.read, {}, { explain: true });
  assert.ok(r.kind === 'done');
  assert.deepEqual(JSON.parse(r.kind === 'done' ? r.body : '').returns, [['one', 0]]);
});

// ---- routes ----

function cypherService(): QueryService & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    mode: 'writer',
    health: () => ({ ready: true, mode: 'writer', index_runtime: 'ready' }),
    query: async () => (calls.push('query'), { status: 200, body: '{}' }),
    cypher: async (body, options, explain) => {
      calls.push(explain ? 'explain' : 'cypher');
      const a = answerCypher(body, options, false, () => '{"columns":["one"],"rows":[[1]]}', explain);
      return a.kind === 'done' ? { status: a.status, body: a.body } : { status: 200, body: '{"columns":[],"rows":[]}' };
    },
  };
}

const req = (method: string, path: string, body = '', headers: Record<string, string> = {}): HttpRequest => ({
  method,
  path,
  headers: new Map(Object.entries(headers)),
  body: Buffer.from(body),
});

test('routes: /v2/cypher and /v2/cypher/explain reach the service; headers are checked before the body', async () => {
  const svc = cypherService();
  const handler = createHandler(svc);
  const run = await handler(req('POST', '/v2/cypher', JSON.stringify({ query: seeded.read })));
  assert.deepEqual([run.status, JSON.parse(String(run.body))], [200, { columns: ['one'], rows: [[1]] }]);
  const explain = await handler(req('POST', '/v2/cypher/explain', JSON.stringify({ query: seeded.read })));
  assert.equal(JSON.parse(String(explain.body)).effect, 'Read');
  const bad = await handler(req('POST', '/v2/cypher', '{not json', { 'x-svc-warm': 'maybe' }));
  assert.deepEqual([bad.status, JSON.parse(String(bad.body)).error], [400, 'invalid_request_option']);
  const get = await handler(req('GET', '/v2/cypher'));
  assert.deepEqual([get.status, get.headers?.allow], [405, 'POST']);
  assert.deepEqual(svc.calls, ['cypher', 'explain']);
});

test('routes: cypher off, or a service without Cypher: both paths are 404 not_found', async () => {
  const off = createRouter(serverRoutes(cypherService(), { cypher: false }));
  const { cypher: _, ...plain } = cypherService();
  const none = createRouter(serverRoutes(plain));
  for (const handler of [off, none]) {
    for (const path of ['/v2/cypher', '/v2/cypher/explain']) {
      const res = await handler(req('POST', path, '{"query":"RETURN 1"}'));
      assert.deepEqual([res.status, JSON.parse(String(res.body)).error], [404, 'not_found']);
    }
    assert.equal((await handler(req('POST', '/v2/query', '{}'))).status, 200);
  }
});

// ---- what travels between threads ----

test('a write plan with a table statement survives the msgpack trip to the writer: bigints, floats, nested literals, parameters', () => {
  const literal = [[1n, -(2n ** 63n), 2n ** 63n - 1n, 2n ** 60n, 1.5, 2.0, Number.NaN, Infinity, null, 'é'], [[true, false]], []];
  const root: TableNode = {
    t: 'create',
    input: {
      t: 'optional',
      slots: [1],
      body: { t: 'filter', input: { t: 'argument' }, predicate: { k: 'literal', value: literal } },
      input: { t: 'unwind', input: { t: 'unit' }, list: { k: 'param', name: 'rows', at: { start: 3, end: 8 } }, slot: 0 },
    },
    pattern: {
      nodes: [{ slot: 2, label: '', properties: [['x', { k: 'literal', value: 5000000000.0 }]], propertyMap: null, bound: false }],
      rels: [],
      paths: [],
    },
  };
  const rows = Array.from({ length: MIN_TABLE_ROWS + 1 }, (_, i) => ({ id: BigInt(i), w: i + 0.5, name: `n${i}` }));
  const plan: QueryPlan = {
    type: 'write',
    queryName: 'q',
    batch: {
      entries: [
        {
          kind: 'query',
          name: 'result',
          root: { op: 'table', path: '$', statement: statement(root, [['x', 2]], 3) },
          condition: null,
          path: '$',
        },
      ],
      returns: ['result'],
      format: 'cypher',
    },
    params: new Map<string, Value>([
      ['big', 2n ** 60n],
      ['map', { $type: 'integer', value: 'x', nested: [1n, { y: -1n }] }],
      ['rows', rows],
      ['nan', Number.NaN],
    ]),
  };
  const back = fromPlanMessage(decodeMessage<PlanMessage>(encodeMessage(toPlanMessage(plan))));
  assert.deepEqual(back.batch, plan.batch);
  assert.equal(back.type, 'write');
  assert.equal(back.queryName, 'q');
  assert.equal(back.params.get('big'), 2n ** 60n);
  assert.deepEqual(back.params.get('map'), plan.params.get('map'));
  assert.deepEqual([...(back.params.get('rows') as Value[])], rows);
  assert.ok(Number.isNaN(back.params.get('nan')));
  const bigints: unknown[] = [];
  JSON.stringify(back.batch, (_k, v) => (typeof v === 'bigint' ? (bigints.push(v), v.toString()) : v));
  assert.deepEqual(bigints, [1n, -(2n ** 63n), 2n ** 63n - 1n, 2n ** 60n], 'integers stay bigint, floats stay numbers');
});

test('read pool frames carry the route of each request', () => {
  const body = new TextEncoder().encode('{"query":"RETURN 1"}');
  const task = decodeTask(
    encodeTask({
      sliceMs: 2,
      requests: [
        { flags: 1, spentMs: 0, queryId: 0, route: 'query', body },
        { flags: 2, spentMs: 3, queryId: 0, route: 'cypher', body },
        { flags: 4, spentMs: 0, queryId: 0, route: 'cypher_explain', body },
        { flags: 0, spentMs: 0, queryId: 9, route: 'named', body },
      ],
    }),
  );
  assert.deepEqual(
    task.requests.map((r) => [r.flags, r.spentMs, r.queryId, r.route]),
    [
      [1, 0, 0, 'query'],
      [2, 3, 0, 'cypher'],
      [4, 0, 0, 'cypher_explain'],
      [0, 0, 9, 'named'],
    ],
  );
});

// ---- configuration ----

test('config: --cypher, TRELLIS_CYPHER and "cypher" in trellis.json, true by default', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-cypher-config-'));
  try {
    assert.equal(loadConfig([], {}, dir).cypher, true);
    writeFileSync(join(dir, 'trellis.json'), JSON.stringify({ cypher: false }));
    assert.equal(loadConfig([], {}, dir).cypher, false);
    assert.equal(loadConfig([], { TRELLIS_CYPHER: 'true' }, dir).cypher, true);
    assert.equal(loadConfig(['--cypher', 'false'], { TRELLIS_CYPHER: 'true' }, dir).cypher, false);
    assert.equal(loadConfig(['--cypher=true'], {}, dir).cypher, true);
    assert.throws(() => loadConfig(['--cypher', 'off'], {}, dir), /--cypher must be true or false, got "off"/);
    writeFileSync(join(dir, 'trellis.json'), JSON.stringify({ cypher: 'no' }));
    assert.throws(() => loadConfig([], {}, dir), /"cypher" must be true or false, got "no"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
