/**
 * `POST /v2/import` (src/wire/import-request.ts): one label's rows as msgpack columns,
 * stored as a for_each bulk load would store them, one transaction per request, answered
 * with the first id. Bad bodies are 400 `invalid_request` naming the field; a row that
 * fails fails the request with nothing of it written; a reader refuses it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from '../../src/core/value.js';
import { encodeImportBatch, type ImportBatch } from '../../src/wire/import-request.js';
import { readRequest, post, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const dir = tempDir();
let writer: TestServer;
let reader: TestServer;

before(async () => {
  writer = await startTestServer(['--data', dir.path]);
  reader = await startTestServer(['--data', dir.path, '--mode', 'reader']);
});
after(async () => {
  await Promise.all([writer?.stop(), reader?.stop()]);
  dir.remove();
});

async function send(server: TestServer, body: ImportBatch | Uint8Array): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/v2/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/msgpack' },
    body: body instanceof Uint8Array ? body : encodeImportBatch(body),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) };
}

const cypher = async (query: string) => {
  const res = await post(`${writer.url}/v2/cypher`, { query });
  assert.equal(res.status, 200, res.text);
  return res.body.rows as unknown[][];
};

test('nodes and edges as columns: every value kind kept, ids answered from the first one on', async () => {
  const nodes = await send(writer, {
    label: 'City',
    element: 'node',
    columns: [
      { name: 'code', kind: 'int', values: Float64Array.from([10, 20, 30]) },
      { name: 'area', kind: 'float', values: Float64Array.from([1.5, -0, Number.NaN]) },
      { name: 'name', kind: 'any', values: ['Oslo', 'Lyon "2"', 'Kyōto 🏯'] },
      { name: 'founded', kind: 'any', values: [new DateTime(0), new DateTime(86_400_000), null] },
      { name: 'big', kind: 'any', values: [2n ** 62n, -1n, 0n] },
    ],
  });
  assert.equal(nodes.status, 200, JSON.stringify(nodes.body));
  assert.deepEqual(Object.keys(nodes.body), ['element', 'label', 'count', 'first_id']);
  assert.equal(nodes.body.count, 3);
  const first = nodes.body.first_id as number;
  const edges = await send(writer, {
    label: 'ROAD',
    element: 'edge',
    from: Float64Array.from([first, first + 1]),
    to: Float64Array.from([first + 1, first + 2]),
    columns: [{ name: 'km', kind: 'int', values: Float64Array.from([1000, 2000]) }],
  });
  assert.equal(edges.status, 200, JSON.stringify(edges.body));
  assert.deepEqual({ ...edges.body, first_id: 0 }, { element: 'edge', label: 'ROAD', count: 2, first_id: 0 });
  assert.deepEqual(await cypher('MATCH (c:City) RETURN id(c) AS id, c.code, c.area, c.name, toString(c.founded), c.big ORDER BY c.code'), [
    [first, 10, 1.5, 'Oslo', '1970-01-01T00:00:00.000Z', { $type: 'integer', value: '4611686018427387904' }],
    [first + 1, 20, -0, 'Lyon "2"', '1970-01-02T00:00:00.000Z', -1],
    [first + 2, 30, { $type: 'float', value: 'NaN' }, 'Kyōto 🏯', null, 0],
  ]);
  assert.deepEqual(await cypher('MATCH (a:City)-[r:ROAD]->(b:City) RETURN a.code, r.km, b.code ORDER BY r.km'), [
    [10, 1000, 20],
    [20, 2000, 30],
  ]);
  // Plain msgpack arrays work as well as typed arrays (any client's msgpack library).
  const plain = await send(writer, {
    label: 'Plain',
    element: 'node',
    columns: [
      { name: 'n', kind: 'int', values: [1, 2] as never },
      { name: 'x', kind: 'float', values: [0.5, 3] as never },
    ],
  });
  assert.equal(plain.status, 200, JSON.stringify(plain.body));
  // An int column stays i64 and a float column f64, even for a float that is a whole number.
  assert.deepEqual(await cypher('MATCH (n:Plain) RETURN n.n, n.x, n.n / 2, n.x / 2 ORDER BY n.n'), [
    [1, 0.5, 0, 0.25],
    [2, 3.0, 1, 1.5],
  ]);
});

test('nodes without properties (count), msgpack timestamps as date-times, reserved names named by column', async () => {
  const bare = await send(writer, { label: 'Bare', element: 'node', count: 3, columns: [] });
  assert.equal(bare.status, 200, JSON.stringify(bare.body));
  assert.equal(bare.body.count, 3);
  assert.deepEqual(await cypher('MATCH (n:Bare) RETURN count(n)'), [[3]]);
  // msgpack's own timestamp extension (what most msgpack libraries write for a date) is a date-time.
  const stamped = await send(writer, {
    label: 'Stamp',
    element: 'node',
    columns: [{ name: 'at', kind: 'any', values: [new Date(86_400_000) as never] }],
  });
  assert.equal(stamped.status, 200, JSON.stringify(stamped.body));
  assert.deepEqual(await cypher('MATCH (n:Stamp) RETURN toString(n.at)'), [['1970-01-02T00:00:00.000Z']]);
  const reserved = await send(writer, {
    label: 'R',
    element: 'node',
    columns: [{ name: '$id', kind: 'int', values: Float64Array.from([1]) }],
  });
  assert.equal(reserved.status, 400);
  assert.equal(reserved.body.error, 'invalid_property_name');
  assert.match(reserved.body.msg, /^\/v2\/import: columns\[0\]\.name: /);
});

test('a bad body is 400 invalid_request naming what is wrong', async () => {
  const cases: [ImportBatch | Uint8Array, RegExp][] = [
    [Buffer.from('{"label":"X"}'), /the body is not msgpack/],
    [{ label: '', element: 'node', columns: [] }, /label must be a non-empty string/],
    [{ label: 'X', element: 'vertex' as never, columns: [] }, /element must be "node" or "edge", got the string "vertex"/],
    [{ label: 'X', element: 'node', columns: [] }, /a node batch without columns needs count/],
    [{ label: 'X', element: 'node', count: -1, columns: [] }, /count must be a non-negative integer, got the number -1/],
    [{ label: 'X', element: { toString: 1 } as never, columns: [] }, /element must be "node" or "edge", got an object/],
    [
      { label: 'X', element: 'node', columns: [{ name: 'a', kind: 'any', values: [new Int32Array([1]) as never] }] },
      /columns\[0\]\.values\[0\] is a Int32Array, which is not a value kind/,
    ],
    [
      { label: 'X', element: 'node', columns: [{ name: 'a', kind: 'any', values: [[1, new Set([1]) as never]] }] },
      /columns\[0\]\.values\[0\]\[1\] is a Set, which is not a value kind/,
    ],
    [
      { label: 'X', element: 'node', columns: [{ name: 'a', kind: 'int', values: Float64Array.from([1, 2.5]) }] },
      /columns\[0\]\.values\[1\] is 2\.5, not an integer/,
    ],
    [
      {
        label: 'X',
        element: 'node',
        columns: [
          { name: 'a', kind: 'int', values: Float64Array.from([1, 2]) },
          { name: 'b', kind: 'any', values: ['x'] },
        ],
      },
      /columns\[1\]\.values has 1 rows where the batch has 2/,
    ],
    [
      {
        label: 'X',
        element: 'node',
        columns: [
          { name: 'a', kind: 'int', values: Float64Array.from([1]) },
          { name: 'a', kind: 'int', values: Float64Array.from([1]) },
        ],
      },
      /the column a is given twice/,
    ],
    [
      { label: 'E', element: 'edge', from: Float64Array.from([0, -1]), to: Float64Array.from([0, 0]), columns: [] },
      /from\[1\] is -1, not a node id/,
    ],
    [
      { label: 'X', element: 'node', columns: [{ name: 'a', kind: 'text' as never, values: ['x'] }] },
      /columns\[0\]\.kind must be "int", "float" or "any"/,
    ],
  ];
  for (const [body, msg] of cases) {
    const res = await send(writer, body);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error, 'invalid_request');
    assert.match(res.body.msg, msg);
  }
  // One row past the for_each limit (1,000,000 iterations, the first row aside).
  const tooMany = await send(writer, {
    label: 'X',
    element: 'node',
    columns: [{ name: 'a', kind: 'float', values: new Float64Array(1_000_002) }],
  });
  assert.equal(tooMany.status, 400);
  assert.equal(tooMany.body.error, 'limit_exceeded');
  assert.match(tooMany.body.msg, /a batch holds at most 1000001 rows, this one 1000002/);
});

test('an edge to a node that does not exist fails the request; nothing of it is written', async () => {
  const made = await send(writer, {
    label: 'Stop',
    element: 'node',
    columns: [{ name: 'k', kind: 'int', values: Float64Array.from([1, 2]) }],
  });
  const id = made.body.first_id as number;
  const res = await send(writer, {
    label: 'LINK',
    element: 'edge',
    from: Float64Array.from([id, id, id + 1]),
    to: Float64Array.from([id + 1, 99_999_999, id]),
    columns: [],
  });
  assert.equal(res.body.error, 'node_not_found');
  assert.equal(res.body.msg, '/v2/import row 1: to: node 99999999 does not exist');
  const first = await send(writer, {
    label: 'LINK',
    element: 'edge',
    from: Float64Array.from([77_777_777]),
    to: Float64Array.from([id]),
    columns: [],
  });
  assert.deepEqual(first.body, { error: 'node_not_found', msg: '/v2/import row 0: from: node 77777777 does not exist' });
  assert.deepEqual(await cypher('MATCH ()-[r:LINK]->() RETURN count(r)'), [[0]]);
});

test('a reader server refuses imports: 503 writer_mode_required', async () => {
  const res = await send(reader, { label: 'X', element: 'node', columns: [{ name: 'a', kind: 'int', values: Float64Array.from([1]) }] });
  assert.equal(res.status, 503);
  assert.equal(res.body.error, 'writer_mode_required');
  const read = await post(
    `${reader.url}/v2/query`,
    readRequest([{ query: { name: 'n', root: { count: { input: { nodes: { reference: 'all' } } } } } }], ['n']),
  );
  assert.equal(read.status, 200);
});
