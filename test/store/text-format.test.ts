/**
 * The text index layout stamp (layout.ts TEXT_FORMAT, checked in open.ts): a new or
 * text-less database takes it; text index keys of an earlier layout are refused with what
 * to do, by a writer and by a read-only open alike.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { open } from 'lmdb';
import { openStore } from '../../src/store/index.js';
import { TEXT_FORMAT } from '../../src/store/layout.js';
import { tempDir } from '../helpers/server.js';

const dirs: { remove(): void }[] = [];
after(() => dirs.forEach((d) => d.remove()));

async function fresh(): Promise<string> {
  const dir = tempDir('trellis-text-format-');
  dirs.push(dir);
  const store = await openStore({ path: dir.path });
  await store.write((w) => w.createNode('N', { body: 'words' }));
  await store.close();
  return dir.path;
}

/** Edits the folder's LMDB file directly, as an earlier build would have left it. */
async function edit(path: string, fn: (env: ReturnType<typeof open>) => Promise<void>): Promise<void> {
  const env = open({ path, maxDbs: 128 });
  await fn(env);
  await env.close();
}

const metaOf = (env: ReturnType<typeof open>) => env.openDB('meta', {});
const textOf = (env: ReturnType<typeof open>) => env.openDB('text_index', { encoding: 'binary', keyEncoding: 'binary' });

test(`a new database is stamped with text format ${TEXT_FORMAT} and opens again`, async () => {
  const path = await fresh();
  await edit(path, async (env) => assert.equal(metaOf(env).get('text_format'), TEXT_FORMAT));
  const again = await openStore({ path });
  await again.close();
  const reader = await openStore({ path, readOnly: true });
  await reader.close();
});

test('a database of an earlier build without text index keys opens and takes the stamp', async () => {
  const path = await fresh();
  await edit(path, async (env) => void (await metaOf(env).remove('text_format')));
  const reader = await openStore({ path, readOnly: true });
  await reader.close();
  const writer = await openStore({ path });
  await writer.close();
  await edit(path, async (env) => assert.equal(metaOf(env).get('text_format'), TEXT_FORMAT));
});

test('text index keys of the earlier layout (no stamp) or of another stamp are refused, saying what to do', async () => {
  const path = await fresh();
  await edit(path, async (env) => {
    await metaOf(env).remove('text_format');
    await textOf(env).put(Buffer.from([0, 0, 0, 1, 3, 0, 0x61, 0, 0, 0, 0, 0, 0, 0, 0, 7]), Buffer.from([1, 5]));
  });
  const refusal =
    /text format 1, this build reads text format 2; with the build that wrote them, drop its text indexes \(drop_index\), then create them again/;
  await assert.rejects(openStore({ path }), refusal);
  await assert.rejects(openStore({ path, readOnly: true }), refusal);
  await edit(path, async (env) => void (await metaOf(env).put('text_format', 3)));
  await assert.rejects(openStore({ path }), /text format 3, this build reads text format 2/);
});
