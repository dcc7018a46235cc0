/** Crash and concurrency behaviour of the real server process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countLabel, post, readRequest, startTestServer, tempDir, writeRequest } from '../helpers/server.js';

test('a write acknowledged with X-Svc-Await-Durable survives kill -9', async () => {
  const dir = tempDir();
  try {
    let server = await startTestServer(['--data', dir.path]);
    for (let i = 0; i < 5; i++) {
      const res = await post(
        `${server.url}/v2/query`,
        writeRequest([{ query: { name: 'n', root: { add_n: { label: 'Durable', properties: [['i', { value: { i64: i } }]] } } } }], ['n']),
        { 'X-Svc-Await-Durable': 'true' },
      );
      assert.equal(res.status, 200, res.text);
    }
    await server.kill9();
    server = await startTestServer(['--data', dir.path]);
    const res = await post(`${server.url}/v2/query`, readRequest([countLabel('c', 'Durable')], ['c']));
    assert.deepEqual(res.body, { c: [5] });
    const next = await post(
      `${server.url}/v2/query`,
      writeRequest([{ query: { name: 'n', root: { add_n: { label: 'Durable', properties: [] } } } }], ['n']),
    );
    assert.deepEqual(next.body, { n: [{ $id: 5 }] }, 'ids continue after the crash, never reused');
    await server.stop();
  } finally {
    dir.remove();
  }
});

test('concurrent readers never see a half-applied write batch', async () => {
  const dir = tempDir();
  const server = await startTestServer(['--data', dir.path, '--workers', '2']);
  try {
    const q = `${server.url}/v2/query`;
    // Each batch adds two Pair nodes and an edge between them: any snapshot has an even
    // number of Pair nodes and exactly half as many LINK edges.
    const batch = writeRequest([
      { query: { name: 'a', root: { add_n: { label: 'Pair', properties: [] } } } },
      { query: { name: 'b', root: { add_n: { label: 'Pair', properties: [] } } } },
      { query: { root: { add_e: { input: { nodes: { reference: { var: 'a' } } }, label: 'LINK', to: { var: 'b' }, properties: [] } } } },
    ]);
    const check = readRequest(
      [
        countLabel('pairs', 'Pair'),
        {
          query: {
            name: 'links',
            root: {
              count: {
                input: { edges_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'LINK' } } } } } },
              },
            },
          },
        },
      ],
      ['pairs', 'links'],
    );
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 60; i++) assert.equal((await post(q, batch)).status, 200);
      writing = false;
    })();
    const readers = Array.from({ length: 4 }, async () => {
      let seen = 0;
      while (writing) {
        const res = await post(q, check);
        const pairs = res.body.pairs[0];
        assert.equal(pairs % 2, 0, `odd Pair count ${pairs}`);
        assert.equal(res.body.links[0] * 2, pairs);
        seen++;
      }
      return seen;
    });
    await writer;
    const counts = await Promise.all(readers);
    assert.ok(counts.every((n) => n > 0));
    const final = await post(q, check);
    assert.deepEqual(final.body, { pairs: [120], links: [60] });
  } finally {
    await server.stop();
    dir.remove();
  }
});

test('reader mode serves reads and refuses writes with 503 writer_mode_required', async () => {
  const dir = tempDir();
  try {
    const writer = await startTestServer(['--data', dir.path]);
    await post(`${writer.url}/v2/query`, writeRequest([{ query: { root: { add_n: { label: 'R', properties: [] } } } }]), {
      'X-Svc-Await-Durable': 'true',
    });
    await writer.stop();
    const reader = await startTestServer(['--data', dir.path, '--mode', 'reader']);
    try {
      const q = `${reader.url}/v2/query`;
      assert.deepEqual((await post(q, readRequest([countLabel('c', 'R')], ['c']))).body, { c: [1] });
      const w = await post(q, writeRequest([{ query: { root: { add_n: { label: 'R', properties: [] } } } }]));
      assert.equal(w.status, 503);
      assert.equal(w.body.error, 'writer_mode_required');
      const rw = await post(q, readRequest([countLabel('c', 'R')], ['c']), { 'X-Svc-Require-Writer': 'true' });
      assert.equal(rw.status, 503);
      assert.equal(rw.body.error, 'writer_mode_required');
      const health = await fetch(`${reader.url}/healthz`).then((r) => r.json());
      assert.deepEqual(health, { ready: true, mode: 'reader', index_runtime: 'ready' });
    } finally {
      await reader.stop();
    }
  } finally {
    dir.remove();
  }
});
