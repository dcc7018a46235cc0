/**
 * Expected answers computed straight from the dataset generator, so the benches can check
 * that a response is right (not just well-formed) before they time it.
 */
import { generateEdges, userProps, type DatasetSize, type UserProps } from './dataset.js';

export interface Truth {
  readonly size: DatasetSize;
  user(id: number): UserProps;
  /** Out-neighbours of `id`, ascending (the edge list has no parallel edges). */
  out(id: number): number[];
  hasEdge(from: number, to: number): boolean;
  /** All scores sorted descending (ties do not matter: pages are compared as score lists). */
  readonly scoresDesc: Float64Array;
  readonly activeAged30: number;
  /** Hops on the shortest out-path within maxDepth, or -1. */
  distance(from: number, to: number, maxDepth: number): number;
}

export function buildTruth(seed: number, size: DatasetSize): Truth {
  const { from, to } = generateEdges(seed, size);
  const n = size.nodes;
  // Compressed adjacency: start[v]..start[v+1] indexes v's targets in `targets`.
  const start = new Uint32Array(n + 1);
  for (const a of from) start[a + 1]!++;
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, n);
  const targets = new Uint32Array(from.length);
  for (let k = 0; k < from.length; k++) targets[fill[from[k]!]!++] = to[k]!;
  const out = (v: number) => Array.from(targets.subarray(start[v]!, start[v + 1]!)).sort((a, b) => a - b);

  const scores = new Float64Array(n);
  let activeAged30 = 0;
  for (let i = 0; i < n; i++) {
    const u = userProps(seed, i);
    scores[i] = u.score;
    if (u.age >= 30 && u.status === 'active') activeAged30++;
  }
  scores.sort().reverse();

  return {
    size,
    user: (id) => userProps(seed, id),
    out,
    hasEdge: (a, b) => out(a).includes(b),
    scoresDesc: scores,
    activeAged30,
    distance(a, b, maxDepth) {
      const depth = new Int32Array(n).fill(-1);
      depth[a] = 0;
      let frontier = [a];
      for (let d = 0; frontier.length > 0 && d <= maxDepth; d++) {
        if (frontier.includes(b)) return d;
        const next: number[] = [];
        for (const v of frontier) {
          for (const w of targets.subarray(start[v]!, start[v + 1]!)) {
            if (depth[w] === -1) {
              depth[w] = d + 1;
              next.push(w);
            }
          }
        }
        frontier = next;
      }
      return -1;
    },
  };
}
