/**
 * The index flow a HelixDB SDK drives, over HTTP against a real server (writer thread,
 * read workers): create_index answers a receipt, get_index_operation is polled until
 * `succeeded`, searches answer with `$score` / `$distance`, and after drop_index a search
 * is 400 `index_not_found`. Index errors keep the `{"error","msg"}` body and their status.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post, readRequest, serverForFile, startTestServer, tempDir, writeRequest } from '../helpers/server.js';

const server = serverForFile();
const entry = (name: string, root: unknown) => ({ query: { name, root } });

async function poll(operationId: string): Promise<Record<string, unknown>> {
  for (let n = 0; n < 500; n++) {
    const res = await post(server.query(), readRequest([entry('s', { get_index_operation: { operation_id: operationId } })], ['s']));
    assert.equal(res.status, 200, res.text);
    if (res.body.s.status === 'succeeded') return res.body.s;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the operation did not succeed');
}

test('create, poll, search and drop text and vector indexes over HTTP', async () => {
  const docs = [
    ['graph databases store edges', [1, 0, 0]],
    ['vector search with hnsw', [0, 1, 0]],
    ['text search with bm25 over graph nodes', [0, 0, 1]],
  ] as const;
  const made = await post(
    server.query(),
    writeRequest(
      docs.map(([body, emb], n) =>
        entry(`d${n}`, {
          add_n: {
            label: 'Doc',
            properties: [
              ['body', { value: { string: body } }],
              ['emb', { value: { f32_array: emb } }],
            ],
          },
        }),
      ),
    ),
  );
  assert.equal(made.status, 200, made.text);
  const text = { node_text: { label: 'Doc', property: 'body' } };
  const vector = { node_vector: { label: 'Doc', property: 'emb', dimension: 3, metric: 'cosine' } };
  for (const spec of [text, vector]) {
    const res = await post(server.query(), writeRequest([entry('r', { create_index: { spec, if_not_exists: true } })], ['r']));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.r.kind, 'accepted', 'a receipt is one object, not an array');
    const status = await poll(res.body.r.operation_id);
    assert.equal(status.index_id, res.body.r.index_id);
  }
  const search = readRequest(
    [
      entry('t', { text_search_nodes: { label: 'Doc', property: 'body', query_text: { value: { string: 'graph' } }, k: { literal: 5 } } }),
      entry('v', {
        vector_search_nodes: { label: 'Doc', property: 'emb', query_vector: { value: { f32_array: [0, 1, 0.1] } }, k: { literal: 1 } },
      }),
    ],
    ['t', 'v'],
  );
  const found = await post(server.query(), search);
  assert.equal(found.status, 200, found.text);
  assert.deepEqual(
    found.body.t.map((r: { $id: number }) => r.$id),
    [0, 2],
  );
  assert.ok(found.body.t[0].$score > found.body.t[1].$score);
  assert.equal(found.body.v.length, 1);
  assert.equal(found.body.v[0].$id, 1);
  assert.ok(found.body.v[0].$distance > 0 && found.body.v[0].$distance < 0.01);

  const drop = await post(server.query(), writeRequest([entry('r', { drop_index: { spec: text } })], ['r']));
  assert.equal(drop.status, 200, drop.text);
  const gone = await post(server.query(), search);
  assert.equal(gone.status, 400);
  assert.deepEqual(Object.keys(gone.body), ['error', 'msg']);
  assert.equal(gone.body.error, 'index_not_found');
  assert.match(gone.body.msg, /Doc\.body/);

  const badId = await post(server.query(), readRequest([entry('s', { get_index_operation: { operation_id: 'not-a-uuid' } })], ['s']));
  assert.equal(badId.status, 400);
  assert.equal(badId.body.error, 'invalid_index_operation_id');
});

test('kill -9 right after acknowledged vector writes and an accepted build: nothing queued is lost, the build completes after restart', async () => {
  const dir = tempDir('trellis-index-crash-');
  let server = await startTestServer(['--data', dir.path]);
  try {
    const vector = { node_vector: { label: 'V', property: 'emb', dimension: 4, metric: 'euclidean' } };
    const made = await post(`${server.url}/v2/query`, writeRequest([entry('r', { create_index: { spec: vector } })], ['r']));
    const vectorOp = made.body.r.operation_id as string;
    // Enough rows that a secondary build is still running when the process dies.
    for (let n = 0; n < 10; n++) {
      const rows = Array.from({ length: 2000 }, (_, k) => ({ age: n * 2000 + k }));
      const load = {
        request_type: 'write',
        parameters: { rows },
        query: {
          write: {
            entries: [
              {
                for_each: {
                  param: 'rows',
                  body: [entry('n', { add_n: { label: 'P', properties: [['age', { expr: { param: 'age' } }]] } })],
                },
              },
            ],
            returns: [],
          },
        },
      };
      assert.equal((await post(`${server.url}/v2/query`, load)).status, 200);
    }
    await waitFor(server.url, vectorOp);
    const vectors = Array.from({ length: 300 }, (_, n) => [n, n % 7, n % 3, 1]);
    const written = await post(
      `${server.url}/v2/query`,
      writeRequest(vectors.map((v, n) => entry(`v${n}`, { add_n: { label: 'V', properties: [['emb', { value: { f32_array: v } }]] } }))),
    );
    assert.equal(written.status, 200);
    const build = await post(
      `${server.url}/v2/query`,
      writeRequest([entry('r', { create_index: { spec: { node_range: { label: 'P', property: 'age' } } } })], ['r']),
    );
    await server.kill9();
    server = await startTestServer(['--data', dir.path]);
    const status = await waitFor(server.url, build.body.r.operation_id);
    assert.equal((status.progress as Record<string, string>).entities, '20000');
    // Every acknowledged vector is found by its own value, drained or not.
    for (const n of [0, 150, 299]) {
      const res = await post(
        `${server.url}/v2/query`,
        readRequest(
          [
            entry('x', {
              vector_search_nodes: { label: 'V', property: 'emb', query_vector: { value: { f32_array: vectors[n] } }, k: { literal: 1 } },
            }),
          ],
          ['x'],
        ),
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.x[0].$distance, 0);
    }
  } finally {
    await server.stop();
    dir.remove();
  }
});

async function waitFor(url: string, operationId: string): Promise<Record<string, unknown>> {
  for (let n = 0; n < 1000; n++) {
    const res = await post(`${url}/v2/query`, readRequest([entry('s', { get_index_operation: { operation_id: operationId } })], ['s']));
    if (res.status === 200 && res.body.s.status === 'succeeded') return res.body.s;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`operation ${operationId} did not succeed`);
}
