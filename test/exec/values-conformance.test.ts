/**
 * Conformance: every value tag through the wire (reference §4.1, §7.3): stored with
 * add_n, read back with value_map in a separate request, compared as exact JSON text.
 * Also untyped parameters (§2.2) and typed parameter_types (D6, D7).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDb, q, rejects400, requestText, type TestDb } from '../helpers/embedded.js';

let t: TestDb;
before(async () => {
  t = await openTestDb();
});
after(() => t.close());

let seq = 0;

/**
 * Stores `literal` (a tagged PropertyValue) as property "v" of a new node with a unique
 * key, then reads it back in another request; returns the JSON text of the value.
 */
async function roundTrip(literal: unknown): Promise<string> {
  const key = `k${seq++}`;
  await t.db.queryText(
    requestText(
      'write',
      [
        q(null, {
          add_n: {
            label: 'V',
            properties: [
              ['key', { value: { string: key } }],
              ['v', { value: literal }],
            ],
          },
        }),
      ],
      [],
    ),
  );
  return readBack(key);
}

async function readBack(key: string): Promise<string> {
  const body = await t.db.queryText(
    requestText(
      'read',
      [
        q('r', {
          value_map: {
            input: { has: { input: { nodes: { reference: 'all' } }, property: 'key', value: { string: key } } },
            properties: ['v'],
          },
        }),
      ],
      ['r'],
    ),
  );
  const m = /^\{"r":\[\{"v":(.*)\}\]\}$/s.exec(body);
  assert.ok(m, `unexpected response ${body}`);
  return m[1]!;
}

/** Stores parameter-supplied properties (raw JSON text for `parameters` and optional `parameter_types`). */
async function storeFromParams(key: string, names: string[], parametersJson: string, typesJson?: string): Promise<void> {
  const entries = [
    q(null, { add_n: { label: 'V', properties: [['key', { value: { string: key } }], ...names.map((n) => [n, { expr: { param: n } }])] } }),
  ];
  const body = requestText('write', entries, []).replace(
    /\}$/,
    `,"parameters":${parametersJson}${typesJson ? `,"parameter_types":${typesJson}` : ''}}`,
  );
  assert.equal(await t.db.queryText(body), '{}');
}

async function readProps(key: string, names: string[]): Promise<string> {
  return t.db.queryText(
    requestText(
      'read',
      [
        q('r', {
          value_map: {
            input: { has: { input: { nodes: { reference: 'all' } }, property: 'key', value: { string: key } } },
            properties: names,
          },
        }),
      ],
      ['r'],
    ),
  );
}

test('null and bool', async () => {
  assert.equal(await roundTrip('null'), 'null', 'a stored null is present, so value_map lists it');
  assert.equal(await roundTrip({ bool: true }), 'true');
  assert.equal(await roundTrip({ bool: false }), 'false');
});

test('i64: exact digits, including the extremes and values beyond 2^53', async () => {
  assert.equal(await roundTrip({ i64: 0 }), '0');
  assert.equal(await roundTrip({ i64: -5 }), '-5');
  assert.equal(await roundTrip({ i64: 9223372036854775807n }), '9223372036854775807');
  assert.equal(await roundTrip({ i64: -9223372036854775807n }), '-9223372036854775807');
  assert.equal(await roundTrip({ i64: -9223372036854775808n }), '-9223372036854775808');
  assert.equal(await roundTrip({ i64: 9007199254740993n }), '9007199254740993', '2^53 + 1 is not rounded');
  assert.equal(await roundTrip({ i64: -9007199254740993n }), '-9007199254740993');
  assert.equal(await roundTrip({ i64: 1234567890123456789n }), '1234567890123456789');
});

test('i64 outside the i64 range and i64 with a fraction are rejected', async () => {
  const addV = (literal: string) =>
    t.db.queryText(
      `{"request_type":"write","query":{"write":{"entries":[{"query":{"root":{"add_n":{"label":"V","properties":[["v",{"value":${literal}}]]}}}}],"returns":[]}}}`,
    );
  await rejects400(
    addV('{"i64":9223372036854775808}'),
    'invalid_query_json',
    /^query\.write\.entries\[0\]\.query\.root\.add_n\.properties\[0\]/,
  );
  await rejects400(addV('{"i64":1.5}'), 'invalid_query_json', /^query\.write\.entries\[0\]\.query\.root\.add_n\.properties\[0\]/);
});

test('f32_array and f64_array: an element out of range or not a number is rejected at its index', async () => {
  const addV = (literal: string) =>
    t.db.queryText(
      `{"request_type":"write","query":{"write":{"entries":[{"query":{"root":{"add_n":{"label":"V","properties":[["v",{"value":${literal}}]]}}}}],"returns":[]}}}`,
    );
  const at = (i: number, problem: string) => new RegExp(`properties\\[0\\]\\[1\\]\\.value\\.f[0-9]+_array\\[${i}\\]: ${problem}`);
  await rejects400(addV('{"f32_array":[0.5,1e39]}'), 'invalid_query_json', at(1, '1e\\+39 is outside the f32 range'));
  await rejects400(addV('{"f32_array":[0.5,0.25,"x"]}'), 'invalid_query_json', at(2, 'expected a number, got the string "x"'));
  await rejects400(addV('{"f64_array":[0.5,true]}'), 'invalid_query_json', at(1, 'expected a number, got (true|a boolean)'));
  await rejects400(addV('{"f32_array":{"a":1}}'), 'invalid_query_json', /f32_array: expected an array, got an object/);
});

test('f64: integral values print with .0, others as the shortest round-trip decimal', async () => {
  assert.equal(await roundTrip({ f64: 3 }), '3.0');
  assert.equal(await roundTrip({ f64: 2.5 }), '2.5');
  assert.equal(await roundTrip({ f64: -7 }), '-7.0');
  assert.equal(await roundTrip({ f64: 0.1 }), '0.1');
  assert.equal(await roundTrip({ f64: 0 }), '0.0');
  assert.equal(await roundTrip({ f64: 123456.789 }), '123456.789');
  // An integer token in an f64 slot is accepted and stays a float.
  const raw = await t.db.queryText(
    '{"request_type":"write","query":{"write":{"entries":[{"query":{"name":"r","root":{"value_map":{"properties":["v"],"input":' +
      '{"add_n":{"label":"V","properties":[["v",{"value":{"f64":9007199254740993}}]]}}}}}}],"returns":["r"]}}}',
  );
  assert.equal(raw, '{"r":[{"v":9007199254740992.0}]}', 'rounded to the nearest double, printed with .0');
});

test('f32: stored as f32, printed as its f64 widening', async () => {
  assert.equal(await roundTrip({ f32: 0.1 }), '0.10000000149011612');
  assert.equal(await roundTrip({ f32: 1.5 }), '1.5');
  assert.equal(await roundTrip({ f32: 3 }), '3.0');
  assert.equal(await roundTrip({ f32: -0.2 }), '-0.20000000298023224');
});

test('date_time: epoch milliseconds in, RFC 3339 UTC with milliseconds out', async () => {
  assert.equal(await roundTrip({ date_time: 1776000000000 }), '"2026-04-12T13:20:00.000Z"');
  assert.equal(await roundTrip({ date_time: -1 }), '"1969-12-31T23:59:59.999Z"');
  assert.equal(await roundTrip({ date_time: 0 }), '"1970-01-01T00:00:00.000Z"');
  assert.equal(await roundTrip({ date_time: 946684800123 }), '"2000-01-01T00:00:00.123Z"');
  assert.equal(await roundTrip({ date_time: -62135596800000 }), '"0001-01-01T00:00:00.000Z"');
});

test('string: unicode kept as is, quotes, backslashes and control characters escaped', async () => {
  assert.equal(await roundTrip({ string: '' }), '""');
  assert.equal(await roundTrip({ string: 'héllo 世界 😀' }), '"héllo 世界 😀"');
  assert.equal(await roundTrip({ string: 'a"b\\c/d' }), '"a\\"b\\\\c/d"');
  assert.equal(await roundTrip({ string: 'line\nnext\ttab\r\u0008\u000c' }), '"line\\nnext\\ttab\\r\\b\\f"');
  assert.equal(await roundTrip({ string: '\u0001\u001f' }), '"\\u0001\\u001f"');
  assert.equal(await roundTrip({ string: '2026-04-12T13:20:00.000Z' }), '"2026-04-12T13:20:00.000Z"', 'a date-like string stays a string');
});

test('bytes: an array of integers 0-255', async () => {
  assert.equal(await roundTrip({ bytes: [0, 1, 127, 128, 255] }), '[0,1,127,128,255]');
  assert.equal(await roundTrip({ bytes: [] }), '[]');
});

test('typed arrays: i64_array exact, f64_array with fractions, f32_array widened, string_array', async () => {
  assert.equal(
    await roundTrip({ i64_array: [1, -2, 9223372036854775807n, -9223372036854775808n] }),
    '[1,-2,9223372036854775807,-9223372036854775808]',
  );
  assert.equal(await roundTrip({ i64_array: [] }), '[]');
  assert.equal(await roundTrip({ f64_array: [1, 2.5, -0.5] }), '[1.0,2.5,-0.5]');
  assert.equal(await roundTrip({ f32_array: [1, 0.1, 0] }), '[1.0,0.10000000149011612,0.0]');
  assert.equal(await roundTrip({ string_array: ['a', 'b"c', 'é'] }), '["a","b\\"c","é"]');
});

test('array: heterogeneous and nested, elements untagged', async () => {
  const literal = {
    array: [
      'null',
      { i64: 1 },
      { f64: 2 },
      { f32: 0.1 },
      { string: 's' },
      { bool: false },
      { date_time: 0 },
      { bytes: [7] },
      { array: [{ i64: 3 }, { array: [] }] },
      { object: { k: { f64: 0.5 } } },
      { i64_array: [4] },
      { string_array: ['x'] },
    ],
  };
  assert.equal(
    await roundTrip(literal),
    '[null,1,2.0,0.10000000149011612,"s",false,"1970-01-01T00:00:00.000Z",[7],[3,[]],{"k":0.5},[4],["x"]]',
  );
  assert.equal(await roundTrip({ array: [] }), '[]');
});

test('object: nested, values untagged', async () => {
  const literal = {
    object: {
      a: { i64: 9223372036854775807n },
      b: { object: { c: { string_array: ['x'] }, d: 'null', e: { object: {} } } },
      f: { f64: 1 },
      g: { date_time: -1 },
      h: { array: [{ object: { i: { bool: true } } }] },
    },
  };
  assert.equal(
    await roundTrip(literal),
    '{"a":9223372036854775807,"b":{"c":["x"],"d":null,"e":{}},"f":1.0,"g":"1969-12-31T23:59:59.999Z","h":[{"i":true}]}',
  );
  assert.equal(await roundTrip({ object: {} }), '{}');
});

// Parameters

test('untyped parameters: integer tokens are i64, other numbers f64, arrays and objects recursively', async () => {
  const names = ['pn', 'pb', 'pi', 'pbig', 'pf', 'pf2', 'ps', 'pa', 'po', 'pd'];
  await storeFromParams(
    'untyped',
    names,
    '{"pn":null,"pb":true,"pi":-42,"pbig":9223372036854775807,"pf":2.0,"pf2":2.5e3,"ps":"x\\"y","pa":[1,2.5,"s",null,[true],{"k":1.0}],' +
      '"po":{"a":1,"b":{"c":1.0}},"pd":"2026-04-12T13:20:00Z"}',
  );
  assert.equal(
    await readProps('untyped', names),
    '{"r":[{"pn":null,"pb":true,"pi":-42,"pbig":9223372036854775807,"pf":2.0,"pf2":2500.0,"ps":"x\\"y","pa":[1,2.5,"s",null,[true],{"k":1.0}],' +
      '"po":{"a":1,"b":{"c":1.0}},"pd":"2026-04-12T13:20:00Z"}]}',
  );
  // An untyped RFC 3339 string stays a string (only a typed date_time parameter converts, D7).
  const res = await t.read(
    [
      q('r', {
        count: {
          input: {
            where: {
              input: { nodes: { reference: 'all' } },
              predicate: { eq: { left: { property: 'pd' }, right: { constant: { string: '2026-04-12T13:20:00Z' } } } },
            },
          },
        },
      }),
    ],
    ['r'],
  );
  assert.deepEqual(res, { r: [1] });
});

test('an untyped array parameter is a heterogeneous array, not a typed array', async () => {
  await storeFromParams('arr', ['pa'], '{"pa":[1,2]}');
  const keyed = { has: { input: { nodes: { reference: 'all' } }, property: 'key', value: { string: 'arr' } } };
  const count = async (literal: unknown) =>
    (await t.read([q('r', { count: { input: { has: { input: keyed, property: 'pa', value: literal } } } })], ['r'])).r;
  assert.deepEqual(await count({ array: [{ i64: 1 }, { i64: 2 }] }), [1]);
  assert.deepEqual(await count({ i64_array: [1, 2] }), [0]);
});

test('untyped integers outside the i64 range and non-finite numbers are 400 invalid_query_json', async () => {
  const req = (params: string) =>
    `{"request_type":"read","query":{"read":{"entries":[{"query":{"name":"r","root":{"nodes":{"reference":"all"}}}}],"returns":["r"]}},"parameters":${params}}`;
  await rejects400(t.db.queryText(req('{"big":9223372036854775808}')), 'invalid_query_json', /^parameters\.big/);
  await rejects400(t.db.queryText(req('{"small":-9223372036854775809}')), 'invalid_query_json', /^parameters\.small/);
  // 1e400 is not a finite double: rejected while parsing, the msg gives the token's line and column.
  const inf = req('{"inf":1e400}');
  await rejects400(t.db.queryText(inf), 'invalid_query_json', new RegExp(`line 1 column ${inf.indexOf('1e400') + 1}\\b`));
  await rejects400(t.db.queryText(req('{"deep":{"x":[1,18446744073709551616]}}')), 'invalid_query_json', /^parameters\.deep\.x\[1\]/);
  // A scalar member of a row object (how bulk loads send values) is checked in place.
  await rejects400(
    t.db.queryText(req('{"rows":[{"id":1,"big":9223372036854775808}]}')),
    'invalid_query_json',
    /^parameters\.rows\[0\]\.big: 9223372036854775808 is outside the i64 range/,
  );
});

test('typed parameters: each declared type stored and printed as that type', async () => {
  const names = ['b', 'i', 's', 'd', 'o', 'v', 'ai', 'as', 'ad'];
  await storeFromParams(
    'typed',
    names,
    '{"b":false,"i":9223372036854775807,"s":"2026-04-12T13:20:00Z","d":"2026-04-12T14:20:00+01:00","o":{"k":[1,2.0]},"v":3.0,' +
      '"ai":[1,-1],"as":["a","b"],"ad":["1970-01-01T00:00:00Z","1969-12-31T23:59:59.999Z"]}',
    '{"b":"bool","i":"i64","s":"string","d":"date_time","o":"object","v":"value","ai":{"array":"i64"},"as":{"array":"string"},"ad":{"array":"date_time"}}',
  );
  assert.equal(
    await readProps('typed', names),
    '{"r":[{"b":false,"i":9223372036854775807,"s":"2026-04-12T13:20:00Z","d":"2026-04-12T13:20:00.000Z","o":{"k":[1,2.0]},"v":3.0,' +
      '"ai":[1,-1],"as":["a","b"],"ad":["1970-01-01T00:00:00.000Z","1969-12-31T23:59:59.999Z"]}]}',
  );
});

test('a typed date_time parameter becomes a real date_time (D7): equal to the literal, ordered as a date', async () => {
  await storeFromParams('dt', ['d'], '{"d":"2026-04-12T13:20:00.000Z"}', '{"d":"date_time"}');
  const keyed = { has: { input: { nodes: { reference: 'all' } }, property: 'key', value: { string: 'dt' } } };
  const count = async (predicate: unknown) =>
    (await t.read([q('r', { count: { input: { where: { input: keyed, predicate } } } })], ['r'])).r;
  assert.deepEqual(await count({ eq: { left: { property: 'd' }, right: { constant: { date_time: 1776000000000 } } } }), [1]);
  assert.deepEqual(await count({ gt: { left: { property: 'd' }, right: { constant: { date_time: 1775999999999 } } } }), [1]);
  assert.deepEqual(await count({ eq: { left: { property: 'd' }, right: { constant: { string: '2026-04-12T13:20:00.000Z' } } } }), [0]);
  // The untyped twin of the same text is a string.
  await storeFromParams('dt-untyped', ['d'], '{"d":"2026-04-12T13:20:00.000Z"}');
  const untyped = { has: { input: { nodes: { reference: 'all' } }, property: 'key', value: { string: 'dt-untyped' } } };
  const res = await t.read(
    [
      q('r', {
        count: {
          input: {
            where: { input: untyped, predicate: { eq: { left: { property: 'd' }, right: { constant: { date_time: 1776000000000 } } } } },
          },
        },
      }),
    ],
    ['r'],
  );
  assert.deepEqual(res, { r: [0] });
});

test('typed parameter mismatches are 400 invalid_query_json naming the parameter', async () => {
  const req = (params: string, types: string) =>
    `{"request_type":"read","query":{"read":{"entries":[{"query":{"name":"r","root":{"nodes":{"reference":"all"}}}}],"returns":["r"]}},"parameters":${params},"parameter_types":${types}}`;
  await rejects400(t.db.queryText(req('{"i":2.0}', '{"i":"i64"}')), 'invalid_query_json', /^parameters\.i/);
  await rejects400(t.db.queryText(req('{"s":1}', '{"s":"string"}')), 'invalid_query_json', /^parameters\.s/);
  await rejects400(t.db.queryText(req('{"d":"yesterday"}', '{"d":"date_time"}')), 'invalid_query_json', /^parameters\.d/);
  await rejects400(t.db.queryText(req('{"a":[1,"x"]}', '{"a":{"array":"i64"}}')), 'invalid_query_json', /^parameters\.a\[1\]/);
  await rejects400(t.db.queryText(req('{"o":[1]}', '{"o":"object"}')), 'invalid_query_json', /^parameters\.o/);
  await rejects400(t.db.queryText(req('{"f":1.5}', '{"f":"f64"}')), 'invalid_query_json', /^parameter_types\.f/);
});
