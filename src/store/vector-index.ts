/**
 * The vector family (HNSW) as the store uses it. The graph lives in LMDB (hnsw-records.ts,
 * sub-database `hnsw`), one graph per index, or per tenant partition of a tenant-scoped
 * index. Linking an element into a graph costs hundreds of distance computations, more
 * than a write transaction should carry for a bulk load, so writes only queue the work:
 *
 * - a write stores the element's new vector as a `link` entry of the graph's queue
 *   (sub-database `vector_queue`, key `[graph u32][seq u64]`), and a changed or deleted
 *   element's old record is tombstoned at once and gets an `unlink` entry;
 * - the writer's background steps (index-work.ts) drain the queues in order, inserting and
 *   removing with neighbourhood repair (src/search/hnsw.ts);
 * - a search ranks the graph's live records (HNSW) and the queued links (exactly), so it
 *   reflects every write committed before it, drained or not.
 *
 * The queue is bounded per graph (entries and bytes, the row `[graph u32]` counts them): a
 * write that would pass the bound gets 429 `index_backpressure`, retryable once the writer
 * has drained. The queue is in LMDB, in the writing transaction: nothing queued is lost in
 * a crash, and a rolled-back write leaves no queued work.
 */
import { GraphError } from '../core/errors.js';
import { describeIndex } from '../core/index-spec.js';
import { isNumeric, toNumber, type Value, type ValueObject } from '../core/value.js';
import { hnswConfig, insert, markDeleted, remove, search as hnswSearch, searchEf, type HnswConfig } from '../search/hnsw.js';
import { checkVector, distanceFrom, type Metric } from '../search/vector-math.js';
import { allocateGraphId, type IndexDef } from './index-catalog.js';
import type { CatalogDb } from './layout.js';
import type { VectorFamily } from './index-families.js';
import type { FamilyWork } from './index-work.js';
import { HnswRecords } from './hnsw-records.js';
import type { HnswDb } from './layout.js';
import { writeU64 } from './keys.js';
import { tenantKey } from './tenant-key.js';
import type { Candidates, VectorBacklog, VectorHit } from './types.js';
import type { QueueDb } from './layout.js';

/** Queued entries one graph may hold (reference: 250,000 pending entities per index). */
export const QUEUE_MAX_ENTRIES = 250_000;
/** Queued bytes one graph may hold (reference: 512 MiB of pending vectors for strong search). */
export const QUEUE_MAX_BYTES = 512 * 1024 * 1024;
/** Keys a drop deletes between two looks at its step's deadline. */
const DELETE_ROUND = 4096;
/** Candidate sets up to this size are ranked exactly instead of through the graph. */
const EXACT_CANDIDATES = 4096;

const LINK = 1;
const UNLINK = 2;
const METRICS: readonly Metric[] = ['cosine', 'euclidean', 'manhattan'];

type VectorSpec = Extract<IndexDef['spec'], { kind: 'node_vector' | 'edge_vector' }>;

/** The values of a stored property as a vector, or null when it is not an array of numbers. */
export function vectorValues(v: Value | undefined): ArrayLike<number> | null {
  if (v instanceof Float32Array || v instanceof Float64Array) return v;
  if (v instanceof BigInt64Array) return Array.from(v, Number);
  if (Array.isArray(v) && v.length > 0 && v.every(isNumeric)) return v.map((n) => toNumber(n as bigint | number));
  return null;
}

function queueKey(graph: number, seq: number): Buffer {
  const key = Buffer.allocUnsafe(12);
  key.writeUInt32BE(graph, 0);
  writeU64(key, 4, seq);
  return key;
}

function graphKey(graph: number): Buffer {
  const key = Buffer.allocUnsafe(4);
  key.writeUInt32BE(graph, 0);
  return key;
}

/** Just past every key of a graph's queue: its counters row and entries lie below it. */
const graphEnd = (graph: number): Buffer => graphKey(graph + 1);

/**
 * The applied-work counters of each graph live past every queue, under this prefix (graph
 * ids stay below it): `[0xFFFFFFFF][graph u32]`, kept when the queue empties.
 */
const APPLIED_PREFIX = 0xffffffff;
function appliedKey(graph: number): Buffer {
  const key = Buffer.allocUnsafe(8);
  key.writeUInt32BE(APPLIED_PREFIX, 0);
  key.writeUInt32BE(graph, 4);
  return key;
}

/** What a graph's background steps have applied: entries in all, and their recent rate. */
interface Applied {
  total: number;
  /** Entries per second while a step works, smoothed over the last steps. */
  perSecond: number;
  /** When the last step applied some (ms since the epoch). */
  at: number;
}

/** Weight of the newest step in the smoothed rate. */
const RATE_WEIGHT = 0.2;

/** A queue's counters: entries, bytes, the next sequence number, and the graph's metric. */
interface QueueState {
  entries: number;
  bytes: number;
  next: number;
  metric: number;
}

function encodeEntry(op: number, id: number, vector: Float32Array | null): Buffer {
  const out = Buffer.allocUnsafe(9 + (vector === null ? 0 : vector.byteLength));
  out[0] = op;
  out.writeDoubleLE(id, 1);
  if (vector !== null) Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(out, 9);
  return out;
}

function decodeEntry(raw: Buffer): { op: number; id: number; vector: Float32Array | null } {
  const op = raw[0]!;
  const id = raw.readDoubleLE(1);
  if (op !== LINK) return { op, id, vector: null };
  const copy = new Uint8Array(raw.length - 9);
  copy.set(raw.subarray(9));
  return { op, id, vector: new Float32Array(copy.buffer) };
}

export class VectorIndexes implements VectorFamily, FamilyWork {
  private readonly configs = new Map<Metric, HnswConfig>();

  constructor(
    private readonly records: HnswDb,
    private readonly queue: QueueDb,
    private readonly catalog: CatalogDb,
    /** The queue bound per graph (StoreOptions.vectorQueueEntries). */
    private readonly maxEntries = QUEUE_MAX_ENTRIES,
  ) {}

  private config(metric: Metric): HnswConfig {
    let c = this.configs.get(metric);
    if (c === undefined) this.configs.set(metric, (c = hnswConfig(metric)));
    return c;
  }

  /** The graph of a partition: the index's own id, or a tenant partition's; null when none exists yet. */
  private graphOf(def: IndexDef, tenant: string | null, create: boolean): number | null {
    const spec = def.spec as VectorSpec;
    if (spec.tenant_property === null) return def.id;
    if (tenant === null) return null;
    const key = `tenant:${def.id}:${tenant}`;
    const found = this.catalog.get(key) as number | undefined;
    if (found !== undefined || !create) return found ?? null;
    const graph = allocateGraphId(this.catalog);
    this.catalog.putSync(key, graph);
    return graph;
  }

  private tenantOf(def: IndexDef, props: ValueObject): string | null {
    const tenantProperty = (def.spec as VectorSpec).tenant_property;
    return tenantProperty === null ? null : tenantKey(props[tenantProperty]);
  }

  private state(graph: number): QueueState | undefined {
    const raw = this.queue.get(graphKey(graph));
    if (raw === undefined) return undefined;
    return { entries: raw.readDoubleLE(0), bytes: raw.readDoubleLE(8), next: raw.readDoubleLE(16), metric: raw[24]! };
  }

  private saveState(graph: number, s: QueueState): void {
    const raw = Buffer.allocUnsafe(25);
    raw.writeDoubleLE(s.entries, 0);
    raw.writeDoubleLE(s.bytes, 8);
    raw.writeDoubleLE(s.next, 16);
    raw[24] = s.metric;
    this.queue.putSync(graphKey(graph), raw);
  }

  private enqueue(def: IndexDef, graph: number, op: number, id: number, vector: Float32Array | null): void {
    const metric = METRICS.indexOf((def.spec as VectorSpec).metric);
    const s = this.state(graph) ?? { entries: 0, bytes: 0, next: 0, metric };
    const entry = encodeEntry(op, id, vector);
    if (s.entries + 1 > this.maxEntries || s.bytes + entry.length > QUEUE_MAX_BYTES) {
      throw new GraphError(
        'index_backpressure',
        `${describeIndex(def.spec)} has ${s.entries} queued entries (${s.bytes} bytes), at its bound of ${this.maxEntries} entries or ${QUEUE_MAX_BYTES} bytes; retry shortly, the writer is draining it`,
      );
    }
    this.queue.putSync(queueKey(graph, s.next), entry);
    this.saveState(graph, { entries: s.entries + 1, bytes: s.bytes + entry.length, next: s.next + 1, metric: s.metric });
  }

  add(def: IndexDef, id: number, props: ValueObject): void {
    const values = vectorValues(props[def.spec.property]);
    if (values === null) return;
    const spec = def.spec as VectorSpec;
    const problem = checkVector(spec.metric, spec.dimension, values);
    if (problem !== null) {
      const element = spec.kind === 'node_vector' ? 'node' : 'edge';
      throw new GraphError(problem.code, `${spec.label}.${spec.property} of ${element} ${id} (${describeIndex(spec)}): ${problem.msg}`);
    }
    const tenant = this.tenantOf(def, props);
    if (spec.tenant_property !== null && tenant === null) return;
    this.enqueue(def, this.graphOf(def, tenant, true)!, LINK, id, Float32Array.from(values));
  }

  remove(def: IndexDef, id: number, props: ValueObject): void {
    if (vectorValues(props[def.spec.property]) === null) return;
    const graph = this.graphOf(def, this.tenantOf(def, props), false);
    if (graph === null) return;
    // Tombstoned now, so a search in this or a later snapshot never returns the old vector.
    markDeleted(new HnswRecords(this.records, graph), id);
    this.enqueue(def, graph, UNLINK, id, null);
  }

  /** The latest queued state of each element of a graph: its vector, or null when unlinked. */
  private pending(graph: number): Map<number, Float32Array | null> {
    const out = new Map<number, Float32Array | null>();
    if (this.state(graph) === undefined) return out;
    for (const { value } of this.queue.getRange({ start: queueKey(graph, 0), end: graphEnd(graph) })) {
      const e = decodeEntry(value);
      out.set(e.id, e.vector);
    }
    return out;
  }

  search(def: IndexDef, tenant: Value | null, query: Float32Array, k: number, candidates: Candidates | null): VectorHit[] {
    const graph = this.graphOf(def, tenantKey(tenant), false);
    if (graph === null) return [];
    const spec = def.spec as VectorSpec;
    const config = this.config(spec.metric);
    const storage = new HnswRecords(this.records, graph);
    const pending = this.pending(graph);
    const distance = distanceFrom(spec.metric, query);
    const hits: VectorHit[] = [];
    const accept = (id: number) => !pending.has(id) && (candidates === null || candidates.has(id));
    if (candidates !== null && candidates.size <= EXACT_CANDIDATES) {
      for (const id of candidates.keys()) {
        if (pending.has(id)) continue;
        const r = storage.get(id);
        if (r !== undefined && !r.deleted) hits.push({ id, distance: distance(r.vector) });
      }
    } else {
      for (const n of hnswSearch(storage, config, query, k, searchEf(k), accept)) hits.push({ id: n.id, distance: n.distance });
    }
    for (const [id, vector] of pending) {
      if (vector !== null && (candidates === null || candidates.has(id))) hits.push({ id, distance: distance(vector) });
    }
    hits.sort((a, b) => a.distance - b.distance || a.id - b.id);
    if (hits.length > k) hits.length = k;
    return hits;
  }

  /**
   * The graphs with queued work, ascending. A graph's first key is its counters row, so
   * each is found with one seek, however many entries the queues hold.
   */
  private *queuedGraphs(): Generator<number> {
    for (let from = 0; ;) {
      const [key] = this.queue.getKeys({ start: graphKey(from), end: graphKey(APPLIED_PREFIX), limit: 1 });
      if (key === undefined) return;
      const graph = (key as Buffer).readUInt32BE(0);
      yield graph;
      from = graph + 1;
    }
  }

  private applied(graph: number): Applied {
    const raw = this.queue.get(appliedKey(graph));
    if (raw === undefined) return { total: 0, perSecond: 0, at: 0 };
    return { total: raw.readDoubleLE(0), perSecond: raw.readDoubleLE(8), at: raw.readDoubleLE(16) };
  }

  private noteApplied(graph: number, entries: number, ms: number): void {
    const before = this.applied(graph);
    const rate = (entries / Math.max(ms, 0.001)) * 1000;
    const perSecond = before.at === 0 ? rate : RATE_WEIGHT * rate + (1 - RATE_WEIGHT) * before.perSecond;
    const raw = Buffer.allocUnsafe(24);
    raw.writeDoubleLE(before.total + entries, 0);
    raw.writeDoubleLE(perSecond, 8);
    raw.writeDoubleLE(Date.now(), 16);
    this.queue.putSync(appliedKey(graph), raw);
  }

  /** The graphs of an index: its own, or its tenant partitions'. */
  private graphsOf(def: IndexDef): number[] {
    const graphs = [def.id];
    for (const { value } of this.catalog.getRange({ start: `tenant:${def.id}:`, end: `tenant:${def.id};` })) graphs.push(value as number);
    return graphs;
  }

  /** The index's queued work, applied work and rate, in the current transaction. */
  backlog(def: IndexDef): VectorBacklog {
    let queued = 0;
    let applied = 0;
    let latest: Applied | null = null;
    for (const graph of this.graphsOf(def)) {
      queued += this.state(graph)?.entries ?? 0;
      const a = this.applied(graph);
      applied += a.total;
      if (a.at > (latest?.at ?? 0)) latest = a;
    }
    return { queued, applied, appliedPerSecond: latest?.perSecond ?? 0 };
  }

  /** Whether any graph has queued work. */
  hasQueued(): boolean {
    return !this.queuedGraphs().next().done;
  }

  /** Links and unlinks queued work, oldest first, until the deadline; true when some is left. */
  drain(_w: unknown, deadline: number): boolean {
    for (const graph of this.queuedGraphs()) {
      const started = performance.now();
      if (started >= deadline) return true;
      const s = this.state(graph)!;
      const config = this.config(METRICS[s.metric]!);
      const storage = new HnswRecords(this.records, graph);
      const done: Buffer[] = [];
      let bytes = 0;
      for (const { key, value } of this.queue.getRange({ start: queueKey(graph, 0), end: graphEnd(graph) })) {
        if (performance.now() >= deadline) break;
        const e = decodeEntry(value);
        if (storage.get(e.id) !== undefined) remove(storage, config, e.id);
        if (e.op === LINK) insert(storage, config, e.id, e.vector!);
        done.push(Buffer.from(key));
        bytes += value.length;
      }
      for (const key of done) this.queue.removeSync(key);
      if (done.length > 0) this.noteApplied(graph, done.length, performance.now() - started);
      const left = s.entries - done.length;
      if (left > 0) {
        this.saveState(graph, { ...s, entries: left, bytes: s.bytes - bytes });
        return true;
      }
      this.queue.removeSync(graphKey(graph));
    }
    return false;
  }

  /** Deletes a dropped index's graphs, queues and tenant partitions, until the deadline; true when done. */
  deleteSome(def: IndexDef, deadline: number): boolean {
    const graphs = this.graphsOf(def);
    const tenants = [...this.catalog.getKeys({ start: `tenant:${def.id}:`, end: `tenant:${def.id};` })] as string[];
    for (const graph of graphs) {
      while (HnswRecords.drop(this.records, graph, DELETE_ROUND) === DELETE_ROUND) {
        if (performance.now() >= deadline) return false;
      }
      const queued = [...this.queue.getKeys({ start: graphKey(graph), end: graphEnd(graph), limit: DELETE_ROUND })];
      for (const key of queued) this.queue.removeSync(Buffer.from(key as Buffer));
      if (queued.length === DELETE_ROUND) return false;
      this.queue.removeSync(appliedKey(graph));
    }
    for (const key of tenants) this.catalog.removeSync(key);
    return true;
  }
}
