/**
 * (other node, edge) pairs, the unit of adjacency: stored as f64 pairs (platform order),
 * interleaved, after a header that depends on the value (adjacency-blocks.ts, adjacency-lists.ts).
 */

/** One list's pairs: others[i] was reached over edges[i]. */
export interface Pairs {
  readonly others: Float64Array | number[];
  readonly edges: Float64Array | number[];
}

export const EMPTY_PAIRS: Pairs = { others: [], edges: [] };

/**
 * The pairs in bytes [start, end) of `buf`, copied out (the buffer may be lmdb-js's
 * reused one, and need not be 8-byte aligned).
 */
export function decodePairs(buf: Uint8Array, start: number, end: number): Pairs {
  const n = (end - start) / 16;
  if (n === 0) return EMPTY_PAIRS;
  const flat = new Float64Array(n * 2);
  new Uint8Array(flat.buffer).set(buf.subarray(start, end));
  const others = new Float64Array(n);
  const edges = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    others[i] = flat[2 * i]!;
    edges[i] = flat[2 * i + 1]!;
  }
  return { others, edges };
}

/** Several lists' pairs, one after another. */
export function concatPairs(parts: readonly Pairs[]): Pairs {
  if (parts.length === 1) return parts[0]!;
  const others: number[] = [];
  const edges: number[] = [];
  for (const p of parts) {
    for (let i = 0; i < p.others.length; i++) {
      others.push(p.others[i]!);
      edges.push(p.edges[i]!);
    }
  }
  return { others, edges };
}

/** The index of `edge` in a list, or -1. */
export function indexOfEdge(pairs: Pairs, edge: number): number {
  return Array.prototype.indexOf.call(pairs.edges, edge) as number;
}
