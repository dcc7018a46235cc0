/**
 * A snapshot download that was cut resumes (src/replication/snapshot.ts, docs/replication.md):
 * the announcement kept beside the partial file lets the next download continue the same
 * snapshot from where the file ends, checked whole at the end; a snapshot the writer no
 * longer holds is replaced by a new one. A real writer on a loopback port, small pieces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { downloadSnapshot, fileSha256, type SnapshotInfo } from '../../src/replication/snapshot.js';
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
    assert.equal(await fileSha256(resumed.file), info.sha256);
    assert.deepEqual(readdirSync(folder), [`incoming-${info.id}.mdb`], 'the announcement is gone once the file is whole');
    // A cut download of a snapshot the writer does not hold (expired): a new one.
    const gone = randomUUID();
    writeFileSync(join(folder, `incoming-${gone}.mdb`), Buffer.alloc(1000));
    writeFileSync(join(folder, `incoming-${gone}.json`), JSON.stringify({ ...info, id: gone }));
    const fresh = await downloadSnapshot(writer.url, folder, PIECE);
    assert.notEqual(fresh.info.id, gone);
    assert.equal(fresh.resumedFrom, 0);
    assert.equal(await fileSha256(fresh.file), fresh.info.sha256);
    assert.equal(existsSync(join(folder, `incoming-${gone}.mdb`)), false, 'the stale partial file is removed');
  } finally {
    await writer.stop();
    dir.remove();
  }
});
