/**
 * The vector family as the store uses it. LMDB is the system of record: a vector is an
 * element's property, and every change of it is queued, in the writing transaction, as a
 * `link` or `unlink` entry of its graph's queue (vector-queue.ts; a graph is an index, or
 * one tenant partition of it). Searches are exact about what is queued, so they reflect
 * every write committed before them, and the queue is in LMDB, so a crash or a rolled-back
 * batch can neither lose queued work nor leave any.
 *
 * Two engines serve the graphs (docs/architecture.md, "The vector engine"):
 *
 * - **native** (cosine, euclidean, inner product): a builder thread (vector-builder.ts)
 *   applies the queue to a usearch index in memory and publishes it as an immutable
 *   segment file; the pointer to the file is committed with the deletion of the entries
 *   it covers (vector-segments.ts). A search views the file of its snapshot's pointer,
 *   over-fetches, drops the hits whose element has a queued entry (stale), ranks the
 *   queued links exactly, and reports exact distances read from the stored vectors.
 *   Until a graph has a segment, or when its file is unusable, searches are exact.
 * - **TypeScript HNSW on LMDB** (manhattan, which usearch lacks): the writer's background
 *   steps (index-work.ts) drain the queue into the graph's records (hnsw-records.ts).
 *
 * The queue is bounded per graph: a write past it gets 429 `index_backpressure`.
 */
import { GraphError } from '../core/errors.js';
import { describeIndex, elementOf } from '../core/index-spec.js';
import { isNumeric, toNumber, type Value, type ValueObject } from '../core/value.js';
import { hnswConfig, insert, markDeleted, remove, search as hnswSearch, searchEf, type HnswConfig } from '../search/hnsw.js';
import { checkVector, distanceFrom, METRICS, squaredNorm } from '../search/vector-math.js';
import { allocateGraphId, CatalogReader, type IndexDef } from './index-catalog.js';
import type { CatalogDb, HnswDb, QueueDb } from './layout.js';
import type { IndexedElements, VectorFamily } from './index-families.js';
import type { FamilyWork, IndexWorkView } from './index-work.js';
import { HnswRecords } from './hnsw-records.js';
import { exactNearest, quantizedI8, type NativeIndex, type NativeShape, type Quantization } from './native-vectors.js';
import { SegmentCopies } from './segment-copies.js';
import { CandidateVectors } from './candidate-vectors.js';
import { OrphanSearch } from './orphan-search.js';
import { Nearest, offerOrphans } from './nearest.js';
import { tenantKey } from './tenant-key.js';
import type { Candidates, MissingSegment, VectorBacklog, VectorHit, VectorQuery } from './types.js';
import { LINK, UNLINK, VectorQueue, type Applied } from './vector-queue.js';
import {
  listed,
  SegmentViews,
  segmentDir,
  segmentFiles,
  segmentProblem,
  segmentSizes,
  type GraphPointer,
  type SegmentView,
} from './vector-segments.js';

/** Keys a drop deletes between two looks at its step's deadline. */
const DELETE_ROUND = 4096;
/** A `_within` search of the old engine's records ranks its candidates exactly up to this many. */
const EXACT_CANDIDATES = 2048;
/**
 * A `_within` search of a segment ranks its c candidates exactly while c^2 <= this times
 * ef times the graph's count n, and over-fetches from the native index above: exact costs
 * about c reads and distances, the native walk about ef x n / c (its beam over the
 * candidates' share). Measured at 100k x 128 (docs/benchmarks.md): the two cost the same
 * near 1,400 candidates at ef 10 and 2,500 at ef 64, a factor of 1 to 2.
 */
const EXACT_FACTOR = 1.5;
/**
 * The same bound when the candidates' vectors are kept in memory (candidate-vectors.ts):
 * a native pass over them costs about a hundredth of a read each. Measured through the
 * pipeline at 100k x 128 clustered (docs/benchmarks.md, "Filtered search"): 10,000
 * candidates at ef 10 (c^2 / ef n = 100) searched exactly at 2.3 times the walk's rate,
 * 50,000 at ef 32 (781) at 0.35 times; both put the crossing near 250.
 */
const EXACT_KEPT_FACTOR = 250;
/**
 * The beam of a native search when neither the query nor the index names one: the
 * smallest of the measured beams whose recall@10 reaches 0.95 on clustered data at both
 * 128 and 768 dimensions (at 100k: 64 gave 0.978 and 0.943, 80 gave 0.989 and 0.961;
 * docs/benchmarks.md, "100k x 768").
 */
export const DEFAULT_EF = 80;
/** Native hits ranked again exactly, per result asked for (nativeNearest says why). */
const RERANK = 2;
/**
 * A candidate set of at least this many, ranked by inner product (cosine, inner product),
 * is ranked over i8 copies of its kept vectors, and QUANTIZED_RERANK times k of the best
 * ranked again exactly. Measured (scratch script, clustered unit vectors, 300 queries,
 * k 10): at 10,000 x 128 a pass over i8 plus the exact ranking of 40 took 140–176 µs
 * against 214–255 µs over f32, at 10,000 x 768 453–487 against 1,248–1,316 µs, at 30,000 x
 * 128 446 against 898 µs; at 2,000 x 128 the same as f32 (51 against 50 µs). The top 10
 * of the i8 pool's exact ranking equalled f32's exact top 10 in every query from a pool of 30
 * (0.9993 from 20).
 */
const QUANTIZED_FROM = 4096;
const QUANTIZED_RERANK = 4;
/**
 * The least exact distance a native distance of a segment allows, for the metrics where
 * the one bounds the other (null: the others, whose native hits are all ranked again).
 * Cosine's exact distance is (1 - cos) / 2 and its native one 1 - u.v of unit vectors with
 * f16 components (unit roundoff u = 2^-11): rounding both moves each product by at most
 * (2u + u^2) |q_i x_i|, so the sum by at most 2u + u^2 (Cauchy-Schwarz, |q| = |x| = 1); its
 * f32 sum of up to 4,096 terms adds at most 4,096 x 2^-24, and components too small for a
 * normal f16 at most sqrt(4,096) x 2^-24; together under 1.23e-3. (Measured at 128, 768 and
 * 1,536 dimensions: at most 1.5e-4.) A native hit whose bound is above the k-th exact
 * distance kept cannot rank.
 */
const EXACT_AT_LEAST: Record<VectorSpec['metric'], ((native: number) => number) | null> = {
  cosine: (native) => (native - 1.25e-3) / 2,
  euclidean: null,
  inner_product: null,
  manhattan: null,
};
/** A graph's queue with no entries, decoded. */
const EMPTY_PENDING: ReadonlyMap<number, Float32Array | null> = new Map();

/** A graph's queue as a snapshot of committed data saw it, decoded: entries [first, next), over the segment of a pointer. */
interface DecodedQueue {
  readonly nonce: number;
  readonly generation: number;
  readonly first: number;
  next: number;
  readonly map: Map<number, Float32Array | null>;
}

export type VectorSpec = Extract<IndexDef['spec'], { kind: 'node_vector' | 'edge_vector' }>;

/** Whether the native engine serves an index (every metric but manhattan). */
export const isNative = (spec: VectorSpec): boolean => spec.metric !== 'manhattan';

/**
 * Whether a graph is in the lifted form: an inner-product graph with an M (`longest`, in
 * its pointer or its build) is searched as euclidean over vectors with one more
 * component, x' = (x, sqrt(M² − |x|²)), and queries q' = (q, 0): then |q' − x'|² =
 * |q|² + M² − 2 q·x ranks exactly by the inner product, and an element is its own nearest.
 * usearch's graph over raw inner products leaves about half of unnormalised elements out
 * of reach (docs/benchmarks.md, "Orphans through a graph"). A graph of the older form
 * (M 0) is searched by the inner product until it is built again.
 */
const lifted = (spec: VectorSpec, longest: number): boolean => spec.metric === 'inner_product' && longest > 0;

/**
 * The native index's view of a graph: cosine as the inner product of normalised vectors,
 * euclidean as the squared L2 distance, inner product lifted (above) or as it is; the
 * graph's M and beam. `longest` is the graph's M (0 when it has none).
 */
export function nativeShape(spec: VectorSpec, longest: number): Omit<NativeShape, 'quantization'> {
  const up = lifted(spec, longest);
  return {
    dimension: up ? spec.dimension + 1 : spec.dimension,
    metric: spec.metric === 'euclidean' || up ? 'l2sq' : 'ip',
    connectivity: spec.m,
    expansionAdd: spec.ef_construction,
  };
}

/**
 * Whether each element of the graph is its own nearest in the native index (cosine,
 * euclidean, a lifted inner product), so that a search for its own vector that misses it
 * means the graph cannot reach it. Not so for a raw inner product, where a longer vector
 * in about the same direction wins.
 */
export const selfNearest = (spec: VectorSpec, longest: number): boolean => spec.metric !== 'inner_product' || longest > 0;

/** An element's vector as the native index takes it: cosine normalised, inner product lifted by the graph's M (a copy), others as they are. */
export function nativeVector(spec: VectorSpec, longest: number, v: Float32Array): Float32Array {
  if (spec.metric === 'cosine') return normalised(v);
  return lifted(spec, longest) ? withComponent(v, Math.sqrt(Math.max(0, longest * longest - squaredNorm(v)))) : v;
}

/** A query vector as the native index takes it: cosine normalised, inner product lifted with a last component of 0 (a copy), others as they are. */
export function nativeQuery(spec: VectorSpec, longest: number, v: Float32Array): Float32Array {
  if (spec.metric === 'cosine') return normalised(v);
  return lifted(spec, longest) ? withComponent(v, 0) : v;
}

/** A copy of `v` with one more component. */
function withComponent(v: Float32Array, last: number): Float32Array {
  const out = new Float32Array(v.length + 1);
  out.set(v);
  out[v.length] = last;
  return out;
}

/**
 * The M of a lifted graph whose longest vector is `length`: headroom, so that not every
 * longer vector sends the graph to be built again, but little, since a larger M lowers
 * recall at a given beam. Measured at 100k x 128 clustered, inserted in batches of 1,000
 * (recall@10 at the default beam of 80, and the time to every vector in the index):
 * 1.0 gave 0.964 in 72.7 s (a rebuild for each new longest), 1.1 0.955 in 29.2 s, 1.25
 * 0.914 in 23.2 s.
 */
export const longestFor = (length: number): number => (length > 0 ? 1.1 * length : 1);

/** Whether a graph's vectors are lifted and one of these is too long for its M (the graph must be built again). */
export function tooLong(spec: VectorSpec, longest: number, vectors: Iterable<Float32Array | null>): boolean {
  if (!lifted(spec, longest)) return false;
  const bound = longest * longest;
  for (const v of vectors) if (v !== null && squaredNorm(v) > bound) return true;
  return false;
}

function normalised(v: Float32Array): Float32Array {
  const scale = 1 / Math.sqrt(squaredNorm(v));
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * scale;
  return out;
}

/** The values of a stored property as a vector, or null when it is not an array of numbers. */
export function vectorValues(v: Value | undefined): ArrayLike<number> | null {
  if (v instanceof Float32Array || v instanceof Float64Array) return v;
  if (v instanceof BigInt64Array) return Array.from(v, Number);
  if (Array.isArray(v) && v.length > 0 && v.every(isNumeric)) return v.map((n) => toNumber(n as bigint | number));
  return null;
}

export interface VectorIndexOptions {
  /** The queue bound per graph (StoreOptions.vectorQueueEntries). */
  readonly maxEntries?: number;
  /** The data folder: segment files live in its `vectors/`. */
  readonly dataPath: string;
  readonly log: (message: string) => void;
}

/** A graph of a native index, as the builder finds it. */
export interface NativeGraph {
  readonly def: IndexDef;
  readonly graph: number;
  /** Its tenant partition's key (tenant-key.ts), or null for an index without one. */
  readonly tenant: string | null;
}

/** A segment the builder asks the writer to make current (vector-builder-client.ts). */
export interface SegmentCommit {
  readonly index: number;
  readonly graph: number;
  /** The pointer generation the segment was built from: the commit is refused if it changed. */
  readonly base: number;
  readonly pointer: GraphPointer;
  /** Every queued entry below this sequence number is in the segment. */
  readonly watermark: number;
  /** Elements the build read by a scan (0 for a build from a segment or the queue alone). */
  readonly scanned: number;
  /** Milliseconds of the builder's work behind it (the applied rate). */
  readonly busyMs: number;
}

export class VectorIndexes implements VectorFamily, FamilyWork {
  /** The old engine's configurations, by metric, M and ef_construction. */
  private readonly configs = new Map<string, HnswConfig>();
  readonly queue: VectorQueue;
  private readonly catalogReader: CatalogReader;
  private readonly views: SegmentViews;
  private readonly segmentDir: string;
  /** Native graphs this store's writes queued work for, since takeTouched (to wake the builder). */
  private touched = new Set<number>();
  /** Decoded queues of committed snapshots, per graph (pendingOf). */
  private readonly decoded = new Map<number, DecodedQueue>();
  /** How to find the orphans of each mapped segment (offerOrphans). */
  private readonly orphanSearches = new WeakMap<SegmentView, OrphanSearch>();
  /** The kept vectors of the candidate sets this thread searched exactly. */
  private readonly candidateVectors = new CandidateVectors();
  /** The copies of segment elements this thread has read (segment-copies.ts). */
  private readonly segmentCopies = new SegmentCopies();

  constructor(
    private readonly records: HnswDb,
    queue: QueueDb,
    private readonly catalog: CatalogDb,
    options: VectorIndexOptions,
  ) {
    this.queue = new VectorQueue(queue, options.maxEntries);
    this.catalogReader = new CatalogReader(catalog);
    this.segmentDir = segmentDir(options.dataPath);
    this.views = new SegmentViews(this.segmentDir, options.log);
  }

  /** The old engine's configuration of an index: its metric, its M (twice as many links at level 0) and its ef_construction. */
  private config(spec: VectorSpec): HnswConfig {
    const key = `${spec.metric}/${spec.m}/${spec.ef_construction}`;
    let c = this.configs.get(key);
    if (c === undefined) {
      c = hnswConfig(spec.metric, { m: spec.m, m0: 2 * spec.m, efConstruction: spec.ef_construction });
      this.configs.set(key, c);
    }
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

  /** The graphs of an index with their tenant keys: its own, or its tenant partitions'. */
  graphsOf(def: IndexDef): NativeGraph[] {
    if ((def.spec as VectorSpec).tenant_property === null) return [{ def, graph: def.id, tenant: null }];
    const prefix = `tenant:${def.id}:`;
    const out: NativeGraph[] = [];
    for (const { key, value } of this.catalog.getRange({ start: prefix, end: `tenant:${def.id};` })) {
      out.push({ def, graph: value as number, tenant: (key as string).slice(prefix.length) });
    }
    return out;
  }

  /** The graphs of every live native index (for the builder), in the current transaction. */
  nativeGraphs(): NativeGraph[] {
    const out: NativeGraph[] = [];
    for (const def of this.catalogReader.current().defs) {
      if (def.state === 'active' && def.spec.kind.endsWith('_vector') && isNative(def.spec as VectorSpec)) out.push(...this.graphsOf(def));
    }
    return out;
  }

  /** The vector an element holds for this index and partition, or null when the graph does not hold it. */
  private indexedVector(def: IndexDef, tenant: string | null, elements: IndexedElements, id: number): Float32Array | null {
    const spec = def.spec as VectorSpec;
    const element = elements.element(elementOf(spec.kind), id);
    if (element === undefined || element.label !== spec.label) return null;
    if (spec.tenant_property !== null && tenantKey(element.props[spec.tenant_property]) !== tenant) return null;
    const v = vectorValues(element.props[spec.property]);
    if (v === null || v.length !== spec.dimension) return null;
    return v instanceof Float32Array ? v : Float32Array.from(v);
  }

  // ---- maintenance, in the writing transaction ----------------------------------------

  private checked(def: IndexDef, id: number, props: ValueObject): Float32Array | null {
    const values = vectorValues(props[def.spec.property]);
    if (values === null) return null;
    const spec = def.spec as VectorSpec;
    const problem = checkVector(spec.metric, spec.dimension, values);
    if (problem !== null) {
      const element = spec.kind === 'node_vector' ? 'node' : 'edge';
      throw new GraphError(problem.code, `${spec.label}.${spec.property} of ${element} ${id} (${describeIndex(spec)}): ${problem.msg}`);
    }
    // Copied only when not already f32: the queue copies it into its entry anyway.
    return values instanceof Float32Array ? values : Float32Array.from(values);
  }

  private enqueue(def: IndexDef, graph: number, op: number, id: number, vector: Float32Array | null): void {
    const spec = def.spec as VectorSpec;
    const first = this.queue.append(graph, METRICS.indexOf(spec.metric), op, id, vector, () => describeIndex(spec));
    if (!isNative(spec)) return;
    // A graph without a pointer was made by this write: its vectors are its queue, and it
    // keeps copies of them. Only a graph's first entry can find none (a `scan` graph has
    // one and no queue yet; every older graph got one at the writable open, migrate), so
    // later writes skip the look.
    if (first && this.queue.pointer(graph) === undefined) {
      this.queue.putPointer(graph, newPointer('queue', 1, 0));
      this.queue.markCopies(graph);
    }
    if (vector === null) this.queue.removeCopy(graph, id);
    else this.queue.putCopy(graph, id, vector);
    this.touched.add(graph);
  }

  add(def: IndexDef, id: number, props: ValueObject): void {
    const vector = this.checked(def, id, props);
    if (vector === null) return;
    const tenant = this.tenantOf(def, props);
    if ((def.spec as VectorSpec).tenant_property !== null && tenant === null) return;
    this.enqueue(def, this.graphOf(def, tenant, true)!, LINK, id, vector);
  }

  remove(def: IndexDef, id: number, props: ValueObject): void {
    if (vectorValues(props[def.spec.property]) === null) return;
    const graph = this.graphOf(def, this.tenantOf(def, props), false);
    if (graph === null) return;
    // The old engine tombstones now, so a search in this or a later snapshot never returns
    // the old vector; the native one skips every element with a queued entry.
    if (!isNative(def.spec as VectorSpec)) markDeleted(new HnswRecords(this.records, graph), id);
    this.enqueue(def, graph, UNLINK, id, null);
  }

  /**
   * An element a build's scan reached (index-work.ts). The native engine queues nothing:
   * the graph becomes a `scan` graph, whose vectors are the stored ones, and the builder
   * reads them itself; the vector is still checked here, so a bad one blocks the build.
   */
  scanned(def: IndexDef, id: number, props: ValueObject): void {
    if (!isNative(def.spec as VectorSpec)) {
      this.remove(def, id, props);
      this.add(def, id, props);
      return;
    }
    const vector = this.checked(def, id, props);
    if (vector === null) return;
    const tenant = this.tenantOf(def, props);
    if ((def.spec as VectorSpec).tenant_property !== null && tenant === null) return;
    const graph = this.graphOf(def, tenant, true)!;
    const p = this.queue.pointer(graph);
    this.queue.putPointer(graph, p?.state === 'scan' ? { ...p, count: p.count + 1 } : newPointer('scan', (p?.generation ?? 0) + 1, 1));
    // A graph made by this scan keeps copies: the scan copies every element it reaches
    // before the index is active, and writes meanwhile copy theirs (enqueue).
    if (p === undefined) this.queue.markCopies(graph);
    this.queue.putCopy(graph, id, vector);
    this.touched.add(graph);
  }

  /** The native graphs written to since the last call (to wake the builder). */
  takeTouched(): number[] {
    if (this.touched.size === 0) return [];
    const out = [...this.touched];
    this.touched = new Set();
    return out;
  }

  // ---- search, in the reader's snapshot -----------------------------------------------

  search(def: IndexDef, q: VectorQuery, elements: IndexedElements): VectorHit[] {
    const spec = def.spec as VectorSpec;
    const tenant = spec.tenant_property === null ? null : tenantKey(q.tenant);
    const graph = this.graphOf(def, tenant, false);
    if (graph === null) return [];
    if (!isNative(spec)) return this.searchRecords(def, graph, q);
    const copies = this.queue.hasCopies(graph);
    const stored = this.storedVectors(def, graph, tenant, elements, copies);
    const pointer = this.queue.pointer(graph);
    // No pointer: a graph of an older format the writer has not opened yet.
    if (pointer === undefined || pointer.state === 'scan') return this.searchScan(def, graph, stored, q, elements);
    const exact = distanceFrom(spec.metric, q.vector);
    const nearest = new Nearest(q.k);
    const pending = this.pendingOf(graph, pointer, elements.committed());
    const candidates = q.candidates;
    for (const [id, v] of pending) if (v !== null && (candidates === null || candidates.has(id))) nearest.offer(id, exact(v));
    if (pointer.state === 'queue') return nearest.hits();
    const segment = this.views.get(graph, pointer, nativeShape(spec, pointer.longest), spec.dimension);
    if (segment === null) return this.searchScan(def, graph, stored, q, elements);
    // Only ever asked for elements with no queued entry in this snapshot (segment-copies.ts).
    const current = copies ? this.segmentCopies.reader(graph, pointer.nonce, pointer.generation, spec.dimension, stored) : stored;
    const offerStored = (id: number) => {
      const v = current(id);
      if (v !== null) nearest.offer(id, exact(v));
    };
    const ef = q.ef ?? spec.ef_search ?? DEFAULT_EF;
    if (candidates !== null) {
      const squared = candidates.size ** 2;
      const walk = ef * pointer.count;
      // Over the candidates' kept vectors when there are some (or read for this search
      // alone, when it would be exact anyway); else each copy read, or the walk.
      if (
        copies &&
        squared <= EXACT_KEPT_FACTOR * walk &&
        this.offerCandidateVectors(spec, graph, pointer, candidates, pending, q, nearest, exact, squared <= EXACT_FACTOR * walk)
      ) {
        return nearest.hits();
      }
      if (squared <= EXACT_FACTOR * walk) {
        for (const id of candidates.keys()) {
          q.tick?.();
          if (!pending.has(id)) offerStored(id);
        }
        return nearest.hits();
      }
    }
    const query = nativeQuery(spec, pointer.longest, q.vector);
    const selectivity = candidates === null ? 1 : Math.min(1, candidates.size / Math.max(1, pointer.count));
    const { tombstones: dead, orphans } = segment;
    const stale =
      dead.length + orphans.length === 0
        ? (id: number) => pending.has(id)
        : (id: number) => pending.has(id) || listed(dead, id) || listed(orphans, id);
    const skip = candidates === null ? stale : (id: number) => stale(id) || !candidates.has(id);
    // In native order, while one could still rank: past the first whose native distance
    // bounds its exact one above the k-th exact distance kept, none can.
    const atLeast = EXACT_AT_LEAST[spec.metric];
    const found = nativeNearest(segment.index, query, q.k, ef, selectivity, skip, atLeast === null ? RERANK * q.k : Infinity);
    for (let i = 0; i < found.ids.length; i++) {
      if (atLeast !== null && atLeast(found.distances[i]!) > nearest.bar()) break;
      offerStored(found.ids[i]!);
    }
    const acceptOrphan = (id: number) => !pending.has(id) && (candidates === null || candidates.has(id));
    this.offerSegmentOrphans(spec, pointer.longest, segment, query, q.k, selectivity, nearest, exact, acceptOrphan);
    return nearest.hits();
  }

  /**
   * The exact path of a candidate set over its kept vectors (candidate-vectors.ts): a
   * native brute-force pass picks RERANK times k of them (and as many more as there are
   * queued candidates, offered from the queue already), ranked again exactly. The graph
   * keeps copies (the caller checks). False when the vectors are not kept (a first search
   * makes them for itself when `now`; they are kept from the set's second search; never
   * when too many), and the caller searches otherwise.
   */
  private offerCandidateVectors(
    spec: VectorSpec,
    graph: number,
    pointer: GraphPointer,
    candidates: Candidates,
    pending: ReadonlyMap<number, Float32Array | null>,
    q: VectorQuery,
    nearest: Nearest,
    exact: (v: Float32Array) => number,
    now: boolean,
  ): boolean {
    const dim = spec.dimension;
    // Ranked as the native index ranks an unlifted graph (cosine: inner products of
    // normalised vectors), which orders them as the exact distance does; a large set ranked
    // by inner product as i8, its pool wider (QUANTIZED_FROM).
    const shape = nativeShape(spec, 0);
    const cosine = spec.metric === 'cosine';
    const quantized = shape.metric === 'ip' && candidates.size >= QUANTIZED_FROM;
    const key = `${graph}:${pointer.nonce}:${pointer.generation}`;
    const bytes = dim * 4 + 8 + (quantized ? dim : cosine ? dim * 4 : 0);
    const matrix = this.candidateVectors.get(candidates, key, bytes, now, () => {
      const ids: number[] = [];
      const flat = new Float32Array(candidates.size * dim);
      const ranked = cosine ? new Float32Array(candidates.size * dim) : flat;
      const into = new Float32Array(dim);
      for (const id of candidates.keys()) {
        q.tick?.();
        if (!this.queue.readCopy(graph, id, into)) continue;
        flat.set(into, ids.length * dim);
        if (ranked !== flat) ranked.set(nativeVector(spec, 0, into), ids.length * dim);
        ids.push(id);
      }
      const stored = flat.slice(0, ids.length * dim);
      const unit = cosine ? ranked.subarray(0, ids.length * dim) : stored;
      return { ids: Float64Array.from(ids), flat: stored, ranked: quantized ? quantizedI8(unit) : cosine ? unit.slice() : stored };
    });
    if (matrix === null) return false;
    let queued = 0;
    for (const id of pending.keys()) if (candidates.has(id)) queued++;
    const query = nativeQuery(spec, 0, q.vector);
    const [ranking, pool] = matrix.ranked instanceof Int8Array ? [quantizedI8(query), QUANTIZED_RERANK * q.k] : [query, RERANK * q.k];
    for (const i of exactNearest(matrix.ranked, ranking, shape, pool + queued).positions) {
      const id = matrix.ids[i]!;
      if (!pending.has(id)) nearest.offer(id, exact(matrix.flat.subarray(i * dim, (i + 1) * dim)));
    }
    return true;
  }

  /**
   * The segment's orphans (elements its graph cannot reach) that may rank: about the
   * RERANK times k nearest (over the candidates' share), found by orphan-search.ts, then
   * ranked exactly from the side file's vectors: those whose native distance allows an
   * exact one within the k-th kept (EXACT_AT_LEAST; offered after the graph's hits, so the
   * bar is theirs).
   */
  private offerSegmentOrphans(
    spec: VectorSpec,
    longest: number,
    segment: SegmentView,
    query: Float32Array,
    k: number,
    selectivity: number,
    nearest: Nearest,
    exact: (v: Float32Array) => number,
    accept: (id: number) => boolean,
  ): void {
    const { orphans, vectors } = segment;
    if (orphans.length === 0) return;
    let search = this.orphanSearches.get(segment);
    if (search === undefined) {
      const shape = nativeShape(spec, longest);
      const flat = new Float32Array(orphans.length * shape.dimension);
      vectors.forEach((v, i) => flat.set(nativeVector(spec, longest, v), i * shape.dimension));
      search = new OrphanSearch(flat, shape, selfNearest(spec, longest));
      this.orphanSearches.set(segment, search);
    }
    offerOrphans(
      { search, ids: orphans, vectors },
      { query, k, selectivity, exact, accept, atLeast: EXACT_AT_LEAST[spec.metric] },
      RERANK,
      nearest,
    );
  }

  /**
   * How a search reads the vector of an element the graph holds, as stored, or null when
   * it holds none: the graph's copy (vector-queue.ts), or, for a graph of an older
   * database that keeps none, the element itself. The vector answered is valid until the
   * next call.
   */
  private storedVectors(
    def: IndexDef,
    graph: number,
    tenant: string | null,
    elements: IndexedElements,
    copies: boolean,
  ): (id: number) => Float32Array | null {
    if (!copies) return (id) => this.indexedVector(def, tenant, elements, id);
    const into = new Float32Array((def.spec as VectorSpec).dimension);
    return (id) => (this.queue.readCopy(graph, id, into) ? into : null);
  }

  /**
   * The graph's queued entries, decoded (VectorQueue.pending). In a snapshot of committed
   * data over a segment, the decoded map is kept per graph and reused while the pointer and
   * the oldest entry are the same and the queue only grew (entries are appended at `next` and deleted from the oldest on, so the queue is
   * the sequence numbers [next - entries, next) and a committed number never changes):
   * a search then decodes only the entries queued since the last one. A write batch's own
   * view is decoded afresh, since what it queued may yet be rolled back.
   */
  private pendingOf(graph: number, pointer: GraphPointer, committed: boolean): ReadonlyMap<number, Float32Array | null> {
    // Only over a segment, whose pointer's random nonce tells one history from another: a
    // replica that takes a new snapshot replaces every key under this thread, and the same
    // graph and sequence numbers may then hold other entries (docs/replication.md).
    if (!committed || pointer.state !== 'segment') return this.queue.pending(graph);
    const s = this.queue.state(graph);
    if (s === undefined || s.entries === 0) return EMPTY_PENDING;
    const first = s.next - s.entries;
    const cached = this.decoded.get(graph);
    if (
      cached !== undefined &&
      cached.nonce === pointer.nonce &&
      cached.generation === pointer.generation &&
      cached.first === first &&
      cached.next <= s.next
    ) {
      if (cached.next < s.next) {
        for (const { entry } of this.queue.entries(graph, cached.next)) cached.map.set(entry.id, entry.vector);
        cached.next = s.next;
      }
      return cached.map;
    }
    const map = this.queue.pending(graph);
    this.decoded.set(graph, { nonce: pointer.nonce, generation: pointer.generation, first, next: s.next, map });
    return map;
  }

  /** Exact: every element the graph holds, from its copies or the store (or only the candidates). */
  private searchScan(
    def: IndexDef,
    graph: number,
    stored: (id: number) => Float32Array | null,
    q: VectorQuery,
    elements: IndexedElements,
  ): VectorHit[] {
    const spec = def.spec as VectorSpec;
    const exact = distanceFrom(spec.metric, q.vector);
    const nearest = new Nearest(q.k);
    if (q.candidates === null && this.queue.hasCopies(graph)) {
      for (const { id, vector } of this.queue.copies(graph, spec.dimension)) {
        q.tick?.();
        nearest.offer(id, exact(vector));
      }
      return nearest.hits();
    }
    const ids = q.candidates?.keys() ?? elements.idsByLabel(elementOf(spec.kind), spec.label);
    for (const id of ids) {
      q.tick?.();
      const v = stored(id);
      if (v !== null) nearest.offer(id, exact(v));
    }
    return nearest.hits();
  }

  /** The old engine: the graph's LMDB records and its queued links. */
  private searchRecords(def: IndexDef, graph: number, q: VectorQuery): VectorHit[] {
    const spec = def.spec as VectorSpec;
    const storage = new HnswRecords(this.records, graph);
    const pending = this.queue.pending(graph);
    const exact = distanceFrom(spec.metric, q.vector);
    const nearest = new Nearest(q.k);
    const candidates = q.candidates;
    if (candidates !== null && candidates.size <= EXACT_CANDIDATES) {
      for (const id of candidates.keys()) {
        if (pending.has(id)) continue;
        const r = storage.get(id);
        if (r !== undefined && !r.deleted) nearest.offer(id, exact(r.vector));
      }
    } else {
      const accept = (id: number) => !pending.has(id) && (candidates === null || candidates.has(id));
      const ef = q.ef ?? spec.ef_search ?? searchEf(q.k);
      for (const n of hnswSearch(storage, this.config(spec), q.vector, q.k, ef, accept)) nearest.offer(n.id, n.distance);
    }
    for (const [id, vector] of pending) {
      if (vector !== null && (candidates === null || candidates.has(id))) nearest.offer(id, exact(vector));
    }
    return nearest.hits();
  }

  // ---- state and background work ------------------------------------------------------

  /** The index's queued work, applied work and rate, in the current transaction. */
  backlog(def: IndexDef): VectorBacklog {
    let queued = 0;
    let applied = 0;
    let latest: Applied | null = null;
    // The older engine (manhattan) has no sweep: its graphs count as checked.
    let reachChecked = true;
    const native = isNative(def.spec as VectorSpec);
    for (const { graph } of this.graphsOf(def)) {
      const entries = this.queue.state(graph)?.entries ?? 0;
      queued += entries;
      const pointer = this.queue.pointer(graph);
      if (pointer?.state === 'scan') queued += pointer.count;
      if (native && !swept(pointer, entries)) reachChecked = false;
      const a = this.queue.applied(graph);
      applied += a.total;
      if (a.at > (latest?.at ?? 0)) latest = a;
    }
    return { queued, applied, appliedPerSecond: latest?.perSecond ?? 0, reachChecked };
  }

  /** The old engine's graphs: those of manhattan indexes that are not being dropped. */
  private recordGraphs(): NativeGraph[] {
    const out: NativeGraph[] = [];
    for (const def of this.catalogReader.current().defs) {
      if (def.state !== 'dropping' && def.spec.kind.endsWith('_vector') && !isNative(def.spec as VectorSpec))
        out.push(...this.graphsOf(def));
    }
    return out;
  }

  /** Whether the writer has work here: old-engine links, old-format records to delete, or copies to fill. */
  hasQueued(): boolean {
    return (
      this.queue.purges().length > 0 ||
      this.recordGraphs().some((g) => (this.queue.state(g.graph)?.entries ?? 0) > 0) ||
      this.unfilled().length > 0
    );
  }

  /** Graphs of active native indexes that keep no copies yet (of an older database). */
  private unfilled(): NativeGraph[] {
    return this.nativeGraphs().filter((g) => !this.queue.hasCopies(g.graph));
  }

  /**
   * Fills the copies of graphs of an older database, until the deadline (true when some
   * is left): the elements of each index's label in id order, from a cursor kept in its
   * graphs' rows, each copied into the graph of its tenant partition (one pass for all the
   * partitions of an index); the graphs are marked once all are written, and their
   * searches read the copies from then on. Writes meanwhile keep the copies of what they
   * change (enqueue), before and behind the cursor.
   */
  private fillCopies(w: IndexWorkView, deadline: number): boolean {
    const groups = new Map<number, NativeGraph[]>();
    for (const g of this.unfilled()) groups.set(g.def.id, [...(groups.get(g.def.id) ?? []), g]);
    for (const graphs of groups.values()) {
      const def = graphs[0]!.def;
      const spec = def.spec as VectorSpec;
      const byTenant = new Map(graphs.map((g) => [g.tenant, g.graph]));
      const from = Math.min(...graphs.map((g) => this.queue.fillCursor(g.graph)));
      const node = elementOf(spec.kind) === 'node';
      for (const id of node ? w.nodeIdsByLabel(spec.label, from) : w.edgeIdsByLabel(spec.label, from)) {
        if (performance.now() >= deadline) {
          for (const g of graphs) this.queue.saveFillCursor(g.graph, id);
          return true;
        }
        const element = node ? w.getNode(id) : w.getEdge(id);
        if (element === undefined) continue;
        const graph = byTenant.get(spec.tenant_property === null ? null : tenantKey(element.props[spec.tenant_property]));
        const v = graph === undefined ? null : vectorValues(element.props[spec.property]);
        if (v !== null && v.length === spec.dimension) this.queue.putCopy(graph!, id, v instanceof Float32Array ? v : Float32Array.from(v));
      }
      for (const g of graphs) this.queue.markCopies(g.graph);
    }
    return false;
  }

  /**
   * The writer's share (index-work.ts), until the deadline; true when some is left: the
   * deletion of old-format records, the copies of older graphs, and the old engine's
   * links and unlinks, oldest first.
   */
  drain(w: IndexWorkView, deadline: number): boolean {
    for (const graph of this.queue.purges()) {
      while (HnswRecords.drop(this.records, graph, DELETE_ROUND) === DELETE_ROUND) if (performance.now() >= deadline) return true;
      this.queue.unmarkPurge(graph);
    }
    if (this.fillCopies(w, deadline)) return true;
    for (const { def, graph } of this.recordGraphs()) {
      const started = performance.now();
      if (started >= deadline) return true;
      const s = this.queue.state(graph);
      if (s === undefined || s.entries === 0) continue;
      const config = this.config(def.spec as VectorSpec);
      const storage = new HnswRecords(this.records, graph);
      const seqs: number[] = [];
      let bytes = 0;
      for (const { seq, entry, bytes: size } of this.queue.entries(graph, 0)) {
        if (performance.now() >= deadline) break;
        if (storage.get(entry.id) !== undefined) remove(storage, config, entry.id);
        if (entry.op === LINK) insert(storage, config, entry.id, entry.vector!);
        seqs.push(seq);
        bytes += size;
      }
      this.queue.removeEntries(graph, seqs, bytes);
      if (seqs.length > 0) this.queue.noteApplied(graph, seqs.length, performance.now() - started);
      if (seqs.length < s.entries) return true;
    }
    return false;
  }

  /** Deletes a dropped index's graphs, queues and tenant partitions, until the deadline; true when done. */
  deleteSome(def: IndexDef, deadline: number): boolean {
    const graphs = this.graphsOf(def);
    for (const { graph } of graphs) {
      while (HnswRecords.drop(this.records, graph, DELETE_ROUND) === DELETE_ROUND) if (performance.now() >= deadline) return false;
      if (!this.queue.dropSome(graph, DELETE_ROUND)) return false;
    }
    for (const { tenant } of graphs) if (tenant !== null) this.catalog.removeSync(`tenant:${def.id}:${tenant}`);
    return true;
  }

  /**
   * At a writable open: every graph of a native index that has no pointer is of an older
   * format (HNSW records in LMDB). It becomes a `scan` graph, searched exactly until the
   * builder has made its segment, and its old records are deleted in the background; an
   * empty one becomes a `queue` graph. Answers how many graphs it migrated.
   */
  migrate(): number {
    let migrated = 0;
    for (const def of this.catalogReader.current().defs) {
      if (def.state === 'dropping' || !def.spec.kind.endsWith('_vector') || !isNative(def.spec as VectorSpec)) continue;
      for (const { graph } of this.graphsOf(def)) {
        if (this.queue.pointer(graph) !== undefined) continue;
        migrated++;
        const records = HnswRecords.count(this.records, graph);
        const queued = this.queue.state(graph)?.entries ?? 0;
        if (records === 0 && queued === 0) {
          // Empty: it holds no vector, so it keeps (no) copies of all it holds.
          this.queue.putPointer(graph, newPointer('queue', 1, 0));
          this.queue.markCopies(graph);
          continue;
        }
        this.queue.putPointer(graph, newPointer('scan', 1, records + queued));
        if (records > 0) this.queue.markPurge(graph);
      }
    }
    return migrated;
  }

  /**
   * Makes a segment current (the builder's, through the writer): its pointer, and the
   * deletion of the queued entries it covers, in one transaction. Refused (false) when the
   * graph changed state since the segment's base, or its index is no longer active.
   */
  commitSegment(c: SegmentCommit): boolean {
    const current = this.queue.pointer(c.graph);
    if (current === undefined || current.generation !== c.base) return false;
    const def = this.catalogReader.current().defs.find((d) => d.id === c.index);
    if (def === undefined || def.state !== 'active') return false;
    const removed = this.queue.removeBelow(c.graph, c.watermark);
    this.queue.putPointer(c.graph, c.pointer);
    this.queue.noteApplied(c.graph, removed + c.scanned, c.busyMs);
    return true;
  }

  /** The segment file names every pointer of this snapshot names (files the store keeps). */
  /**
   * The segments of every live native graph whose files are not in the data folder as their
   * pointers describe them (absent, or of another size), in the current transaction.
   */
  missingSegments(): MissingSegment[] {
    const dir = this.segmentDir;
    const out: MissingSegment[] = [];
    for (const { def, graph } of this.nativeGraphs()) {
      const pointer = this.queue.pointer(graph);
      if (pointer?.state !== 'segment') continue;
      const { dimension } = def.spec as VectorSpec;
      if (segmentProblem(dir, graph, pointer, dimension, false) === null) continue;
      out.push({ files: segmentFiles(graph, pointer), sizes: segmentSizes(pointer, dimension), checksum: pointer.checksum });
    }
    return out;
  }

  *segmentPointers(): Generator<{ graph: number; pointer: GraphPointer }> {
    for (const entry of this.queue.pointers()) if (entry.pointer.state === 'segment') yield entry;
  }
}

/**
 * Whether every element of a native graph was checked for reach after its last add: a
 * segment that says so, or an empty graph (nothing queued, and no pointer yet or a queue
 * pointer: a graph gets its pointer with its first write).
 */
function swept(pointer: GraphPointer | undefined, queued: number): boolean {
  if (pointer?.state === 'segment') return pointer.swept;
  return (pointer === undefined || pointer.state === 'queue') && queued === 0;
}

export function newPointer(
  state: GraphPointer['state'],
  generation: number,
  count: number,
  quantization: Quantization = 'f16',
): GraphPointer {
  return { state, generation, nonce: 0, count, tombstones: 0, orphans: 0, quantization, size: 0, checksum: null, longest: 0, swept: false };
}

/**
 * The nearest elements of a segment that `skip` lets through (not stale, deleted or
 * outside the candidates), nearest first by the native distance: up to `keep` of those the
 * beam found (RERANK times k where the native distance bounds no exact one; every one
 * otherwise, and the caller reads them only while one could rank, so that a group of ties
 * larger than RERANK times k, copies of one vector, is ranked whole and by id), which the
 * caller ranks again by their exact distances. The native distances of a cosine
 * segment are of f16 components: near-ties at the k-th place come out in either order
 * (measured: 3 of 10 searches over 1,500 clustered 16-d vectors lost their 10th neighbour
 * to the 11th, even with a beam over the whole graph), and the exact ranking of a few more settles them.
 * The beam is ef over the share of the index the caller may keep (a `_within` candidate
 * set), and widens while fewer than k hits pass.
 */
function nativeNearest(
  index: NativeIndex,
  query: Float32Array,
  k: number,
  ef: number,
  selectivity: number,
  skip: (id: number) => boolean,
  keep: number,
): { ids: number[]; distances: number[] } {
  const size = index.size;
  if (size === 0) return { ids: [], distances: [] };
  let count = Math.min(size, Math.max(k, Math.ceil(Math.max(k, ef) / selectivity)));
  for (;;) {
    const { ids, distances, found } = index.search(query, count);
    const out: number[] = [];
    const outDistances: number[] = [];
    for (let i = 0; i < found && out.length < keep; i++) {
      const id = Number(ids[i]);
      if (skip(id)) continue;
      out.push(id);
      outDistances.push(distances[i]!);
    }
    if (out.length >= k || found < count || count >= size) return { ids: out, distances: outDistances };
    // Widen by what the share that passed asks for, with a margin: fourfold at most
    // (none passed), half again at least. Measured at a 10% filter, where a fifth of the
    // searches widen: 11% more searches a second than a fourfold step every time.
    count = Math.min(size, Math.ceil(count * Math.min(4, Math.max(1.5, (1.25 * k) / Math.max(out.length, 1)))));
  }
}
