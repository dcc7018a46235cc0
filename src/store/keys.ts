/**
 * Binary keys. Ids are u64 big-endian, so LMDB's byte order is numeric order. Ids never
 * exceed 2^53 (they are allocated one by one; node ids stay below 2^52, layout.ts), so a
 * JS number holds them exactly.
 */
import type { Dir } from './layout.js';

const TWO_32 = 2 ** 32;

/**
 * The kind byte that starts a secondary index's value key (secondary-index.ts): keys sort
 * by kind first, then by value within the kind.
 */
export const VALUE_KEY_KIND = { bool: 0x02, number: 0x03, string: 0x04, date: 0x05 } as const;

/**
 * The kind byte after a text index's id (text-postings.ts): document rows, partition
 * statistics, term heads, full posting blocks; `end` sorts after every kind, bounding the
 * index's range.
 */
export const TEXT_KEY_KIND = { document: 1, stats: 2, head: 3, block: 4, end: 0xff } as const;

/** How a text key holds a tenant (text-postings.ts): none, its bytes (short), or their SHA-256 (hashed). */
export const TEXT_TENANT_KEY = { none: 0, short: 1, hashed: 2 } as const;

/** The byte before the SHA-256 of a term too long to keep in a text key. */
export const HASHED_TERM = 0xff;

export function writeU64(buf: Buffer, offset: number, n: number): void {
  buf.writeUInt32BE(Math.floor(n / TWO_32), offset);
  buf.writeUInt32BE(n >>> 0, offset + 4);
}

export function readU64(buf: Uint8Array, offset: number): number {
  const b = buf as Buffer;
  return b.readUInt32BE(offset) * TWO_32 + b.readUInt32BE(offset + 4);
}

/** A fresh 8-byte key holding an id (range bounds must not share a buffer). */
export function idKey(id: number): Buffer {
  const key = Buffer.allocUnsafe(8);
  writeU64(key, 0, id);
  return key;
}

/**
 * Adjacency keys start [u64 node or block][dir u8][labelId u32 BE]: large-list chunks add
 * [chunk u32 BE], node blocks stop there. Writes that prefix (the label when given).
 */
function writeAdjacencyPrefix(key: Buffer, owner: number, dir: Dir, labelId?: number): Buffer {
  writeU64(key, 0, owner);
  key[8] = dir;
  if (labelId !== undefined) key.writeUInt32BE(labelId, 9);
  return key;
}

/*
 * Keys for a single get, put or remove, written into one shared buffer: lmdb-js copies a
 * key before the call returns, and these are the hottest allocations of loads and hops.
 * Never pass one to getRange or keep it.
 */
const ID_SCRATCH = Buffer.allocUnsafe(8);
const ADJACENCY_SCRATCH = Buffer.allocUnsafe(17);
const BLOCK_SCRATCH = Buffer.allocUnsafe(13);

export function scratchIdKey(id: number): Buffer {
  writeU64(ID_SCRATCH, 0, id);
  return ID_SCRATCH;
}

/** Large-list chunk key [node][dir][labelId][chunk] (adjacency-lists.ts). */
export function scratchAdjacencyKey(node: number, dir: Dir, labelId: number, chunk: number): Buffer {
  writeAdjacencyPrefix(ADJACENCY_SCRATCH, node, dir, labelId).writeUInt32BE(chunk, 13);
  return ADJACENCY_SCRATCH;
}

/** Node block key [block][dir][labelId] (adjacency.ts). */
export function scratchBlockKey(block: number, dir: Dir, labelId: number): Buffer {
  return writeAdjacencyPrefix(BLOCK_SCRATCH, block, dir, labelId);
}

/** Column chunk key: [propertyId][block]. */
export function columnKey(propertyId: number, block: number): Buffer {
  const key = Buffer.allocUnsafe(12);
  key.writeUInt32BE(propertyId, 0);
  writeU64(key, 4, block);
  return key;
}

/**
 * The first and past-the-last keys of every large-list chunk of (node, dir), or of one
 * label's list; with a block number for the node, of every node block of (block, dir).
 */
export function adjacencyRange(owner: number, dir: Dir, labelId?: number): { start: Buffer; end: Buffer } {
  const start = writeAdjacencyPrefix(Buffer.allocUnsafe(labelId === undefined ? 9 : 13), owner, dir, labelId);
  const end = Buffer.from(start);
  if (labelId === undefined) end[8] = dir + 1;
  else end.writeUInt32BE(labelId + 1, 9);
  return { start, end };
}

/** Label id and chunk number of a large-list chunk key. */
export function adjacencyKeyParts(key: Uint8Array): { labelId: number; chunk: number } {
  const b = key as Buffer;
  return { labelId: blockKeyLabel(b), chunk: b.readUInt32BE(13) };
}

/** Label id of an adjacency key (a node block's or a chunk's). */
export const blockKeyLabel = (key: Uint8Array): number => (key as Buffer).readUInt32BE(9);

/**
 * The u64 at the start of the greatest key of `db` (an id, or the block of a node block
 * key), or -1 when the database is empty.
 */
export function greatestLeadingU64(db: { getKeys(options: { reverse: boolean; limit: number }): Iterable<Uint8Array> }): number {
  for (const key of db.getKeys({ reverse: true, limit: 1 })) return readU64(key, 0);
  return -1;
}
