/**
 * How a search finds the orphans of a segment worth ranking (docs/architecture.md, "The
 * vector engine"): the elements its native graph cannot reach, kept in the side file with
 * their vectors. Every search asks for the few nearest of them, so this is on the path of
 * every query.
 *
 * A brute-force pass over all of them costs a native call plus a distance per orphan:
 * measured at 100k x 128 clustered (0.6% orphans, about 600), 31 to 47 µs a search in
 * isolation and 60 to 90 µs within the pipeline, a fifth of a whole query. Past
 * GRAPH_FROM orphans they get a native graph of their own, built once per mapped segment
 * and thread (600 adds: a few milliseconds), searched with a beam of the count asked:
 * 14 to 20 µs at 600, recall of the 20 nearest 0.994 to 0.998 in the same measurement.
 * That graph's own unreachable members (it is built once, so its `unreachable` check is
 * exact for it) are ranked by brute force beside it: no orphan is ever out of reach.
 */
import { exactNearest, NativeIndex, type NativeShape } from './native-vectors.js';

/** Orphans up to this many are ranked by a brute-force pass; more get a graph. */
const GRAPH_FROM = 256;

export class OrphanSearch {
  /** The graph over every orphan, or null when they are few. */
  private readonly graph: NativeIndex | null = null;
  /** The positions the graph cannot reach, and their vectors one after another. */
  private readonly stragglers: number[] = [];
  private readonly stragglerVectors: Float32Array;

  /**
   * @param flat every orphan's vector in the native index's space, one after another
   * @param shape the segment's dimension and metric (the graph keeps f32 components)
   */
  constructor(
    private readonly flat: Float32Array,
    private readonly shape: Pick<NativeShape, 'dimension' | 'metric' | 'connectivity' | 'expansionAdd'>,
  ) {
    const size = flat.length / shape.dimension;
    this.stragglerVectors = flat;
    if (size <= GRAPH_FROM) return;
    const graph = new NativeIndex({ ...shape, quantization: 'f32' });
    const positions = Array.from({ length: size }, (_, i) => i);
    graph.add(positions, flat, 1);
    this.graph = graph;
    this.stragglers = graph.unreachable(positions, flat, Math.min(size, 16), 1);
    this.stragglerVectors = new Float32Array(this.stragglers.length * shape.dimension);
    this.stragglers.forEach((p, i) =>
      this.stragglerVectors.set(flat.subarray(p * shape.dimension, (p + 1) * shape.dimension), i * shape.dimension),
    );
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
    if (this.graph === null) return exactNearest(this.flat, query, this.shape, count);
    const { ids, found } = this.graph.search(query, count);
    const out = Array.from(ids.subarray(0, found), Number);
    if (this.stragglers.length === 0) return out;
    // A straggler the beam found anyway is not offered twice.
    const seen = new Set(out);
    for (const i of exactNearest(this.stragglerVectors, query, this.shape, count)) {
      const position = this.stragglers[i]!;
      if (!seen.has(position)) out.push(position);
    }
    return out;
  }
}
