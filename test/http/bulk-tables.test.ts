/**
 * Bulk loads over HTTP: rows of a for_each travel from the read worker to the writer as
 * row tables (src/core/row-table.ts). Every column kind must come back exactly, and a row that
 * fails must fail the whole request with nothing written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post, readRequest, serverForFile, writeRequest } from '../helpers/server.js';

const server = serverForFile();
const q = server.query;

const param = (name: string) => ({ expr: { param: name } });
const loop = (body: unknown) => ({ for_each: { param: 'rows', body: [{ query: { root: body } }] } });
const count = (name: string, root: unknown) => ({ query: { name, root: { count: { input: root } } } });

test('a 500-row node load and a 2,000-row edge load keep every value exactly', async () => {
  // Floats are written with a fraction or exponent so that they stay floats on the wire.
  const nodes = Array.from(
    { length: 500 },
    (_, i) => `{"k":${i},"big":${i === 7 ? '9007199254740993' : i},"f":${i === 3 ? '3e0' : `${i}.5`},"s":"n\\"${i}","b":${i % 2 === 0}}`,
  );
  // The rows are spliced in as text: JSON.stringify has no integer/float distinction.
  const nodeText = JSON.stringify({
    ...(writeRequest([loop({ add_n: { label: 'P', properties: ['k', 'big', 'f', 's', 'b'].map((p) => [p, param(p)]) } })]) as object),
    parameters: { rows: '@ROWS@' },
  }).replace('"@ROWS@"', `[${nodes.join(',')}]`);
  const loaded = await post(q(), nodeText);
  assert.equal(loaded.status, 200, loaded.text);
  const edges = Array.from({ length: 2000 }, (_, i) => ({ a: i % 500, b: (i * 7) % 500, w: i }));
  const res = await post(q(), {
    ...(writeRequest([
      loop({ add_e: { input: { nodes: { reference: { param: 'a' } } }, label: 'E', to: { param: 'b' }, properties: [['w', param('w')]] } }),
    ]) as object),
    parameters: { rows: edges },
  });
  assert.equal(res.status, 200, res.text);
  const read = await post(
    q(),
    readRequest(
      [
        count('n', { nodes: { reference: 'all' } }),
        count('e', { edges: { reference: 'all' } }),
        {
          query: {
            name: 'some',
            root: { value_map: { input: { nodes: { reference: { ids: [3, 4, 7] } } }, properties: ['k', 'big', 'f', 's', 'b'] } },
          },
        },
        {
          query: {
            name: 'out3',
            root: { value_map: { input: { out_e: { input: { nodes: { reference: { ids: [3] } } }, label: 'E' } }, properties: ['w'] } },
          },
        },
      ],
      ['n', 'e', 'some', 'out3'],
    ),
  );
  assert.equal(read.status, 200, read.text);
  assert.match(read.text, /"n":\[500\]/);
  assert.match(read.text, /"e":\[2000\]/);
  assert.match(read.text, /\{"k":3,"big":3,"f":3\.0,"s":"n\\"3","b":false\}/);
  assert.match(read.text, /\{"k":4,"big":4,"f":4\.5,"s":"n\\"4","b":true\}/);
  assert.match(read.text, /\{"k":7,"big":9007199254740993,"f":7\.5,"s":"n\\"7","b":false\}/);
  const expectedW = edges.filter((e) => e.a === 3).map((e) => e.w);
  assert.deepEqual(
    read.body.out3.map((x: { w: number }) => x.w),
    expectedW,
  );
});

test('a row whose target does not exist fails the whole load, naming the place; nothing is written', async () => {
  const made = await post(
    q(),
    writeRequest(
      [
        { query: { name: 'x', root: { add_n: { label: 'Q', properties: [] } } } },
        { query: { name: 'y', root: { add_n: { label: 'Q', properties: [] } } } },
      ],
      ['x', 'y'],
    ),
  );
  const [a, b] = [made.body.x[0].$id, made.body.y[0].$id];
  const edgeCount = async () => (await post(q(), readRequest([count('e', { edges: { reference: 'all' } })], ['e']))).body.e[0];
  const before = await edgeCount();
  const rows = Array.from({ length: 300 }, (_, i) => ({ a, b: i === 250 ? 999_999 : b }));
  const res = await post(q(), {
    ...(writeRequest([
      loop({ add_e: { input: { nodes: { reference: { param: 'a' } } }, label: 'E', to: { param: 'b' }, properties: [] } }),
    ]) as object),
    parameters: { rows },
  });
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error, 'node_not_found');
  assert.match(res.body.msg, /add_e\.to: node 999999 does not exist/);
  assert.equal(await edgeCount(), before);
});
