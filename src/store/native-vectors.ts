/**
 * The native vector index (usearch 2.25, an HNSW in C++ with SIMD distances), the one
 * module that loads it (.dependency-cruiser.cjs). Trellis uses it as derived data: a
 * builder thread keeps a mutable index per graph and saves it as an immutable segment
 * file; searches view (memory-map) that file, so every thread of the process, and every
 * process, shares one copy through the page cache (vector-segments.ts, vector-builder.ts).
 *
 * The package's own JavaScript wrapper cannot be imported as ESM (its native-build lookup
 * recurses forever) and copies every result; this loads the prebuilt addon it ships, the
 * way the wrapper does (node-gyp-build, which picks the file of this platform), and calls
 * it directly. npm 11 does not run usearch's install script, and none is needed.
 *
 * Metrics (docs/architecture.md, "The vector engine"): cosine is searched as the inner
 * product of normalised vectors (`ip`: usearch's `cos` recomputes both norms every time
 * and measured twice as slow), euclidean as `l2sq`, inner product as `ip`. The distances
 * usearch reports only rank candidates: Trellis reports the exact distance of each hit,
 * from the stored vector (vector-math.ts), as it always has.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** The addon's index class: the C++ object behind usearch's `Index`. */
interface CompiledIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads: number): void;
  search(vector: Float32Array, count: number, threads: number): [BigUint64Array, Float32Array, BigUint64Array];
  remove(keys: BigUint64Array): number[];
  contains(keys: BigUint64Array): boolean[];
  size(): number;
  connectivity(): number;
  save(path: string): void;
  load(path: string): void;
  view(path: string): void;
}

interface Addon {
  exactSearch(
    dataset: Float32Array | Int8Array,
    queries: Float32Array | Int8Array,
    dimensions: number,
    count: number,
    metric: string,
    threads: number,
  ): [BigUint64Array, Float32Array, BigUint64Array];
  CompiledIndex: new (
    dimensions: number,
    metric: string,
    quantization: string,
    connectivity: number,
    expansionAdd: number,
    expansionSearch: number,
    multi: boolean,
  ) => CompiledIndex;
}

let addon: Addon | undefined;

function load(): Addon {
  if (addon !== undefined) return addon;
  const require = createRequire(import.meta.url);
  // The package root: its `main` lives in javascript/dist/cjs/.
  const main = require.resolve('usearch');
  const root = dirname(dirname(dirname(dirname(main))));
  const build = createRequire(main)('node-gyp-build') as (dir: string) => Addon;
  addon = build(root);
  return addon;
}

/** How a graph's vectors are compared inside the native index. */
export type NativeMetric = 'ip' | 'l2sq';
/** How the native index stores vector components (the exact ones stay in LMDB). */
export type Quantization = 'f32' | 'f16';

export const QUANTIZATIONS: readonly Quantization[] = ['f32', 'f16'];

export interface NativeShape {
  readonly dimension: number;
  readonly metric: NativeMetric;
  readonly quantization: Quantization;
  /**
   * Links per element above level 0 (level 0 keeps twice as many), as hnswlib's M: the
   * index's `m`. A saved index keeps its own, which load and view restore.
   */
  readonly connectivity: number;
  /** The beam of an insertion (hnswlib's ef_construction): the index's `ef_construction`. */
  readonly expansionAdd: number;
}

function keysOf(ids: readonly number[]): BigUint64Array {
  const keys = new BigUint64Array(ids.length);
  for (let i = 0; i < ids.length; i++) keys[i] = BigInt(ids[i]!);
  return keys;
}

/**
 * One native index. Keys are element ids (below 2^53). A search asks for `count` results
 * with a beam of max(count, 1): the caller's ef is the count it asks for.
 *
 * usearch 2.25 corrupts memory when it views or loads a file that holds removed slots (it
 * sizes a table by the live entries, then copies every slot into it): a removal is only
 * ever followed, in the same step, by an add that takes its slot back (an element's new
 * vector). Deleted elements stay in the index as tombstones, which searches skip
 * (vector-segments.ts), until the graph is built again (vector-builder.ts).
 */
export class NativeIndex {
  private readonly native: CompiledIndex;

  constructor(readonly shape: NativeShape) {
    const { CompiledIndex } = load();
    this.native = new CompiledIndex(shape.dimension, shape.metric, shape.quantization, shape.connectivity, shape.expansionAdd, 1, false);
  }

  get size(): number {
    return this.native.size();
  }

  /** The graph's M as the index holds it (a loaded or viewed index: the one it was built with). */
  get connectivity(): number {
    return this.native.connectivity();
  }

  /** Adds elements (none of them present): `vectors` holds one vector after another. */
  add(ids: readonly number[], vectors: Float32Array, threads: number): void {
    if (ids.length > 0) this.native.add(keysOf(ids), vectors, threads);
  }

  /** Which of `ids` the index holds. */
  contains(ids: readonly number[]): boolean[] {
    return ids.length === 0 ? [] : this.native.contains(keysOf(ids));
  }

  /** Removes elements the index holds: each slot must be taken back by an add before a save. */
  remove(ids: readonly number[]): void {
    if (ids.length > 0) this.native.remove(keysOf(ids));
  }

  /**
   * The `count` nearest elements (fewer when the index holds fewer), nearest first: ids,
   * and the native distances, which only rank them.
   */
  search(query: Float32Array, count: number): { ids: BigUint64Array; distances: Float32Array; found: number } {
    const [ids, distances, counts] = this.native.search(query, Math.max(1, count), 1);
    return { ids, distances, found: Number(counts[0]) };
  }

  /**
   * Which of the elements just added (ids, and their vectors as the index took them) are
   * not among the `count` nearest of their own vector: indexes into `ids`.
   */
  unreachable(ids: readonly number[], vectors: Float32Array, count: number, threads: number): number[] {
    if (ids.length === 0) return [];
    const [keys, , counts] = this.native.search(vectors, count, threads);
    const out: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const key = BigInt(ids[i]!);
      const found = Number(counts[i]);
      let hit = false;
      for (let j = 0; j < found && !hit; j++) hit = keys[i * count + j] === key;
      if (!hit) out.push(i);
    }
    return out;
  }

  save(path: string): void {
    this.native.save(path);
  }

  /** Reads a saved index into memory, to change it. */
  load(path: string): void {
    this.native.load(path);
  }

  /** Maps a saved index read-only: the file is shared, not copied. */
  view(path: string): void {
    this.native.view(path);
  }
}

/**
 * Vectors as i8 for a brute-force pass that ranks by inner product: each component times
 * 127 over the largest magnitude among them (one scale for the whole array, so their inner
 * products with a query keep their order up to rounding). A quarter of f32's bytes, and the
 * native pass over them runs 1.6 to 2.7 times as fast at 10,000 vectors (128 and 768
 * dimensions, measured), at the price of ranking only about: the caller ranks a wider pool
 * of the best again exactly.
 */
export function quantizedI8(vectors: Float32Array): Int8Array {
  let largest = 0;
  for (let i = 0; i < vectors.length; i++) largest = Math.max(largest, Math.abs(vectors[i]!));
  const out = new Int8Array(vectors.length);
  if (largest === 0) return out;
  const scale = 127 / largest;
  for (let i = 0; i < vectors.length; i++) out[i] = Math.round(vectors[i]! * scale);
  return out;
}

/** Positions nearest first, each with its native distance (which only ranks them). */
export interface Ranked {
  readonly positions: number[];
  readonly distances: number[];
}

/**
 * The `count` vectors of `flat` (one after another) nearest to `query` by a brute-force
 * pass in SIMD: their positions in `flat`, nearest first, with their native distances. For
 * a few hundred vectors it costs a sixth of the same loop in JavaScript (measured: 45 µs
 * against 284 µs for 641 x 128).
 */
export function exactNearest(
  flat: Float32Array | Int8Array,
  query: Float32Array | Int8Array,
  shape: Pick<NativeShape, 'dimension' | 'metric'>,
  count: number,
): Ranked {
  const size = flat.length / shape.dimension;
  if (size === 0 || count <= 0) return { positions: [], distances: [] };
  const [positions, distances, found] = load().exactSearch(flat, query, shape.dimension, Math.min(count, size), shape.metric, 1);
  const n = Number(found[0]);
  return { positions: Array.from(positions.subarray(0, n), Number), distances: Array.from(distances.subarray(0, n)) };
}
