/**
 * The writer's snapshot routes for replicas (docs/replication.md): `POST
 * /v2/replication/snapshot` makes a compacted copy in the writer thread (flushed before it
 * is announced) and answers its id, size, SHA-256 and the LSN and hash the copy holds;
 * `POST /v2/replication/snapshot/piece` with `{"id","offset","length"}` answers its bytes
 * from `offset` (at most 8 MiB), so a broken download resumes where it stopped.
 */
import { stat } from 'node:fs/promises';
import { GraphError, messageOf, toErrorBody } from '../core/errors.js';
import { fileSha256, newSnapshotPath, PIECE_BYTES, readPiece, type SnapshotInfo } from '../replication/snapshot.js';
import { snapshotPosition } from '../store/index.js';
import { errorBodyResponse, errorResponse } from './http-errors.js';
import type { HttpResponse } from './http-types.js';
import type { Route } from './routes.js';

export interface SnapshotSource {
  readonly dataDir: string;
  /** Makes the copy in a folder (the writer thread's Store.backup). */
  snapshot(folder: string): Promise<void>;
}

async function makeSnapshot(source: SnapshotSource): Promise<HttpResponse> {
  try {
    const { id, folder, file: path } = newSnapshotPath(source.dataDir);
    await source.snapshot(folder);
    // The digest first: it is of the file as the writer made it.
    const sha256 = await fileSha256(path);
    const [position, info] = await Promise.all([snapshotPosition(path), stat(path)]);
    const body: SnapshotInfo = {
      id,
      bytes: info.size,
      sha256,
      lsn: position.lsn,
      hash: position.hash.toString('hex'),
      epoch: position.epoch,
    };
    return { status: 200, body: JSON.stringify(body) };
  } catch (err) {
    return errorResponse('internal_error', `the snapshot failed: ${messageOf(err)}`);
  }
}

async function piece(source: SnapshotSource, body: Buffer): Promise<HttpResponse> {
  try {
    let ask: { id?: unknown; offset?: unknown; length?: unknown };
    try {
      ask = JSON.parse(body.toString('utf8')) as typeof ask;
    } catch {
      throw new GraphError('invalid_query_json', 'the body must be {"id", "offset", "length"}');
    }
    const length = typeof ask.length === 'number' ? ask.length : PIECE_BYTES;
    const bytes =
      typeof ask.id === 'string' && typeof ask.offset === 'number' ? await readPiece(source.dataDir, ask.id, ask.offset, length) : null;
    if (bytes === null)
      return errorResponse('not_found', `no snapshot "${String(ask.id)}" here (snapshots are kept 15 minutes), or a bad offset`);
    return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: bytes };
  } catch (err) {
    return errorBodyResponse(toErrorBody(err));
  }
}

export function replicationRoutes(source: SnapshotSource): Route[] {
  return [
    { method: 'POST', path: '/v2/replication/snapshot', handler: () => makeSnapshot(source) },
    { method: 'POST', path: '/v2/replication/snapshot/piece', handler: (req) => piece(source, req.body) },
  ];
}
