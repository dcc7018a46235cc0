/**
 * `weighted_shortest_path` (a Trellis extension, docs/queries.md "Paths"): the path of
 * least total weight between two nodes, by Dijkstra's algorithm, or by A* when a node
 * property estimates the weight left to the target. An edge's weight is an expression
 * evaluated on the edge: its properties, and its ends' as `$from.p` and `$to.p`. Weights
 * must be finite and non-negative, and so must the heuristic; anything else is a 400 that
 * names the edge or node, since a path over it would mean nothing.
 *
 * Among paths of equal weight the one found first wins: nodes leave the queue by
 * (estimated) weight then id, edges are relaxed in the adjacency order of the store
 * (label by label, edge id ascending), and only a strictly lighter path replaces a found one.
 */
import { clip } from '../core/clip.js';
import { GraphError } from '../core/errors.js';
import type { Value } from '../core/value.js';
import type { Expr } from '../plan/expr.js';
import type { Direction } from '../plan/ops.js';
import { MinHeap } from '../search/heap.js';
import type { Exec, Executor } from './context.js';
import { evalExpr } from './eval.js';
import { EDGE, Row } from './row.js';
import { adjacent, pathEnds, pathPerRow, pathValue } from './shortest-path.js';

export const weightedShortestPath: Executor<'weighted_shortest_path'> = (node, x, context) => {
  const weightOf = edgeWeight(x, node.weight, `${node.path}.weight`);
  const estimate = node.heuristic === null ? null : heuristic(x, node.heuristic, `${node.path}.heuristic`);
  const find = (source: number, target: number) => search(x, source, target, node.direction, node.label, weightOf, estimate, node.path);
  if (node.input !== null) return { t: 'values', items: pathPerRow(x, node, context, find) };
  const ends = pathEnds(x, node);
  const found = ends === null ? null : find(...ends);
  return { t: 'values', items: found === null ? [] : [found] };
};

/** Where each reached node was reached from: the previous node and the edge. */
interface Via {
  readonly from: number;
  readonly edge: number;
}

function search(
  x: Exec,
  source: number,
  target: number,
  direction: Direction,
  label: string | null,
  weightOf: (edge: number) => number,
  estimate: ((node: number) => number) | null,
  path: string,
): Value | null {
  const best = new Map<number, number>([[source, 0]]);
  const via = new Map<number, Via>();
  const done = new Set<number>();
  const queue = new MinHeap();
  queue.push(estimate === null ? 0 : estimate(source), source);
  while (queue.size > 0) {
    const u = queue.topId();
    queue.pop();
    if (done.has(u)) continue;
    done.add(u);
    if (u === target) return pathTo(target, source, via, best.get(target)!);
    const g = best.get(u)!;
    for (const adj of adjacent(x, u, direction, label)) {
      const v = adj.other;
      if (done.has(v)) continue;
      const reached = g + weightOf(adj.edge);
      const known = best.get(v);
      if (known !== undefined && reached >= known) continue;
      best.set(v, reached);
      via.set(v, { from: u, edge: adj.edge });
      queue.push(estimate === null ? reached : reached + estimate(v), v);
    }
    x.checkSize(best.size, path);
  }
  return null;
}

function pathTo(target: number, source: number, via: ReadonlyMap<number, Via>, weight: number): Value {
  const nodes = [target];
  const edges: number[] = [];
  for (let at = target; at !== source;) {
    const step = via.get(at)!;
    edges.push(step.edge);
    nodes.push(step.from);
    at = step.from;
  }
  return pathValue(nodes.reverse(), edges.reverse(), weight);
}

/**
 * The weight of an edge: a property read directly (through a reader that reads each store
 * block of edges once: a search relaxes edges all over the store), anything else evaluated
 * on the edge's row.
 */
function edgeWeight(x: Exec, weight: Expr, path: string): (edge: number) => number {
  let read: (edge: number) => Value | undefined;
  if (weight.e === 'property' && weight.name.charCodeAt(0) !== 36 /* $ */) {
    const props = x.store.edgePropsReader();
    const name = weight.name;
    read = (edge) => props(edge)?.[name];
  } else {
    read = (edge) => evalExpr(x, new Row(EDGE, edge), weight);
  }
  return (edge) => {
    const v = read(edge);
    const w = nonNegative(v);
    if (w === null) {
      throw new GraphError(
        'invalid_path_weight',
        `${path}: the weight of edge ${edge} is ${describe(v)}; weights are finite, non-negative numbers`,
      );
    }
    return w;
  };
}

/** A*'s estimate of a node: its `property`, 0 when it has none. */
function heuristic(x: Exec, property: string, path: string): (node: number) => number {
  return (node) => {
    const v = x.store.getNode(node)?.props[property];
    if (v === undefined || v === null) return 0;
    const h = nonNegative(v);
    if (h === null)
      throw new GraphError(
        'invalid_path_weight',
        `${path}: node ${node}'s "${property}" is ${describe(v)}; the heuristic is a finite, non-negative number`,
      );
    return h;
  };
}

/** `v` as a finite, non-negative number (an integer or a float), or null when it is not one. */
function nonNegative(v: Value | undefined): number | null {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null;
}

function describe(v: Value | undefined): string {
  if (v === undefined || v === null) return 'missing';
  if (typeof v === 'string') return `the string ${JSON.stringify(clip(v, 40))}`;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return `not a number (${typeof v === 'object' ? 'an object or array' : typeof v})`;
}
