/**
 * The writer's snapshot routes for replicas (docs/replication.md): `POST
 * /v2/replication/snapshot` makes a copy in the writer thread (flushed before it
 * is announced) and answers its id, size and the LSN and hash the copy holds;
 * `POST /v2/replication/snapshot/piece` with `{"id","offset","length"}` answers its bytes
 * from `offset` (at most 8 MiB), so a broken download resumes where it stopped; `POST
 * /v2/replication/snapshot/digest` with `{"id"}` answers its SHA-256 (computed while the
 * pieces travel, so the answer may wait for it); `POST
 * /v2/replication/segment` with `{"name","offset","length"}` answers the bytes of a vector
 * segment file the same way (replication/segments.ts).
 */
import { stat } from 'node:fs/promises';
import { GraphError, messageOf, toErrorBody } from '../core/errors.js';
import { join } from 'node:path';
import { PIECE_BYTES, readFilePiece, type FilePiece } from '../replication/pieces.js';
import { newSnapshotPath, readPiece, SnapshotDigests, type SnapshotInfo } from '../replication/snapshot.js';
import { isSegmentName, segmentDir, snapshotPosition } from '../store/index.js';
import { errorBodyResponse, errorResponse } from './http-errors.js';
import type { HttpResponse } from './http-types.js';
import type { Route } from './routes.js';

export interface SnapshotSource {
  readonly dataDir: string;
  /** Makes the copy in a folder (the writer thread's Store.backup). */
  snapshot(folder: string): Promise<void>;
}

async function makeSnapshot(source: SnapshotSource, digests: SnapshotDigests): Promise<HttpResponse> {
  try {
    const { id, folder, file: path } = newSnapshotPath(source.dataDir);
    await source.snapshot(folder);
    // The position first: the copy is opened to read it, and the digest is of the file as
    // it is from then on.
    const [position, info] = await Promise.all([snapshotPosition(path), stat(path)]);
    digests.start(id);
    const body: SnapshotInfo = {
      id,
      bytes: info.size,
      lsn: position.lsn,
      hash: position.hash.toString('hex'),
      epoch: position.epoch,
    };
    return { status: 200, body: JSON.stringify(body) };
  } catch (err) {
    return errorResponse('internal_error', `the snapshot failed: ${messageOf(err)}`);
  }
}

/** A piece (or digest) request's body: what names the file, the offset, the length (PIECE_BYTES by default). */
function pieceAsk(body: Buffer, name: 'id' | 'name'): { file: unknown; offset: unknown; length: number } {
  let ask: Record<string, unknown>;
  try {
    ask = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new GraphError(
      'invalid_query_json',
      `the body must be a JSON object: {"${name}", "offset", "length"} for a piece, {"id"} for a digest`,
    );
  }
  return { file: ask[name], offset: ask.offset, length: typeof ask.length === 'number' ? ask.length : PIECE_BYTES };
}

/** A piece's answer: its buffer serves a later piece once uWS has taken the bytes. */
function pieceResponse(piece: FilePiece): HttpResponse {
  return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: piece.bytes, sent: piece.release };
}

async function piece(source: SnapshotSource, body: Buffer): Promise<HttpResponse> {
  try {
    const ask = pieceAsk(body, 'id');
    const piece =
      typeof ask.file === 'string' && typeof ask.offset === 'number'
        ? await readPiece(source.dataDir, ask.file, ask.offset, ask.length)
        : null;
    if (piece === null)
      return errorResponse('not_found', `no snapshot "${String(ask.file)}" here (snapshots are kept 15 minutes), or a bad offset`);
    return pieceResponse(piece);
  } catch (err) {
    return errorBodyResponse(toErrorBody(err));
  }
}

async function digest(digests: SnapshotDigests, body: Buffer): Promise<HttpResponse> {
  try {
    const { file } = pieceAsk(body, 'id');
    const sha256 = typeof file === 'string' ? await digests.of(file) : null;
    if (sha256 === null) return errorResponse('not_found', `no snapshot "${String(file)}" here (snapshots are kept 15 minutes)`);
    return { status: 200, body: JSON.stringify({ sha256 }) };
  } catch (err) {
    return errorBodyResponse(toErrorBody(err));
  }
}

/** A piece of a vector segment file (a replica fetches the segments its pointers name). */
async function segmentPiece(source: SnapshotSource, body: Buffer): Promise<HttpResponse> {
  try {
    const ask = pieceAsk(body, 'name');
    const piece =
      typeof ask.file === 'string' && isSegmentName(ask.file) && typeof ask.offset === 'number'
        ? await readFilePiece(join(segmentDir(source.dataDir), ask.file), ask.offset, ask.length)
        : null;
    if (piece === null)
      return errorResponse(
        'not_found',
        `no vector segment "${String(ask.file)}" here (a replaced segment is deleted a minute after its replacement), or a bad offset`,
      );
    return pieceResponse(piece);
  } catch (err) {
    return errorBodyResponse(toErrorBody(err));
  }
}

export function replicationRoutes(source: SnapshotSource): Route[] {
  const digests = new SnapshotDigests(source.dataDir);
  return [
    { method: 'POST', path: '/v2/replication/snapshot', handler: () => makeSnapshot(source, digests) },
    { method: 'POST', path: '/v2/replication/snapshot/piece', handler: (req) => piece(source, req.body) },
    { method: 'POST', path: '/v2/replication/snapshot/digest', handler: (req) => digest(digests, req.body) },
    { method: 'POST', path: '/v2/replication/segment', handler: (req) => segmentPiece(source, req.body) },
  ];
}
