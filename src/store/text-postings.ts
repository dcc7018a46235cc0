/**
 * One full-text index in LMDB: the documents of one property, their postings and the exact
 * BM25 statistics of each tenant partition (src/search/bm25.ts). Many indexes share one
 * sub-database (binary keys and values, opened by the store); every key starts with the
 * index id, so an index is one key range. Every call runs in the current LMDB transaction:
 * writes in the write transaction of `Store.write`, reads in it or in the thread's read
 * snapshot, as graph.ts does; a rolled-back write leaves nothing.
 *
 * Keys (u32 and u64 big-endian, so LMDB's byte order is numeric order):
 * - `[index u32][1][element u64]` → the document row: its partition, length and terms with
 *   their frequencies, so replacing or removing a document needs no re-analysis and touches
 *   only the postings that change.
 * - `[index u32][2][partition]` → the partition's statistics: documents u64, total length
 *   u64. Absent when the partition holds no document (a search of it finds nothing).
 * - `[index u32][3][partition][term key][0]` → the term's head: its df, score impacts and
 *   the newest postings (text-blocks.ts).
 * - `[index u32][4][partition][term key][0][first element u64]` → a full block of the
 *   term's postings (element id, tf, the document's length), with its impacts. Blocks live
 *   apart from the heads: a batch rewrites the head of nearly every term it touches, and
 *   heads packed together dirty few B-tree pages (interleaved with blocks, a batch of 5,000
 *   documents dirtied most of the index's pages).
 *
 * A partition is `[0]` (an index without a tenant property: one partition), `[1][n u8]`
 * and the n ≤ 64 bytes of the tenant value's UTF-8, or `[2]` and the SHA-256 of a longer
 * one. A term key is the term's UTF-8 (never a 0 or 0xFF byte) up to 256 bytes, or 0xFF
 * and the SHA-256 of a longer term: LMDB keys stop at 1978 bytes, and a fixed-size hash
 * keeps a 3,000-character token searchable exactly (hash collisions aside). Both encodings
 * are prefix-free, so one term's range never holds another's postings.
 *
 * Writes go through a TextBatch: document rows are written at once, posting and statistics
 * changes are collected and applied when the batch is flushed (text-term-writer.ts), once
 * per term and partition, before the write transaction commits; a search in the same
 * transaction flushes first (graph.ts). Searches rank with block-max MaxScore
 * (src/search/text-topk.ts) over each query term's cursor (text-cursor.ts).
 *
 * In a tenant-scoped index a document without a tenant value is not indexed (putting one
 * removes the element's document), and a search without a tenant finds nothing: the
 * planner answers `invalid_search_tenant_value` before that.
 */
import { createHash } from 'node:crypto';
import { type CorpusStats, type ScoredId, TermScorer } from '../search/bm25.js';
import { topKOr, type TermCursor } from '../search/text-topk.js';
import { analyzeDocument, checkDocumentLimits, documentUsage, queryTerms, type TextLimitBreach } from '../search/text-analysis.js';
import { HASHED_TERM, readU64, TEXT_KEY_KIND, TEXT_TENANT_KEY, writeU64 } from './keys.js';
import type { TextDb } from './layout.js';
import { ByteReader, ByteWriter, decodeHead, writeAscii } from './text-blocks.js';
import { ChangeLog } from './text-change-log.js';
import { TermPostingsCursor } from './text-cursor.js';
import { packPosting, REMOVED, TermWriter } from './text-term-writer.js';

const MAX_TENANT_KEY_BYTES = 64;
const MAX_TERM_KEY_BYTES = 256;

const STATS_BYTES = 16;
/**
 * Keys a drop deletes per round (they are collected before removal; a background step
 * checks its deadline between rounds).
 */
export const DELETE_ROUND = 4096;

interface Entry {
  readonly term: string;
  readonly tf: number;
}

interface StoredDocument {
  readonly partition: Buffer;
  readonly length: number;
  /** In order of first appearance (the same text gives the same row). */
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

/** Encodes document rows (one thread, one row at a time). */
const rowWriter = new ByteWriter();

/** Row: [partition length u8][partition], then varints: length, count, and per term tf and its UTF-8 (byte count first). */
function encodeDocument(doc: StoredDocument): Buffer {
  const w = rowWriter;
  w.byte(doc.partition.length);
  for (const byte of doc.partition) w.byte(byte);
  w.varint(doc.length);
  w.varint(doc.entries.length);
  for (const e of doc.entries) {
    w.varint(e.tf);
    w.utf8(e.term);
  }
  return w.done();
}

function decodeDocument(row: Buffer): StoredDocument {
  const partitionEnd = 1 + row[0]!;
  const partition = row.subarray(1, partitionEnd);
  const r = new ByteReader(row, partitionEnd);
  const length = r.varint();
  const count = r.varint();
  const entries: Entry[] = new Array<Entry>(count);
  for (let i = 0; i < count; i++) {
    const tf = r.varint();
    entries[i] = { tf, term: r.utf8() };
  }
  return { partition, length, entries };
}

/** A partition's pending changes in one batch. */
interface PendingPartition {
  readonly partition: Buffer;
  /** The statistics stored before the batch (read once). */
  readonly stored: CorpusStats | undefined;
  documents: number;
  length: number;
  readonly changes: ChangeLog;
}

export class TextPostings {
  constructor(
    private readonly db: TextDb,
    private readonly indexId: number,
    /** Whether the index declares a tenant property (documents live in per-tenant partitions). */
    readonly tenantScoped: boolean,
  ) {}

  /** A batch of writes to this index, applied by its flush in the current write transaction. */
  batch(): TextBatch {
    return new TextBatch(this.db, this.indexId, this.tenantScoped);
  }

  /** `TextBatch.put` of one document, flushed at once. */
  put(elementId: number, tenant: string | null, text: string): TextLimitBreach | null {
    const batch = this.batch();
    const breach = batch.put(elementId, tenant, text);
    batch.flush();
    return breach;
  }

  /** `TextBatch.remove` of one document, flushed at once. */
  remove(elementId: number): boolean {
    const batch = this.batch();
    const removed = batch.remove(elementId);
    batch.flush();
    return removed;
  }

  has(elementId: number): boolean {
    return this.db.doesExist(documentKey(this.indexId, elementId));
  }

  /** The statistics of `tenant`'s partition, or undefined when it holds no document. */
  stats(tenant: string | null): CorpusStats | undefined {
    return readStats(this.db, statsKey(this.indexId, partitionKey(tenant)));
  }

  /**
   * The best `k` documents of `tenant`'s partition for `queryText` (its terms OR'ed), by
   * BM25 score descending, then id ascending; scores are f32 values. With `candidates`, only
   * the ids it accepts are ranked (`*_within`), under the statistics of the whole partition.
   * Exactly the ranking of scoring every posting, without reading them all: block-max
   * MaxScore (src/search/text-topk.ts).
   */
  search(tenant: string | null, queryText: string, k: number, candidates?: (id: number) => boolean): ScoredId[] {
    if (tenant === null && this.tenantScoped) return [];
    const partition = partitionKey(tenant);
    const stats = readStats(this.db, statsKey(this.indexId, partition));
    if (stats === undefined || k <= 0) return [];
    const terms = queryTerms(queryText);
    const cursors: TermCursor[] = [];
    for (let t = 0; t < terms.length; t++) {
      const key = headKey(this.indexId, partition, termKey(terms[t]!));
      const raw = this.db.get(key);
      if (raw === undefined) continue;
      const head = decodeHead(raw);
      cursors.push(new TermPostingsCursor(this.db, key, head, new TermScorer(stats, head.df), t));
    }
    return topKOr(cursors, terms.length, k, candidates);
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
}

/**
 * The writes of one transaction to one index. `put` and `remove` write the document row at
 * once and collect posting and statistics changes; `flush` applies them (and must run
 * before the transaction commits, and before anything in it reads the postings).
 */
export class TextBatch {
  private readonly pending = new Map<string, PendingPartition>();

  constructor(
    private readonly db: TextDb,
    private readonly indexId: number,
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
    for (const [term, tf] of analysis.terms) entries.push({ term, tf });
    const doc: StoredDocument = { partition, length: analysis.length, entries };

    const docKey = documentKey(this.indexId, elementId);
    const oldRow = this.db.get(docKey);
    const old = oldRow === undefined ? undefined : decodeDocument(oldRow);
    const target = this.partition(partition);
    const statsBytes = (target.stored?.documents ?? 0) + target.documents > 0 ? STATS_BYTES : 0;
    const readBytes = (oldRow?.length ?? 0) + statsBytes;
    const breach = checkDocumentLimits(documentUsage(text, analysis, tenant, readBytes));
    if (breach !== null) return breach;

    const row = encodeDocument(doc);
    if (oldRow !== undefined && row.equals(oldRow)) return null;
    if (old !== undefined && old.partition.equals(partition)) {
      this.updatePostings(target, elementId, old, doc);
      target.length += doc.length - old.length;
    } else {
      if (old !== undefined) this.removePostings(elementId, old);
      for (const e of entries) target.changes.add(e.term, elementId, packPosting(e.tf, doc.length));
      target.documents++;
      target.length += doc.length;
    }
    this.db.putSync(docKey, row);
    return null;
  }

  /** Removes the element's document; false when it had none. */
  remove(elementId: number): boolean {
    const docKey = documentKey(this.indexId, elementId);
    const row = this.db.get(docKey);
    if (row === undefined) return false;
    this.removePostings(elementId, decodeDocument(row));
    this.db.removeSync(docKey);
    return true;
  }

  /** Applies the collected changes: each term's head and blocks, each partition's statistics. */
  flush(): void {
    if (this.pending.size === 0) return;
    const writer = new TermWriter(this.db);
    for (const p of this.pending.values()) {
      if (p.documents !== 0 || p.length !== 0) writeStats(this.db, statsKey(this.indexId, p.partition), p.stored, p.documents, p.length);
      const keys = new HeadKeys(this.indexId, p.partition);
      for (const run of p.changes.terms()) writer.apply(keys.of(run.term), run.ids, run.changes);
    }
    this.pending.clear();
  }

  /**
   * A replacement in the same partition: postings of terms gone are removed, new ones put,
   * and kept ones rewritten only if their tf changed or the length (in every posting) did.
   */
  private updatePostings(target: PendingPartition, elementId: number, old: StoredDocument, doc: StoredDocument): void {
    const { length } = doc;
    const rewrite = old.length !== length;
    const before = new Map<string, number>();
    for (const e of old.entries) before.set(e.term, e.tf);
    for (const e of doc.entries) {
      const tf = before.get(e.term);
      if (tf === undefined || rewrite || tf !== e.tf) target.changes.add(e.term, elementId, packPosting(e.tf, length));
      before.delete(e.term);
    }
    for (const term of before.keys()) target.changes.add(term, elementId, REMOVED);
  }

  private removePostings(elementId: number, old: StoredDocument): void {
    const source = this.partition(old.partition);
    for (const e of old.entries) source.changes.add(e.term, elementId, REMOVED);
    source.documents--;
    source.length -= old.length;
  }

  private partition(partition: Buffer): PendingPartition {
    const name = partition.toString('latin1');
    let p = this.pending.get(name);
    if (p === undefined) {
      const stored = readStats(this.db, statsKey(this.indexId, partition));
      p = { partition, stored, documents: 0, length: 0, changes: new ChangeLog() };
      this.pending.set(name, p);
    }
    return p;
  }
}

function readStats(db: TextDb, key: Buffer): CorpusStats | undefined {
  const row = db.get(key);
  return row === undefined ? undefined : { documents: readU64(row, 0), totalLength: readU64(row, 8) };
}

function writeStats(db: TextDb, key: Buffer, stored: CorpusStats | undefined, documents: number, length: number): void {
  const count = (stored?.documents ?? 0) + documents;
  const total = (stored?.totalLength ?? 0) + length;
  if (count === 0) {
    if (stored !== undefined) db.removeSync(key);
    return;
  }
  const value = Buffer.allocUnsafe(STATS_BYTES);
  writeU64(value, 0, count);
  writeU64(value, 8, total);
  db.putSync(key, value);
}

function documentKey(indexId: number, elementId: number): Buffer {
  const key = Buffer.allocUnsafe(13);
  key.writeUInt32BE(indexId, 0);
  key[4] = TEXT_KEY_KIND.document;
  writeU64(key, 5, elementId);
  return key;
}

function statsKey(indexId: number, partition: Buffer): Buffer {
  const key = Buffer.allocUnsafe(5 + partition.length);
  key.writeUInt32BE(indexId, 0);
  key[4] = TEXT_KEY_KIND.stats;
  partition.copy(key, 5);
  return key;
}

/**
 * The head keys of one partition's terms, one after another, for a flush: a short ASCII
 * term (nearly every one) is written into one reused key, valid until the next `of` (the
 * term writer keeps no key: LMDB copies it); any other gets a key of its own.
 */
class HeadKeys {
  private readonly key: Buffer;
  private readonly prefix: number;

  constructor(
    private readonly indexId: number,
    private readonly partition: Buffer,
  ) {
    // The key of the empty term: the prefix, then its terminating 0.
    const empty = headKey(indexId, partition, Buffer.alloc(0));
    this.prefix = empty.length - 1;
    this.key = Buffer.allocUnsafe(this.prefix + MAX_TERM_KEY_BYTES + 1);
    empty.copy(this.key);
  }

  of(term: string): Buffer {
    const n = term.length;
    if (n > MAX_TERM_KEY_BYTES || !writeAscii(term, this.key, this.prefix)) return headKey(this.indexId, this.partition, termKey(term));
    this.key[this.prefix + n] = 0;
    return this.key.subarray(0, this.prefix + n + 1);
  }
}

/** A term's head key; its blocks' keys are its block prefix (text-term-writer.ts) and their first id. */
function headKey(indexId: number, partition: Buffer, term: Buffer): Buffer {
  const key = Buffer.allocUnsafe(5 + partition.length + term.length + 1);
  key.writeUInt32BE(indexId, 0);
  key[4] = TEXT_KEY_KIND.head;
  let at = 5 + partition.copy(key, 5);
  at += term.copy(key, at);
  key[at] = 0;
  return key;
}
