/**
 * One full-text index in LMDB: the documents of one property, their postings and the exact
 * BM25 statistics of each tenant partition (src/search/bm25.ts). Many indexes share one
 * sub-database (binary keys and values, opened by the store); every key starts with the
 * index id, so an index is one key range. Every call runs in the current LMDB transaction:
 * writes (`putSync`/`removeSync`) in the write transaction of `Store.write`, reads in it or
 * in the thread's read snapshot, as graph.ts does; a rolled-back write leaves nothing.
 *
 * Keys (u32 and u64 big-endian, so LMDB's byte order is numeric order):
 * - `[index u32][1][element u64]` → the document row: its partition, length and terms with
 *   their frequencies, so replacing or removing a document needs no re-analysis and touches
 *   only the postings that change.
 * - `[index u32][2][partition]` → the partition's statistics: documents u64, total length
 *   u64. Absent when the partition holds no document (a search of it finds nothing).
 * - `[index u32][3][partition][term key][0][element u64]` → a posting: tf u32, the
 *   document's length u32 (so scoring reads nothing but the term's range).
 *
 * A partition is `[0]` (an index without a tenant property: one partition), `[1][n u8]`
 * and the n ≤ 64 bytes of the tenant value's UTF-8, or `[2]` and the SHA-256 of a longer
 * one. A term key is the term's UTF-8 (never a 0 or 0xFF byte) up to 256 bytes, or 0xFF
 * and the SHA-256 of a longer term: LMDB keys stop at 1978 bytes, and a fixed-size hash
 * keeps a 3,000-character token searchable exactly (hash collisions aside). Both encodings
 * are prefix-free, so one term's range never holds another's postings.
 *
 * In a tenant-scoped index a document without a tenant value is not indexed (putting one
 * removes the element's document), and a search without a tenant finds nothing: the
 * planner answers `invalid_search_tenant_value` before that.
 */
import { createHash } from 'node:crypto';
import { type CorpusStats, type ScoredId, TermScorer, topK } from '../search/bm25.js';
import { analyzeDocument, checkDocumentLimits, documentUsage, queryTerms, type TextLimitBreach } from '../search/text-analysis.js';
import { HASHED_TERM, readU64, TEXT_KEY_KIND, TEXT_TENANT_KEY, writeU64 } from './keys.js';
import type { TextDb } from './layout.js';

const MAX_TENANT_KEY_BYTES = 64;
const MAX_TERM_KEY_BYTES = 256;
/** The longest partition and term keys: a posting key is at most 5 + 66 + 256 + 9 bytes. */
const MAX_PARTITION_BYTES = 2 + MAX_TENANT_KEY_BYTES;
const MAX_POSTING_KEY = 5 + MAX_PARTITION_BYTES + MAX_TERM_KEY_BYTES + 9;

const STATS_BYTES = 16;
/**
 * Keys a drop deletes per round (they are collected before removal; a background step
 * checks its deadline between rounds).
 */
export const DELETE_ROUND = 4096;

interface Entry {
  readonly key: Buffer;
  readonly tf: number;
}

interface StoredDocument {
  readonly partition: Buffer;
  readonly length: number;
  /** Sorted by key bytes. */
  readonly entries: Entry[];
}

const sha256 = (bytes: Buffer): Buffer => createHash('sha256').update(bytes).digest();

function partitionKey(tenant: string | null): Buffer {
  if (tenant === null) return Buffer.of(TEXT_TENANT_KEY.none);
  const bytes = Buffer.from(tenant, 'utf8');
  if (bytes.length > MAX_TENANT_KEY_BYTES) return Buffer.concat([Buffer.of(TEXT_TENANT_KEY.hashed), sha256(bytes)]);
  return Buffer.concat([Buffer.of(TEXT_TENANT_KEY.short, bytes.length), bytes]);
}

function termKey(term: string): Buffer {
  const bytes = Buffer.from(term, 'utf8');
  return bytes.length <= MAX_TERM_KEY_BYTES ? bytes : Buffer.concat([Buffer.of(HASHED_TERM), sha256(bytes)]);
}

const byKey = (a: Entry, b: Entry): number => Buffer.compare(a.key, b.key);

/** Row: [partition length u8][partition][length u32][count u32], then per term [tf u32][key length u16][key]. */
function encodeDocument(doc: StoredDocument): Buffer {
  let size = 1 + doc.partition.length + 8;
  for (const e of doc.entries) size += 6 + e.key.length;
  const row = Buffer.allocUnsafe(size);
  row[0] = doc.partition.length;
  let at = 1 + doc.partition.copy(row, 1);
  at = row.writeUInt32BE(doc.length, at);
  at = row.writeUInt32BE(doc.entries.length, at);
  for (const e of doc.entries) {
    at = row.writeUInt32BE(e.tf, at);
    at = row.writeUInt16BE(e.key.length, at);
    at += e.key.copy(row, at);
  }
  return row;
}

/** Views into `row`, which lmdb-js's `get` returns as a copy of its own. */
function decodeDocument(row: Buffer): StoredDocument {
  const partitionEnd = 1 + row[0]!;
  const partition = row.subarray(1, partitionEnd);
  const length = row.readUInt32BE(partitionEnd);
  const count = row.readUInt32BE(partitionEnd + 4);
  const entries: Entry[] = new Array<Entry>(count);
  let at = partitionEnd + 8;
  for (let i = 0; i < count; i++) {
    const tf = row.readUInt32BE(at);
    const keyLength = row.readUInt16BE(at + 4);
    entries[i] = { tf, key: row.subarray(at + 6, at + 6 + keyLength) };
    at += 6 + keyLength;
  }
  return { partition, length, entries };
}

export class TextPostings {
  /** Posting keys and values are written here for one put or remove at a time (lmdb-js copies them). */
  private readonly keyScratch = Buffer.allocUnsafe(MAX_POSTING_KEY);
  private readonly valueScratch = Buffer.allocUnsafe(8);

  constructor(
    private readonly db: TextDb,
    private readonly indexId: number,
    /** Whether the index declares a tenant property (documents live in per-tenant partitions). */
    private readonly tenantScoped: boolean,
  ) {}

  /**
   * Indexes `text` as the element's document in `tenant`'s partition, replacing its previous
   * document (an identical one writes nothing). The document is first checked against the
   * per-document limits: on a breach nothing is written and the breach is returned, for the
   * caller to fail the write with `active_text_mutation_limit_exceeded`.
   */
  put(elementId: number, tenant: string | null, text: string): TextLimitBreach | null {
    if (tenant !== null && !this.tenantScoped) throw new Error('text index: a tenant value for an index without a tenant property');
    if (tenant === null && this.tenantScoped) {
      this.remove(elementId);
      return null;
    }
    const analysis = analyzeDocument(text);
    const partition = partitionKey(tenant);
    const entries: Entry[] = [];
    for (const [term, tf] of analysis.terms) entries.push({ key: termKey(term), tf });
    entries.sort(byKey);
    const doc: StoredDocument = { partition, length: analysis.length, entries };

    const docKey = this.documentKey(elementId);
    const oldRow = this.db.get(docKey);
    const old = oldRow === undefined ? undefined : decodeDocument(oldRow);
    const statsRow = this.db.get(this.statsKey(partition));
    const readBytes = (oldRow?.length ?? 0) + (statsRow?.length ?? 0);
    const breach = checkDocumentLimits(documentUsage(text, analysis, tenant, readBytes));
    if (breach !== null) return breach;

    const row = encodeDocument(doc);
    if (oldRow !== undefined && row.equals(oldRow)) return null;
    if (old !== undefined && old.partition.equals(partition)) {
      this.updatePostings(elementId, old, doc);
      if (old.length !== doc.length) this.adjustStats(partition, 0, doc.length - old.length);
    } else {
      if (old !== undefined) {
        for (const e of old.entries) this.db.removeSync(this.postingKey(old.partition, e.key, elementId));
        this.adjustStats(old.partition, -1, -old.length);
      }
      for (const e of entries) this.putPosting(partition, e, elementId, doc.length);
      this.adjustStats(partition, 1, doc.length);
    }
    this.db.putSync(docKey, row);
    return null;
  }

  /**
   * A replacement in the same partition: postings of terms gone are removed, new ones put,
   * and kept ones rewritten only if their tf changed or the length (in every posting) did.
   */
  private updatePostings(elementId: number, old: StoredDocument, doc: StoredDocument): void {
    const { partition, length } = doc;
    const rewrite = old.length !== length;
    let i = 0;
    let j = 0;
    while (i < old.entries.length || j < doc.entries.length) {
      const a = old.entries[i];
      const b = doc.entries[j];
      const order = a === undefined ? 1 : b === undefined ? -1 : Buffer.compare(a.key, b.key);
      if (order < 0) {
        this.db.removeSync(this.postingKey(partition, a!.key, elementId));
        i++;
      } else if (order > 0) {
        this.putPosting(partition, b!, elementId, length);
        j++;
      } else {
        if (rewrite || a!.tf !== b!.tf) this.putPosting(partition, b!, elementId, length);
        i++;
        j++;
      }
    }
  }

  /** Removes the element's document; false when it had none. */
  remove(elementId: number): boolean {
    const docKey = this.documentKey(elementId);
    const row = this.db.get(docKey);
    if (row === undefined) return false;
    const old = decodeDocument(row);
    for (const e of old.entries) this.db.removeSync(this.postingKey(old.partition, e.key, elementId));
    this.adjustStats(old.partition, -1, -old.length);
    this.db.removeSync(docKey);
    return true;
  }

  has(elementId: number): boolean {
    return this.db.doesExist(this.documentKey(elementId));
  }

  /** The statistics of `tenant`'s partition, or undefined when it holds no document. */
  stats(tenant: string | null): CorpusStats | undefined {
    return this.partitionStats(partitionKey(tenant));
  }

  private partitionStats(partition: Buffer): CorpusStats | undefined {
    const row = this.db.get(this.statsKey(partition));
    return row === undefined ? undefined : { documents: readU64(row, 0), totalLength: readU64(row, 8) };
  }

  /**
   * The best `k` documents of `tenant`'s partition for `queryText` (its terms OR'ed), by
   * BM25 score descending, then id ascending; scores are f32 values. With `candidates`, only
   * the ids it accepts are ranked (`*_within`), under the statistics of the whole partition.
   * Reads each query term's posting range once.
   */
  search(tenant: string | null, queryText: string, k: number, candidates?: (id: number) => boolean): ScoredId[] {
    if (tenant === null && this.tenantScoped) return [];
    const partition = partitionKey(tenant);
    const stats = this.partitionStats(partition);
    if (stats === undefined || k <= 0) return [];
    const scores = new Map<number, number>();
    const ids: number[] = [];
    const tfs: number[] = [];
    const lengths: number[] = [];
    for (const term of queryTerms(queryText)) {
      ids.length = tfs.length = lengths.length = 0;
      let df = 0;
      const start = this.postingKey(partition, termKey(term), 0);
      const prefixLength = start.length - 8;
      const range = { start: Buffer.from(start.subarray(0, prefixLength)), end: Buffer.from(start.subarray(0, prefixLength)) };
      range.end[prefixLength - 1] = 1; // past the terminator 0
      for (const { key, value } of this.db.getRange(range)) {
        df++;
        const id = readU64(key, prefixLength);
        if (candidates !== undefined && !candidates(id)) continue;
        ids.push(id);
        tfs.push(value.readUInt32BE(0));
        lengths.push(value.readUInt32BE(4));
      }
      if (ids.length === 0) continue;
      const scorer = new TermScorer(stats, df);
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        scores.set(id, (scores.get(id) ?? 0) + scorer.score(tfs[i]!, lengths[i]!));
      }
    }
    return topK(scores, k);
  }

  /** Deletes every key of index `indexId` (in the current write transaction); returns how many. */
  static deleteIndex(db: TextDb, indexId: number): number {
    let removed = 0;
    while (true) {
      const n = TextPostings.deleteRound(db, indexId);
      removed += n;
      if (n < DELETE_ROUND) return removed;
    }
  }

  /**
   * Deletes up to DELETE_ROUND keys of index `indexId`; returns how many (fewer: the index
   * has none left). Background drops call it until their step's deadline.
   */
  static deleteRound(db: TextDb, indexId: number): number {
    const start = Buffer.allocUnsafe(4);
    start.writeUInt32BE(indexId, 0);
    const end = Buffer.concat([start, Buffer.of(TEXT_KEY_KIND.end)]);
    // Collected first: removing under a live cursor of the same range is not safe.
    const keys: Buffer[] = [];
    for (const key of db.getKeys({ start, end, limit: DELETE_ROUND })) keys.push(Buffer.from(key));
    for (const key of keys) db.removeSync(key);
    return keys.length;
  }

  private putPosting(partition: Buffer, entry: Entry, elementId: number, length: number): void {
    this.valueScratch.writeUInt32BE(entry.tf, 0);
    this.valueScratch.writeUInt32BE(length, 4);
    this.db.putSync(this.postingKey(partition, entry.key, elementId), this.valueScratch);
  }

  private adjustStats(partition: Buffer, documents: number, length: number): void {
    const key = this.statsKey(partition);
    const stats = this.partitionStats(partition);
    const count = (stats?.documents ?? 0) + documents;
    const total = (stats?.totalLength ?? 0) + length;
    if (count === 0) {
      this.db.removeSync(key);
      return;
    }
    const value = Buffer.allocUnsafe(STATS_BYTES);
    writeU64(value, 0, count);
    writeU64(value, 8, total);
    this.db.putSync(key, value);
  }

  private documentKey(elementId: number): Buffer {
    const key = Buffer.allocUnsafe(13);
    key.writeUInt32BE(this.indexId, 0);
    key[4] = TEXT_KEY_KIND.document;
    writeU64(key, 5, elementId);
    return key;
  }

  private statsKey(partition: Buffer): Buffer {
    const key = Buffer.allocUnsafe(5 + partition.length);
    key.writeUInt32BE(this.indexId, 0);
    key[4] = TEXT_KEY_KIND.stats;
    partition.copy(key, 5);
    return key;
  }

  /** The posting key, in the shared scratch buffer: valid until the next call. */
  private postingKey(partition: Buffer, term: Buffer, elementId: number): Buffer {
    const key = this.keyScratch;
    key.writeUInt32BE(this.indexId, 0);
    key[4] = TEXT_KEY_KIND.posting;
    let at = 5 + partition.copy(key, 5);
    at += term.copy(key, at);
    key[at++] = 0;
    writeU64(key, at, elementId);
    return key.subarray(0, at + 8);
  }
}
