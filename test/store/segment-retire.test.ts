/**
 * When a replaced vector segment file goes (vector-builder-client.ts): a writer no replica
 * follows deletes it as soon as no open read, of any thread or process, holds a snapshot
 * older than the commit that replaced it; a read that does keeps it until that read ends
 * (or the grace passes); a writer that keeps its log for a publisher (replicas fetch files
 * by name) keeps the grace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../helpers/prng.js';
import { tempDir } from '../helpers/server.js';
import type { StoreOptions } from '../../src/store/index.js';
import {
  addDocs,
  built,
  clusteredVectors,
  createIndex,
  openVectorDb,
  reachChecked,
  until,
  type Spec,
  type VectorDb,
} from '../helpers/vectors.js';

const SPEC: Spec = { label: 'Doc', property: 'emb', dimension: 8, metric: 'euclidean' };
const LMDB = new URL('../../../node_modules/lmdb/dist/index.cjs', import.meta.url).pathname;

const segments = (path: string): string[] => readdirSync(join(path, 'vectors')).filter((n) => n.endsWith('.usearch'));

/** Adds 300 vectors and waits until they are in a published segment the builder keeps (its reach sweep's last pass publishes once more). */
async function addAndPublish(db: VectorDb, rng: Rng): Promise<void> {
  await addDocs(db, clusteredVectors(rng, 300, 8));
  await built(db);
  await reachChecked(db);
}

/** A database with one segment built; its file's name. */
async function oneSegment(path: string, options: Partial<StoreOptions> = {}): Promise<{ db: VectorDb; first: string; rng: Rng }> {
  const db = await openVectorDb({ path, ...options });
  await createIndex(db, SPEC);
  const rng = new Rng(3);
  await addAndPublish(db, rng);
  await until(() => segments(path).length === 1, 'one segment');
  return { db, first: segments(path)[0]!, rng };
}

/** Another process holding a read transaction of the folder open until its stdin closes. */
async function heldRead(path: string): Promise<{ release: () => Promise<void> }> {
  const script = `
    const { open } = require(${JSON.stringify(LMDB)});
    const env = open({ path: ${JSON.stringify(path)}, readOnly: true, maxDbs: 128 });
    const txn = env.useReadTransaction();
    env.get('x', { transaction: txn });
    process.stdout.write('holding\\n');
    process.stdin.resume();
    process.stdin.on('end', () => { txn.done(); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the reading process exited (${code})`)));
  });
  return {
    release: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

test('a replaced segment goes at once when no read is older than its replacement, however long the grace', async () => {
  const dir = tempDir('trellis-segment-retire-');
  try {
    const { db, first, rng } = await oneSegment(dir.path);
    await addAndPublish(db, rng);
    // The default grace is a minute; every replaced file goes within seconds.
    await until(() => !existsSync(join(dir.path, 'vectors', first)), 'the replaced segment to be deleted', 10_000);
    await until(() => segments(dir.path).length === 1, 'only the current segment left', 10_000);
    await db.close();
  } finally {
    dir.remove();
  }
});

test('a read older than the replacement keeps the file until it ends, in another process too', async () => {
  const dir = tempDir('trellis-segment-retire-');
  try {
    const { db, first, rng } = await oneSegment(dir.path);
    const reader = await heldRead(dir.path);
    await addAndPublish(db, rng);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.ok(existsSync(join(dir.path, 'vectors', first)), 'kept while the older read is open');
    assert.ok(segments(dir.path).length > 1, 'and a newer one beside it');
    await reader.release();
    await until(() => !existsSync(join(dir.path, 'vectors', first)), 'deleted once the read ended', 10_000);
    await db.close();
  } finally {
    dir.remove();
  }
});

test('a writer that keeps its log for a publisher (replicas fetch files by name) keeps the grace', async () => {
  const dir = tempDir('trellis-segment-retire-');
  try {
    const { db, first, rng } = await oneSegment(dir.path, { keepLog: true });
    await addAndPublish(db, rng);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.ok(existsSync(join(dir.path, 'vectors', first)), 'kept for the grace');
    assert.ok(segments(dir.path).length > 1, 'and a newer one beside it');
    await db.close();
  } finally {
    dir.remove();
  }
});
