/**
 * kill -9 in the middle of an import. Offline: the target folder opens and holds nothing
 * of the import (the build lives in a temporary folder until one rename), and the next
 * import removes that leftover. Online: the server is killed while batches stream in; the
 * folder opens with whole batches only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { open } from '../../src/index.js';
import { startTestServer, tempDir } from '../helpers/server.js';
import { runImportCli, writeLines } from '../helpers/bulk-io.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;

function bigFiles(dir: string, nodes: number, edges: number): void {
  const n = ['uid:ID,name,score:double'];
  for (let i = 0; i < nodes; i++) n.push(`${i},name ${i},${i / 3}`);
  writeLines(dir, 'n.csv', n);
  const e = [':START_ID,:END_ID,w:long'];
  for (let i = 0; i < edges; i++) e.push(`${i % nodes},${(i * 31) % nodes},${i}`);
  writeLines(dir, 'e.csv', e);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function counts(path: string): Promise<[number, number]> {
  const db = await open(path);
  try {
    return db.store.read((r) => [r.nodeCount(), r.edgeCount()]);
  } finally {
    await db.close();
  }
}

/** `trellis import` of n.csv and e.csv (in `cwd`) into `target`, as a child process. */
function offlineImport(cwd: string, target: string, stdio: 'ignore' | 'pipe'): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [CLI, 'import', '--data', target, '--nodes', 'N=n.csv', '--edges', 'E=e.csv', '--progress', 'none'], {
    cwd,
    stdio: ['ignore', stdio, stdio],
  }) as ChildProcessByStdio<null, Readable, Readable>;
}

/** Waits (up to 4 s) until an offline import into `target` builds in its temporary folder. */
async function buildStarted(target: string): Promise<void> {
  for (let i = 0; i < 400 && !(existsSync(target) && readdirSync(target).some((f) => f.startsWith('.import-'))); i++) await sleep(10);
}

test('kill -9 during an offline import: the folder holds nothing of it; the next import cleans up and loads', async () => {
  const dir = tempDir();
  try {
    bigFiles(dir.path, 20_000, 400_000);
    const target = join(dir.path, 'db');
    const child = offlineImport(dir.path, target, 'ignore');
    const exited = new Promise((r) => child.once('exit', r));
    // Killed once its build is under way, in its temporary folder.
    await buildStarted(target);
    await sleep(150);
    child.kill('SIGKILL');
    await exited;
    assert.ok(
      readdirSync(target).some((f) => f.startsWith('.import-')),
      'killed while building',
    );
    assert.equal(existsSync(join(target, 'data.mdb')), false, 'nothing moved into place');
    assert.deepEqual(await counts(target), [0, 0]);
    const again = await runImportCli(['--data', 'db', '--nodes', 'N=n.csv', '--edges', 'E=e.csv'], dir.path);
    assert.equal(again.code, 0, again.err);
    assert.deepEqual(await counts(target), [20_000, 400_000]);
    assert.deepEqual(
      readdirSync(target).filter((f) => f.startsWith('.import-')),
      [],
      'the leftover is gone',
    );
  } finally {
    dir.remove();
  }
});

test('Ctrl+C during an offline import: it stops, says so, exits 130, and the folder is as it was', async () => {
  const dir = tempDir();
  try {
    bigFiles(dir.path, 20_000, 400_000);
    const target = join(dir.path, 'db');
    const child = offlineImport(dir.path, target, 'pipe');
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    await buildStarted(target);
    child.kill('SIGINT');
    const code = await exited;
    assert.equal(code, 130, err);
    assert.match(err, /interrupted; .*db is as it was before the import/);
    assert.deepEqual(readdirSync(target), [], 'the temporary folder and the lock are gone');
    assert.deepEqual(await counts(target), [0, 0]);
  } finally {
    dir.remove();
  }
});

test('kill -9 of the server during an online import: the folder opens with whole batches only', async () => {
  const dir = tempDir();
  try {
    bigFiles(dir.path, 100_000, 0);
    const target = join(dir.path, 'db');
    const server = await startTestServer(['--data', target]);
    const child = spawn(
      process.execPath,
      [CLI, 'import', '--url', server.url, '--batch-rows', '500', '--nodes', 'N=n.csv', '--progress', 'none'],
      { cwd: dir.path, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    // Killed once a few batches are in: polled over HTTP.
    for (let i = 0; i < 500; i++) {
      const res = await fetch(`${server.url}/v2/query`, {
        method: 'POST',
        body: JSON.stringify({
          request_type: 'read',
          query: {
            read: { entries: [{ query: { name: 'r', root: { count: { input: { nodes: { reference: 'all' } } } } } }], returns: ['r'] },
          },
        }),
      });
      if (((await res.json()) as { r: number[] }).r[0]! >= 1000) break;
      await sleep(10);
    }
    await server.kill9();
    const code = await exited;
    const [nodes] = await counts(target);
    assert.ok(nodes >= 1000 && nodes < 100_000, `killed mid-way (${nodes} nodes, import exit ${code})`);
    assert.equal(nodes % 500, 0, `whole batches of 500 only, found ${nodes}`);
  } finally {
    dir.remove();
  }
});
