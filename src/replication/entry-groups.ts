/**
 * How change-log entries travel in stream messages (docs/replication.md, "The publisher"). A
 * message holds one of:
 * - one whole entry: the payload is the entry, the `Trellis-Hash` header its hash;
 * - a group of several whole, consecutive entries (`Trellis-Entries: n`, n ≥ 2): the payload
 *   is, per entry, `[u32 length][32-byte hash][entry]` (little-endian);
 * - one part of an entry larger than a message (`Trellis-Part: i/k`): the parts, in order,
 *   concatenated are the entry.
 *
 * Groups exist because a message has a fixed cost on both ends (a JetStream request and its
 * acknowledgement, headers, a socket write): a writer answering thousands of small batches
 * a second publishes what one flush made durable as a few messages, not one per batch.
 * Every message carries the LSN and hash of its last entry, so the message ids (the last
 * LSN), the expected-last-id fence and the stream's binary search by LSN work alike for all
 * three.
 */
import { HASH_BYTES, type LoggedEntry } from '../store/index.js';

/** Bytes an entry takes in a group besides its own: length and hash. */
export const GROUP_ENTRY_OVERHEAD = 4 + HASH_BYTES;

/** What the stream's decoder tells of one message (nats.ts LogMessage). */
export interface EntryMessage {
  /** The LSN of the message's last (or only) entry. */
  readonly lsn: number;
  /** How many whole entries it holds (1 for a part of a split entry). */
  readonly count: number;
  readonly part: number;
  readonly parts: number;
  /** hash of entry `lsn`, hex. */
  readonly hash: string;
  readonly data: Uint8Array;
}

/** The first LSN a message holds. */
export function firstLsn(m: EntryMessage): number {
  return m.lsn - m.count + 1;
}

/** The payload of a group of entries (at least two, consecutive). */
export function encodeGroup(entries: readonly LoggedEntry[]): Buffer {
  let bytes = 0;
  for (const e of entries) bytes += GROUP_ENTRY_OVERHEAD + e.entry.length;
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const e of entries) {
    out.writeUInt32LE(e.entry.length, at);
    out.set(e.hash, at + 4);
    out.set(e.entry, at + GROUP_ENTRY_OVERHEAD);
    at += GROUP_ENTRY_OVERHEAD + e.entry.length;
  }
  return out;
}

/** The entries of a group's payload; throws when it is not `count` well-formed entries ending at `lastLsn`. */
export function decodeGroup(data: Uint8Array, count: number, lastLsn: number): LoggedEntry[] {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const entries: LoggedEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + GROUP_ENTRY_OVERHEAD > b.length)
      throw new Error(`the group ending at LSN ${lastLsn} is truncated at entry ${i + 1} of ${count}`);
    const length = b.readUInt32LE(at);
    const end = at + GROUP_ENTRY_OVERHEAD + length;
    if (end > b.length) throw new Error(`the group ending at LSN ${lastLsn} is truncated at entry ${i + 1} of ${count}`);
    entries.push({
      lsn: lastLsn - count + 1 + i,
      hash: Buffer.from(b.subarray(at + 4, at + GROUP_ENTRY_OVERHEAD)),
      entry: Buffer.from(b.subarray(at + GROUP_ENTRY_OVERHEAD, end)),
    });
    at = end;
  }
  if (at !== b.length) throw new Error(`the group ending at LSN ${lastLsn} has ${b.length - at} bytes after its ${count} entries`);
  return entries;
}

/**
 * Splits entries (consecutive, in LSN order) into what one message each carries: runs of
 * whole entries whose group payload fits `limit` bytes, and alone every entry that does
 * not fit with another (it goes as one message, or by parts when larger than `limit`).
 */
export function groupForMessages(entries: readonly LoggedEntry[], limit: number): LoggedEntry[][] {
  const groups: LoggedEntry[][] = [];
  let group: LoggedEntry[] = [];
  let bytes = 0;
  for (const e of entries) {
    const size = GROUP_ENTRY_OVERHEAD + e.entry.length;
    if (group.length > 0 && bytes + size > limit) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(e);
    bytes += size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * Reassembles the entries of consecutive messages: a whole entry or group at once, a split
 * entry once its last part arrived. Throws when a part other than the first arrives out of
 * order; a first part or a group drops a partial entry (its writer published it again).
 */
export class EntryAssembler {
  private parts: Uint8Array[] = [];

  /** Drops a partly received entry (following starts again elsewhere). */
  reset(): void {
    this.parts = [];
  }

  /** The entries `m` completes, in order (none while a split entry lacks parts). */
  push(m: EntryMessage): LoggedEntry[] {
    if (m.count > 1) {
      this.parts = []; // an entry left partial is published again, whole (as a part 0 does)
      return decodeGroup(m.data, m.count, m.lsn);
    }
    if (m.part !== this.parts.length) {
      if (m.part !== 0) throw new Error(`entry ${m.lsn} arrived from part ${m.part} (expected ${this.parts.length})`);
      this.parts = [];
    }
    this.parts.push(m.data);
    if (m.part < m.parts - 1) return [];
    const data = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    return [{ lsn: m.lsn, hash: Buffer.from(m.hash, 'hex'), entry: Buffer.from(data.buffer, data.byteOffset, data.byteLength) }];
  }
}
