/**
 * The text index layout stamp (layout.ts TEXT_FORMAT, checked in open.ts): a new or
 * text-less database takes it; text index keys of another layout are rebuilt from the
 * stored elements by a writer (text-migration.ts), and refused by a read-only open until then.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { open } from 'lmdb';
import { entryHeader, openStore } from '../../src/store/index.js';
import { open as openDatabase, type Database } from '../../src/index.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
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

const ROOT = new URL('../../../', import.meta.url);
const sq = (v: string) => ({ value: { string: v } });
const run = (db: Database, type: 'read' | 'write', entries: unknown[], returns: string[]) =>
  db.query({ request_type: type, query: { [type]: { entries, returns } } }) as Promise<Record<string, any>>;
const q = (name: string, root: unknown) => ({ query: { name, root } });
const search = (label: string, text: string) =>
  q('x', { text_search_nodes: { label, property: 'body', query_text: sq(text), k: { literal: 10 } } });

/** A folder written by the build before text format 2 (test/fixtures/text-format-1.make.mjs). */
function earlierBuildsFolder(): string {
  const dir = tempDir('trellis-text-format-1-');
  dirs.push(dir);
  writeFileSync(join(dir.path, 'data.mdb'), gunzipSync(readFileSync(new URL('test/fixtures/text-format-1.mdb.gz', ROOT))));
  return dir.path;
}

test('a folder of the earlier text layout: a reader is refused until a writer has rebuilt its text indexes, which answer as before', async () => {
  const path = earlierBuildsFolder();
  await assert.rejects(
    openStore({ path, readOnly: true }),
    /text format 1, this build reads text format 2; open it once with a writer of this build .*which rebuilds them from the stored elements/,
  );
  const logged: string[] = [];
  const writer = await openStore({ path, log: (m) => logged.push(m) });
  // The rebuild is outside any batch: a writer that records the change log continues its
  // history with a reset entry, so its replicas take a new snapshot (docs/replication.md).
  const position = writer.logPosition();
  const [reset] = writer.logEntries(position.lsn, 1);
  assert.equal(reset?.lsn, position.lsn);
  assert.equal(entryHeader(reset.entry).count, 0, 'the last entry is a reset');
  await writer.close();
  assert.ok(
    logged.some((m) => /rebuilt in text format 2 \(1 indexes, 7 documents/.test(m)),
    logged.join('\n'),
  );
  const db = await openDatabase(path);
  try {
    // The earlier build's answer to this search, printed by the fixture's script.
    const expected = [
      { $id: 2, $score: 1.2293404340744019 },
      { $id: 6, $score: 1.0165985822677612 },
      { $id: 0, $score: 0.9056008458137512 },
      { $id: 4, $score: 0.9056008458137512 },
      { $id: 5, $score: 0.3220021724700928 },
    ];
    const rows = (await run(db, 'read', [search('Doc', 'quick fox')], ['x'])).x as { $id: number; $score: number }[];
    assert.deepEqual(
      rows.map((r) => r.$id),
      expected.map((r) => r.$id),
    );
    rows.forEach((r, n) => assert.ok(Math.abs(r.$score - expected[n]!.$score) < 1e-6, `score of ${r.$id}`));
    // Writes after the rebuild go to the new layout.
    await run(db, 'write', [q('n', { add_n: { label: 'Doc', properties: [['body', sq('a new quick fox')]] } })], []);
    assert.equal((await run(db, 'read', [search('Doc', 'new')], ['x'])).x.length, 1);
  } finally {
    await db.close();
  }
  await edit(path, async (env) => assert.equal(metaOf(env).get('text_format'), TEXT_FORMAT));
  const reader = await openStore({ path, readOnly: true });
  await reader.close();
});

test('a text index build of the earlier layout that had stopped part way goes on after the rebuild and indexes every element', async () => {
  const dir = tempDir('trellis-text-format-building-');
  dirs.push(dir);
  const huge = Array.from({ length: 17_000 }, (_, n) => `w${n}`).join(' ');
  const bodies = ['alpha one', 'alpha two', huge, 'alpha three'];
  let db = await openDatabase(dir.path);
  await run(
    db,
    'write',
    bodies.map((body, n) => q(`d${n}`, { add_n: { label: 'Note', properties: [['body', sq(body)]] } })),
    [],
  );
  const receipt = (await run(db, 'write', [q('r', { create_index: { spec: { node_text: { label: 'Note', property: 'body' } } } })], ['r']))
    .r;
  const status = async () => (await run(db, 'read', [q('s', { get_index_operation: { operation_id: receipt.operation_id } })], ['s'])).s;
  while ((await status()).status !== 'blocked') await new Promise((r) => setTimeout(r, 10));
  await db.close();
  // As an earlier build would have left it: no stamp, postings under keys of the old layout.
  await edit(dir.path, async (env) => {
    await metaOf(env).remove('text_format');
    await textOf(env).put(Buffer.from([0, 0, 0, 1, 3, 0, 0x61, 0, 0, 0, 0, 0, 0, 0, 0, 7]), Buffer.from([1, 5]));
  });
  db = await openDatabase(dir.path);
  try {
    assert.equal((await status()).status, 'blocked', 'the build stays where it stopped');
    const fix = { set_property: { input: { nodes: { reference: { ids: [2] } } }, name: 'body', value: sq('alpha short') } };
    await run(db, 'write', [q('e', fix)], []);
    await run(db, 'write', [q('r', { retry_index_operation: { operation_id: receipt.operation_id } })], ['r']);
    while ((await status()).status !== 'succeeded') await new Promise((r) => setTimeout(r, 10));
    const found = (await run(db, 'read', [search('Note', 'alpha')], ['x'])).x as { $id: number }[];
    assert.deepEqual(found.map((r) => r.$id).sort(), [0, 1, 2, 3], 'the elements before the stop were rebuilt, the rest built');
  } finally {
    await db.close();
  }
});

test('another text format stamp (a later build) is rebuilt by a writer as well', async () => {
  const path = await fresh();
  await edit(path, async (env) => void (await metaOf(env).put('text_format', 3)));
  await assert.rejects(openStore({ path, readOnly: true }), /text format 3, this build reads text format 2/);
  const writer = await openStore({ path, log: () => {} });
  await writer.close();
  await edit(path, async (env) => assert.equal(metaOf(env).get('text_format'), TEXT_FORMAT));
});
