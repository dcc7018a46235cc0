/**
 * A full disk, end to end: the write that does not fit gets 500 storage_error saying the
 * disk is full, the writer thread stays up, writes sent alongside it commit, reads and
 * health are unaffected, and writes work again as soon as space is freed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { countLabel, post, readRequest, startTestServer, writeRequest } from '../helpers/server.js';
import { mountTmpfs } from '../helpers/tmpfs.js';

const addNode = (label: string, text: string) =>
  writeRequest([{ query: { name: 'n', root: { add_n: { label, properties: [['text', { value: { string: text } }]] } } } }], ['n']);

test('a full disk: the write that does not fit gets a storage_error saying so; the writer, reads and health carry on; freeing space heals', async (t) => {
  const fs = mountTmpfs(12 * 1024 * 1024);
  if (typeof fs === 'string') {
    t.skip(fs);
    return;
  }
  const server = await startTestServer(['--data', join(fs.path, 'db')]);
  try {
    const q = `${server.url}/v2/query`;
    for (let i = 0; i < 3; i++) assert.equal((await post(q, addNode('Small', `before ${i}`))).status, 200);
    const filler = fs.fill(1_500_000);
    const big = addNode('Big', 'x'.repeat(4_000_000));

    let committed = 3;
    for (let round = 0; round < 3; round++) {
      // The big write and small ones at once: they may share a commit, which the big one
      // dooms. The failed commit's partial writes may take the last free bytes, so a small
      // write may fail too, but only with the same clear storage_error, never by losing
      // the writer (test/store/commits.test.ts shows them committing when there is room).
      const [bigRes, ...smalls] = await Promise.all([
        post(q, big),
        ...[0, 1, 2].map((i) => post(q, addNode('Small', `round ${round} ${i}`))),
      ]);
      assert.equal(bigRes.status, 500, bigRes.text);
      assert.equal(bigRes.body.error, 'storage_error');
      assert.match(bigRes.body.msg, /the disk holding .* is full/);
      assert.deepEqual(Object.keys(bigRes.body).sort(), ['error', 'msg']);
      for (const s of smalls) {
        if (s.status === 200) committed++;
        else assert.match(`${s.status} ${s.body.error} ${s.body.msg}`, /^500 storage_error the disk holding .* is full/);
      }
      const ready = await fetch(`${server.url}/readyz`);
      assert.equal(ready.status, 200, 'the writer thread stayed up');
      const count = await post(q, readRequest([countLabel('small', 'Small'), countLabel('big', 'Big')], ['small', 'big']));
      assert.deepEqual(count.body, { small: [committed], big: [0] }, 'every acknowledged write is there, the failed ones are not');
    }

    rmSync(filler);
    const again = await Promise.all([post(q, big), post(q, addNode('Small', 'after'))]);
    for (const res of again) assert.equal(res.status, 200, `writes work again once space is freed: ${res.text}`);
    const count = await post(q, readRequest([countLabel('small', 'Small'), countLabel('big', 'Big')], ['small', 'big']));
    assert.deepEqual(count.body, { small: [committed + 1], big: [1] });
    assert.doesNotMatch(server.output(), /writer thread (failed|stopped)/, 'the writer thread never died');
  } finally {
    await server.stop();
    fs.unmount();
  }
});
