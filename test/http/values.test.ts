/**
 * Every value kind crosses the threads intact: written over HTTP (through the writer
 * thread), read back over HTTP (through a read worker), with date-times as literals and
 * as typed parameters (DECISIONS D7) in both directions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post, readRequest, serverForFile, writeRequest } from '../helpers/server.js';

const server = serverForFile();
const q = server.query;

const PROPS: [string, unknown][] = [
  ['s', { string: 'héllo "q" \u2028' }],
  ['big', { i64: 9223372036854775807n }],
  ['neg', { i64: -9007199254740993n }],
  ['f', { f64: 3 }],
  ['f32', { f32: 0.1 }],
  ['b', { bool: true }],
  ['nul', 'null'],
  ['dt', { date_time: 1776000000000 }],
  ['before_epoch', { date_time: -1 }],
  ['bytes', { bytes: [0, 255] }],
  ['ia', { i64_array: [1, 9007199254740993n] }],
  ['fa', { f64_array: [1, 2.5] }],
  ['va', { f32_array: [0.5, 0.1] }],
  ['sa', { string_array: ['a', 'b'] }],
  ['arr', { array: ['null', { i64: 1 }, { string: 'x' }, { date_time: 0 }, { f64: '@@-0.0@@' }] }],
  ['obj', { object: { k: { i64: 1 }, when: { date_time: 0 }, n: { object: { deep: { f64: 0.5 } } } } }],
  // -0.0 (which JSON.stringify would write as 0): alone, in a list, in a typed array.
  ['nz', { f64: '@@-0.0@@' }],
  ['nza', { f64_array: ['@@-0.0@@', 1] }],
];

const EXPECTED =
  '{"$id":0,"$label":"V","s":"héllo \\"q\\" \u2028","big":9223372036854775807,"neg":-9007199254740993,"f":3.0,' +
  '"f32":0.10000000149011612,"b":true,"nul":null,"dt":"2026-04-12T13:20:00.000Z","before_epoch":"1969-12-31T23:59:59.999Z",' +
  '"bytes":[0,255],"ia":[1,9007199254740993],"fa":[1.0,2.5],"va":[0.5,0.10000000149011612],"sa":["a","b"],' +
  '"arr":[null,1,"x","1970-01-01T00:00:00.000Z",-0.0],"obj":{"k":1,"when":"1970-01-01T00:00:00.000Z","n":{"deep":0.5}},' +
  '"nz":-0.0,"nza":[-0.0,1.0]}';

/** JSON text with bigints written as exact integer tokens, and "@@-0.0@@" as the number -0.0. */
function text(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `@@${v}@@` : v)).replace(/"@@(-?[\d.]+)@@"/g, '$1');
}

test('every value kind, date-times included, round-trips through the writer thread and a read worker', async () => {
  const props = PROPS.map(([name, value]) => [name, { value }]);
  const w = await post(q(), text(writeRequest([{ query: { name: 'n', root: { add_n: { label: 'V', properties: props } } } }], ['n'])));
  assert.equal(w.status, 200, w.text);
  assert.equal(w.text, '{"n":[{"$id":0}]}');
  const r = await post(
    q(),
    readRequest([{ query: { name: 'v', root: { value_map: { input: { nodes: { reference: { ids: [0] } } } } } } }], ['v']),
  );
  assert.equal(r.status, 200, r.text);
  assert.equal(r.text, `{"v":[${EXPECTED}]}`);
});

test('date-time literals and typed date_time parameters compare as date-times in reads and writes', async () => {
  const whereDt = (right: unknown) => ({
    count: { input: { where: { input: { nodes: { reference: 'all' } }, predicate: { gte: { left: { property: 'dt' }, right } } } } },
  });
  const literal = await post(
    q(),
    readRequest([{ query: { name: 'c', root: whereDt({ constant: { date_time: 1776000000000 } }) } }], ['c']),
  );
  assert.equal(literal.text, '{"c":[1]}');
  const typed = await post(q(), {
    ...(readRequest([{ query: { name: 'c', root: whereDt({ param: 'since' }) } }], ['c']) as object),
    parameters: { since: '2026-04-12T13:19:59.999Z' },
    parameter_types: { since: 'date_time' },
  });
  assert.equal(typed.status, 200, typed.text);
  assert.equal(typed.text, '{"c":[1]}');
  const later = await post(q(), {
    ...(readRequest([{ query: { name: 'c', root: whereDt({ param: 'since' }) } }], ['c']) as object),
    parameters: { since: '2026-04-12T13:20:00.001Z' },
    parameter_types: { since: 'date_time' },
  });
  assert.equal(later.text, '{"c":[0]}');
  // A typed date_time parameter stored by a write comes back as a date-time.
  const w = await post(q(), {
    ...(writeRequest(
      [
        {
          query: {
            name: 'n',
            root: { value_map: { input: { add_n: { label: 'W', properties: [['at', { expr: { param: 'at' } }]] } }, properties: ['at'] } },
          },
        },
      ],
      ['n'],
    ) as object),
    parameters: { at: '2026-01-02T03:04:05.678+01:00' },
    parameter_types: { at: 'date_time' },
  });
  assert.equal(w.status, 200, w.text);
  assert.equal(w.text, '{"n":[{"at":"2026-01-02T02:04:05.678Z"}]}');
});

test('concurrent reads carrying date-times are all answered, and the server stays ready', async () => {
  const dtRead = readRequest(
    [
      {
        query: {
          name: 'c',
          root: {
            count: {
              input: {
                where: {
                  input: { nodes: { reference: 'all' } },
                  predicate: { lt: { left: { property: 'dt' }, right: { constant: { date_time: 0 } } } },
                },
              },
            },
          },
        },
      },
    ],
    ['c'],
  );
  const plain = readRequest([{ query: { name: 'c', root: { count: { input: { nodes: { reference: 'all' } } } } } }], ['c']);
  const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => post(q(), i % 4 === 0 ? dtRead : plain)));
  for (const [i, reply] of replies.entries()) {
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.text, i % 4 === 0 ? '{"c":[0]}' : '{"c":[2]}');
  }
  const ready = await fetch(`${server.url()}/readyz`);
  assert.equal(ready.status, 200);
});
