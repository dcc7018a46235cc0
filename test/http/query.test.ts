/** /v2/query end to end over HTTP against the real server process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countLabel, get, post, postLarge, readRequest, str, serverForFile, writeRequest } from '../helpers/server.js';

const server = serverForFile();
const q = server.query;

test('healthz and readyz report exactly ready, mode and index_runtime', async () => {
  for (const path of ['/healthz', '/readyz']) {
    const res = await get(server.url() + path);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ready: true, mode: 'writer', index_runtime: 'ready' });
  }
});

test('the worked example of the reference: add two users, an edge, read neighbours', async () => {
  const res = await post(
    q(),
    writeRequest(
      [
        { query: { name: 'alice', root: { add_n: { label: 'Person', properties: [['name', str('Alice')]] } } } },
        { query: { name: 'bob', root: { add_n: { label: 'Person', properties: [['name', str('Bob')]] } } } },
        {
          query: {
            name: 'e',
            root: { add_e: { input: { nodes: { reference: { var: 'alice' } } }, label: 'FOLLOWS', to: { var: 'bob' }, properties: [] } },
          },
        },
        {
          query: {
            name: 'friends',
            root: {
              value_map: {
                input: { out: { input: { nodes: { reference: { var: 'alice' } } }, label: 'FOLLOWS' } },
                properties: ['$id', 'name'],
              },
            },
          },
        },
      ],
      ['alice', 'bob', 'friends'],
    ),
  );
  assert.equal(res.status, 200, res.text);
  const alice = res.body.alice[0].$id;
  const bob = res.body.bob[0].$id;
  assert.equal(bob, alice + 1);
  assert.deepEqual(res.body.friends, [{ $id: bob, name: 'Bob' }]);
  assert.deepEqual(Object.keys(res.body).sort(), ['alice', 'bob', 'friends']);
});

test('a read issued after a write response sees that write, every time', async () => {
  for (let i = 0; i < 30; i++) {
    const w = await post(
      q(),
      writeRequest([{ query: { name: 'n', root: { add_n: { label: 'Seq', properties: [['i', { value: { i64: i } }]] } } } }], ['n']),
    );
    assert.equal(w.status, 200, w.text);
    const r = await post(q(), readRequest([countLabel('c', 'Seq')], ['c']));
    assert.deepEqual(r.body, { c: [i + 1] });
  }
});

test('a write batch whose last entry fails commits nothing', async () => {
  const res = await post(
    q(),
    writeRequest(
      [
        { query: { name: 'a', root: { add_n: { label: 'Doomed', properties: [] } } } },
        { query: { name: 'b', root: { add_n: { label: 'Doomed', properties: [['x', { expr: { param: 'missing' } }]] } } } },
      ],
      ['a'],
    ),
  );
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'invalid_query');
  assert.match(res.body.msg, /parameter "missing" is not bound/);
  const r = await post(q(), readRequest([countLabel('c', 'Doomed')], ['c']));
  assert.deepEqual(r.body, { c: [0] });
});

test('headers: aliases, bad booleans, wrong request type', async () => {
  const readBody = readRequest([countLabel('c', 'Seq')], ['c']);
  const writeBody = writeRequest([{ query: { name: 'n', root: { add_n: { label: 'H', properties: [] } } } }]);
  assert.equal((await post(q(), readBody, { 'X-Svc-Warm': 'TRUE' })).status, 200);
  assert.equal((await post(q(), readBody, { 'x-helix-warm': '1' })).status, 200);
  assert.equal((await post(q(), writeBody, { 'X-Svc-Await-Durable': 'true' })).status, 200);
  assert.equal((await post(q(), readBody, { 'X-Svc-Require-Writer': 'true' })).status, 200);
  assert.equal((await post(q(), readBody, { 'X-Svc-Database-Id': 'db1', 'X-Svc-Tenant-Id': 't' })).status, 200);
  const cases: [unknown, Record<string, string>, RegExp][] = [
    [readBody, { 'X-Svc-Warm': 'yes' }, /x-svc-warm/i],
    [readBody, { 'x-helix-require-writer': '2' }, /require-writer/i],
    [writeBody, { 'X-Svc-Warm': 'true' }, /only valid for read requests/],
    [readBody, { 'X-Svc-Await-Durable': 'true' }, /only valid for write requests/],
  ];
  for (const [body, headers, msg] of cases) {
    const res = await post(q(), body, headers);
    assert.equal(res.status, 400, JSON.stringify(headers));
    assert.equal(res.body.error, 'invalid_request_option');
    assert.match(res.body.msg, msg);
  }
  assert.equal((await post(q(), readBody, { 'X-Svc-Await-Durable': 'false' })).status, 200);
});

test('bad input gets a clear 4xx and the server keeps serving', async () => {
  const bad: [string, number, string][] = [
    ['{not json', 400, 'invalid_query_json'],
    [JSON.stringify({ request_type: 'read', query: { read: { entries: [] } } }), 400, 'invalid_batch_arity'],
    [
      JSON.stringify(readRequest([{ query: { name: 'n', root: { add_n: { label: 'X', properties: [] } } } }])),
      400,
      'mutation_in_read_batch',
    ],
  ];
  for (const [body, status, code] of bad) {
    const res = await post(q(), body);
    assert.equal(res.status, status, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['error', 'msg']);
    assert.equal(res.body.error, code);
  }
  const big = await postLarge(q(), Buffer.alloc(17 * 1024 * 1024, 'x'));
  assert.equal(big.status, 413);
  assert.equal(big.body.error, 'payload_too_large');
  assert.equal((await get(server.url() + '/nope')).status, 404);
  assert.equal((await get(server.url() + '/v2/query')).status, 405);
  const ok = await post(q(), readRequest([countLabel('c', 'Seq')], ['c']));
  assert.equal(ok.status, 200);
});

test('bigint-safe ids and i64 values round trip over HTTP', async () => {
  const text =
    '{"request_type":"write","query":{"write":{"entries":[{"query":{"name":"n","root":{"value_map":{"input":{"add_n":{"label":"Big","properties":[["v",{"value":{"i64":9223372036854775807}}],["f",{"value":{"f64":2}}]]}},"properties":["v","f"]}}}}],"returns":["n"]}}}';
  const res = await post(q(), text);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.text, '{"n":[{"v":9223372036854775807,"f":2.0}]}');
});

test('traversal expressions and missing "error" through the writer thread and the read pool', async () => {
  const byVar = (name: string) => ({ nodes: { reference: { var: name } } });
  const count = (input: unknown) => ({ traversal: { root: { count: { input } } } });
  // The plan travels to the writer thread (msgpack), traversal expression and all.
  const made = await post(
    q(),
    writeRequest(
      [
        { query: { name: 'hub', root: { add_n: { label: 'Hub', properties: [] } } } },
        { query: { name: 'a', root: { add_n: { label: 'Spoke', properties: [] } } } },
        { query: { name: 'b', root: { add_n: { label: 'Spoke', properties: [] } } } },
        { query: { root: { add_e: { input: byVar('hub'), label: 'Has', to: { var: 'a' }, properties: [] } } } },
        { query: { root: { add_e: { input: byVar('hub'), label: 'Has', to: { var: 'b' }, properties: [] } } } },
        {
          query: {
            name: 'hub_after',
            root: {
              value_map: {
                properties: ['spokes'],
                input: {
                  set_property: {
                    input: byVar('hub'),
                    name: 'spokes',
                    value: { expr: count({ out: { input: 'context', label: 'Has' } }) },
                  },
                },
              },
            },
          },
        },
      ],
      ['hub_after'],
    ),
  );
  assert.equal(made.status, 200, made.text);
  assert.equal(made.text, '{"hub_after":[{"spokes":2}]}');
  const hubs = { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'Hub' } } } } } };
  const read = await post(
    q(),
    readRequest(
      [
        {
          query: {
            name: 'r',
            root: {
              project: {
                input: hubs,
                projections: [
                  { property: { source: 'spokes', alias: 'stored' } },
                  { expr: { alias: 'counted', expr: count({ out: { input: 'context', label: 'Has' } }) } },
                ],
              },
            },
          },
        },
      ],
      ['r'],
    ),
  );
  assert.equal(read.status, 200, read.text);
  assert.equal(read.text, '{"r":[{"stored":2,"counted":2}]}');
  // A write whose source names a node that does not exist keeps nothing.
  const failed = await post(
    q(),
    writeRequest([
      { query: { root: { add_n: { label: 'Doomed', properties: [] } } } },
      { query: { root: { drop: { input: { nodes: { reference: { ids: [123456] }, missing: 'error' } } } } } },
    ]),
  );
  assert.equal(failed.status, 400, failed.text);
  assert.deepEqual(failed.body, {
    error: 'node_not_found',
    msg: 'query.write.entries[1].query.root.drop.input.nodes.reference: node 123456 does not exist',
  });
  const r = await post(q(), readRequest([countLabel('c', 'Doomed')], ['c']));
  assert.deepEqual(r.body, { c: [0] });
});
