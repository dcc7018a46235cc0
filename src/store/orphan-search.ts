/**
 * How a search finds the orphans of a segment worth ranking (docs/architecture.md, "The
 * vector engine"): the elements its native graph cannot reach, kept in the side file with
 * their vectors. Every search asks for the few nearest of them, so this is on the path of
 * every query.
 *
 * A brute-force pass over all of them costs a native call plus a distance per orphan:
 * measured at 100k x 128 clustered (0.6% orphans, about 600), 31 to 47 µs a search in
 * isolation and 60 to 90 µs within the pipeline, a fifth of a whole query. Past
 * GRAPH_FROM orphans they get a native graph of their own, built per mapped segment and
 * thread once that segment has served enough searches to pay for it
 * (SEARCHES_BEFORE_GRAPH), and searched with a beam of the count asked: 14 to 20 µs at
 * 600, recall of the 20 nearest 0.994 to 0.998 in the same measurement.
 * That graph's own unreachable members (it is built once, so its `unreachable` check is
 * exact for it) are ranked by brute force beside it: no orphan is ever out of reach.
 */
import { exactNearest, NativeIndex, type NativeShape } from './native-vectors.js';

/** Orphans up to this many are ranked by a brute-force pass; more get a graph. */
const GRAPH_FROM = 256;
/**
 * Searches of one segment view that go by brute force before its graph is built. Building
 * costs about 53 µs an orphan and the brute-force pass about 0.06 µs an orphan per search
 * (measured at 128 dimensions), so the build pays for itself after about 900 searches
 * whatever the count: a segment that is replaced before then (under writes, the builder
 * publishes every few seconds) never pays it, and one that serves more pays at most twice
 * what knowing in advance would have cost (the rent-or-buy rule). The search that builds
 * it waits for the build: about 30 ms at 600 orphans.
 */
const SEARCHES_BEFORE_GRAPH = 900;

interface OrphanGraph {
  readonly index: NativeIndex;
  /** The positions the graph cannot reach, and their vectors one after another. */
  readonly stragglers: number[];
  readonly stragglerVectors: Float32Array;
}

export class OrphanSearch {
  /** The graph over every orphan, once built. */
  private graph: OrphanGraph | null = null;
  private searches = 0;

  /**
   * @param flat every orphan's vector in the native index's space, one after another
   * @param shape the segment's dimension and metric (the graph keeps f32 components)
   */
  constructor(
    private readonly flat: Float32Array,
    private readonly shape: Pick<NativeShape, 'dimension' | 'metric' | 'connectivity' | 'expansionAdd'>,
  ) {}

  private build(): OrphanGraph {
    const { flat, shape } = this;
    const size = this.size;
    const index = new NativeIndex({ ...shape, quantization: 'f32' });
    const positions = Array.from({ length: size }, (_, i) => i);
    index.add(positions, flat, 1);
    const stragglers = index.unreachable(positions, flat, Math.min(size, 16), 1);
    const stragglerVectors = new Float32Array(stragglers.length * shape.dimension);
    stragglers.forEach((p, i) => stragglerVectors.set(flat.subarray(p * shape.dimension, (p + 1) * shape.dimension), i * shape.dimension));
    return { index, stragglers, stragglerVectors };
  }

  /** Whether the orphans are searched through a graph (built). */
  get graphed(): boolean {
    return this.graph !== null;
  }

  get size(): number {
    return this.flat.length / this.shape.dimension;
  }

  /**
   * About the `count` orphans nearest to `query` (a vector in the native space): their
   * positions, nearest first by the native distance, which only ranks them; with a graph,
   * its unreachable members follow. The caller ranks them exactly.
   */
  nearest(query: Float32Array, count: number): number[] {
    if (this.graph === null) {
      if (this.size <= GRAPH_FROM || ++this.searches <= SEARCHES_BEFORE_GRAPH) return exactNearest(this.flat, query, this.shape, count);
      this.graph = this.build();
    }
    const { index, stragglers, stragglerVectors } = this.graph;
    const { ids, found } = index.search(query, count);
    const out = Array.from(ids.subarray(0, found), Number);
    if (stragglers.length === 0) return out;
    // A straggler the beam found anyway is not offered twice.
    const seen = new Set(out);
    for (const i of exactNearest(stragglerVectors, query, this.shape, count)) {
      const position = stragglers[i]!;
      if (!seen.has(position)) out.push(position);
    }
    return out;
  }
}
