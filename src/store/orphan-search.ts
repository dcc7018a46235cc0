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
 * thread, a step per search, once that segment has served enough searches to pay for it
 * (SEARCHES_BEFORE_GRAPH, BUILD_STEP), and searched with a beam of the count asked: 14 to 20 µs at
 * 600, recall of the 20 nearest 0.994 to 0.998 in the same measurement.
 * That graph's own unreachable members (it is built once, so its `unreachable` check is
 * exact for it) are ranked by brute force beside it: no orphan is ever out of reach.
 */
import { exactNearest, NativeIndex, type NativeShape, type Ranked } from './native-vectors.js';

/** Orphans up to this many are ranked by a brute-force pass; more get a graph. */
const GRAPH_FROM = 256;
/**
 * Searches of one segment view that go by brute force before its graph is started.
 * Building costs about 53 µs an orphan and the brute-force pass about 0.06 µs an orphan per
 * search (measured at 128 dimensions), so the graph pays for itself after about 900
 * searches whatever the count: a segment that is replaced before then (under writes, the
 * builder publishes every few seconds) never pays for it, and one that serves more pays at
 * most twice what knowing in advance would have cost (the rent-or-buy rule).
 */
const SEARCHES_BEFORE_GRAPH = 900;
/**
 * Orphans added to the graph (or checked for reach) per search while it is built: 1.2 to
 * 2.1 ms a search on average at 128 dimensions (measured at 600 and 6,000 orphans), rather
 * than one search waiting for the whole build (30 ms at 600 orphans, half a second at
 * 6,000). Searches go by brute force until the graph is whole.
 */
const BUILD_STEP = 32;

/** The graph over the orphans, as far as it is built. */
interface OrphanGraph {
  readonly index: NativeIndex;
  /** Orphans added so far, then orphans checked for reach so far (positions). */
  added: number;
  checked: number;
  /** The positions the graph cannot reach. */
  readonly stragglers: number[];
  /** Their vectors one after another, once the graph is whole. */
  stragglerVectors: Float32Array | null;
}

export class OrphanSearch {
  private graph: OrphanGraph | null = null;
  private searches = 0;

  /**
   * @param flat every orphan's vector in the native index's space, one after another
   * @param shape the segment's dimension and metric (the graph keeps f32 components)
   * @param graphable whether a graph may serve them: only where each is its own nearest
   *   (vector-index.ts selfNearest); over raw inner products a graph leaves about half its
   *   elements out of reach (docs/architecture.md, "Metrics"), and its reach check fails
   */
  constructor(
    private readonly flat: Float32Array,
    private readonly shape: Pick<NativeShape, 'dimension' | 'metric' | 'connectivity' | 'expansionAdd'>,
    private readonly graphable: boolean,
  ) {}

  /** Whether the orphans are searched through a graph (whole). */
  get graphed(): boolean {
    return this.graph?.stragglerVectors != null;
  }

  get size(): number {
    return this.flat.length / this.shape.dimension;
  }

  /** One step of the graph's build: a few orphans added, or checked for reach once all are. */
  private buildStep(): void {
    const { flat, shape, size } = this;
    const dimension = shape.dimension;
    const g = (this.graph ??= {
      index: new NativeIndex({ ...shape, quantization: 'f32' }),
      added: 0,
      checked: 0,
      stragglers: [],
      stragglerVectors: null,
    });
    if (g.added < size) {
      const end = Math.min(size, g.added + BUILD_STEP);
      g.index.add(range(g.added, end), flat.subarray(g.added * dimension, end * dimension), 1);
      g.added = end;
      return;
    }
    // Reach is checked once every orphan is in: a later add can take links from an earlier one.
    const end = Math.min(size, g.checked + BUILD_STEP);
    const positions = range(g.checked, end);
    for (const i of g.index.unreachable(positions, flat.subarray(g.checked * dimension, end * dimension), Math.min(size, 16), 1)) {
      g.stragglers.push(positions[i]!);
    }
    g.checked = end;
    if (end < size) return;
    const vectors = new Float32Array(g.stragglers.length * dimension);
    g.stragglers.forEach((p, i) => vectors.set(flat.subarray(p * dimension, (p + 1) * dimension), i * dimension));
    g.stragglerVectors = vectors;
  }

  /**
   * About the `count` orphans nearest to `query` (a vector in the native space): their
   * positions, nearest first by the native distance (given with each, and which only
   * ranks them); with a graph, its unreachable members follow. The caller ranks them exactly.
   */
  nearest(query: Float32Array, count: number): Ranked {
    const g = this.graph;
    if (g === null || g.stragglerVectors === null) {
      if (this.graphable && this.size > GRAPH_FROM && ++this.searches > SEARCHES_BEFORE_GRAPH) this.buildStep();
      return exactNearest(this.flat, query, this.shape, count);
    }
    const { ids, distances, found } = g.index.search(query, count);
    const positions = Array.from(ids.subarray(0, found), Number);
    const ranked = { positions, distances: Array.from(distances.subarray(0, found)) };
    if (g.stragglers.length === 0) return ranked;
    // A straggler the beam found anyway is not offered twice.
    const seen = new Set(positions);
    const more = exactNearest(g.stragglerVectors, query, this.shape, count);
    more.positions.forEach((i, j) => {
      const position = g.stragglers[i]!;
      if (seen.has(position)) return;
      ranked.positions.push(position);
      ranked.distances.push(more.distances[j]!);
    });
    return ranked;
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
