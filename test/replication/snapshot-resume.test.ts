/**
 * A snapshot download that was cut resumes (src/replication/snapshot.ts, docs/replication.md):
 * the announcement kept beside the partial file lets the next download continue the same
 * snapshot from where the file ends, checked whole at the end against the writer's digest;
 * a snapshot the writer no longer holds is replaced by a new one; a partial file that does
 * not hold the writer's bytes is refused and removed. A real writer on a loopback port,
 * small pieces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileSha256 } from '../../src/replication/hashing-sink.js';
import { downloadPieces, fileSink, PieceRefused } from '../../src/replication/pieces.js';
import { downloadSnapshot, type SnapshotInfo } from '../../src/replication/snapshot.js';
import { startTestServer, tempDir } from '../helpers/server.js';

const PIECE = 64 * 1024;

async function post(url: string, path: string, body: object | null): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', ...(body === null ? {} : { body: JSON.stringify(body) }) });
}

test('a cut snapshot download resumes the same snapshot; one the writer no longer holds is replaced', async () => {
  const dir = tempDir('trellis-snapshot-resume-');
  const writer = await startTestServer(['--data', join(dir.path, 'writer')]);
  const folder = join(dir.path, 'incoming');
  try {
    const add = (i: number) => ({
      request_type: 'write',
      query: {
        write: {
          entries: Array.from({ length: 200 }, (_, k) => ({
            query: { root: { add_n: { label: 'D', properties: [['text', { value: { string: `document ${i}-${k} `.repeat(20) } }]] } } },
          })),
          returns: [],
        },
      },
    });
    for (let i = 0; i < 10; i++) assert.equal((await post(writer.url, '/v2/query', add(i))).status, 200);
    // A download cut after three pieces: the announcement and the first bytes are there.
    const info = (await (await post(writer.url, '/v2/replication/snapshot', null)).json()) as SnapshotInfo;
    assert.ok(info.bytes > 6 * PIECE, `the snapshot has ${info.bytes} bytes`);
    mkdirSync(folder, { recursive: true });
    const parts: Buffer[] = [];
    for (let offset = 0; offset < 3 * PIECE; offset += PIECE) {
      const piece = await post(writer.url, '/v2/replication/snapshot/piece', { id: info.id, offset, length: PIECE });
      parts.push(Buffer.from(await piece.arrayBuffer()));
    }
    writeFileSync(join(folder, `incoming-${info.id}.mdb`), Buffer.concat(parts));
    writeFileSync(join(folder, `incoming-${info.id}.json`), JSON.stringify(info));
    const resumed = await downloadSnapshot(writer.url, folder, PIECE);
    assert.equal(resumed.info.id, info.id, 'the same snapshot, not a new one');
    assert.equal(resumed.resumedFrom, 3 * PIECE);
    const digest = async (id: string) =>
      ((await (await post(writer.url, '/v2/replication/snapshot/digest', { id })).json()) as { sha256: string }).sha256;
    assert.equal(resumed.sha256, await digest(info.id));
    assert.equal(await fileSha256(resumed.file), resumed.sha256, 'the file holds what was hashed');
    assert.deepEqual(readdirSync(folder), [`incoming-${info.id}.mdb`], 'the announcement is gone once the file is whole');
    // A cut download of a snapshot the writer does not hold (expired): a new one.
    const gone = randomUUID();
    writeFileSync(join(folder, `incoming-${gone}.mdb`), Buffer.alloc(1000));
    writeFileSync(join(folder, `incoming-${gone}.json`), JSON.stringify({ ...info, id: gone }));
    const fresh = await downloadSnapshot(writer.url, folder, PIECE);
    assert.notEqual(fresh.info.id, gone);
    assert.equal(fresh.resumedFrom, 0);
    assert.equal(fresh.sha256, await digest(fresh.info.id));
    assert.equal(await fileSha256(fresh.file), fresh.sha256);
    assert.equal(existsSync(join(folder, `incoming-${gone}.mdb`)), false, 'the stale partial file is removed');
    assert.equal((await post(writer.url, '/v2/replication/snapshot/digest', { id: gone })).status, 404);
    // A partial file whose bytes are not the writer's (a corrupted disk): the whole-file
    // check refuses it, and the next download starts over.
    const bad = Buffer.concat(parts);
    bad[PIECE + 7]! ^= 0xff;
    rmSync(fresh.file);
    writeFileSync(join(folder, `incoming-${info.id}.mdb`), bad);
    writeFileSync(join(folder, `incoming-${info.id}.json`), JSON.stringify(info));
    await assert.rejects(downloadSnapshot(writer.url, folder, PIECE), /arrived with SHA-256 [0-9a-f]{64}, the writer's is/);
    assert.deepEqual(readdirSync(folder), [], 'the refused file and its announcement are removed');
  } finally {
    await writer.stop();
    dir.remove();
  }
});

test('a piece refused while an earlier one is still coming is the download error, not an unhandled rejection', async () => {
  // The first piece answers late, the second at once with 404: before the fix the second's
  // rejection had no handler until the first settled, which ends a process.
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { offset } = JSON.parse(body) as { offset: number };
      if (offset === 0) setTimeout(() => res.writeHead(404).end('gone'), 300);
      else res.writeHead(404).end('gone');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  const dir = tempDir('trellis-pieces-');
  const fd = openSync(join(dir.path, 'file'), 'w');
  try {
    const { port } = server.address() as AddressInfo;
    await assert.rejects(
      downloadPieces(
        `http://127.0.0.1:${port}/piece`,
        (offset, length) => ({ offset, length }),
        fileSink(fd),
        0,
        4 * PIECE,
        'the file',
        PIECE,
      ),
      (err: unknown) => err instanceof PieceRefused && err.status === 404 && /at byte 0:/.test(err.message),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    closeSync(fd);
    server.close();
    dir.remove();
  }
});
