/**
 * `shortest_path` (reference v2-wire §5.11): an unweighted shortest path between two
 * nodes, at most `max_depth` hops. The answer is the one a breadth-first search from the
 * source finds that visits neighbours in ascending id and takes the first path
 * discovered; it is found by a search from both ends, which reads about the square root
 * of the nodes a one-sided search reads.
 *
 * How the two-sided search gives that very path: once the two searches meet, the distance
 * d is known, and so is every node on some shortest path (its distance from the source
 * plus its distance to the target is d), level by level. Every node of level k-1 with an
 * edge to a shortest-path node of level k lies on a shortest path too, so the order in
 * which the one-sided search would discover the shortest-path nodes depends on them
 * alone: replaying the one-sided search over them (each level's nodes in discovery order,
 * neighbours ascending, the first discoverer as parent) gives its parents, hence its path.
 */
import { GraphError } from '../core/errors.js';
import type { Value } from '../core/value.js';
import type { ElementRef } from '../plan/expr.js';
import type { Direction, OpOf, PathEnd } from '../plan/ops.js';
import type { Exec, Executor } from './context.js';
import type { RowFlow } from './flow.js';
import { resolveRef, variableRows } from './refs.js';
import { EDGE, NODE } from './row.js';
import { clip } from '../core/clip.js';
import type { Adjacent } from '../store/index.js';

export const shortestPath: Executor<'shortest_path'> = (node, x, context) => {
  const find = (source: number, target: number): Value | null => {
    const nodes = bfsPath(x, source, target, node.direction, node.label, node.max_depth, node.path);
    if (nodes === null) return null;
    if (node.result === 'ids') return nodes.map(BigInt);
    return pathValue(nodes, pathEdges(x, nodes, node.direction, node.label), null);
  };
  if (node.input !== null) return { t: 'values', items: pathPerRow(x, node, context, find) };
  const ends = pathEnds(x, node);
  const found = ends === null ? null : find(...ends);
  // Without an input the contract's ids are the items themselves.
  return { t: 'values', items: found === null ? [] : node.result === 'ids' ? (found as Value[]) : [found] };
};

/** A path as `result: "path"` (and weighted_shortest_path) yields it: its nodes, its edges, its length and weight. */
export function pathValue(nodes: readonly number[], edges: readonly number[], weight: number | null): Value {
  const path: Record<string, Value> = {
    nodes: nodes.map(BigInt),
    edges: edges.map(BigInt),
    length: BigInt(edges.length),
  };
  if (weight !== null) path.weight = weight;
  return path;
}

/** How many nodes a reference names before existence is checked (at most one is allowed). */
function namedCount(x: Exec, ref: ElementRef, path: string): number {
  switch (ref.kind) {
    case 'all':
      return Infinity;
    case 'ids':
      return ref.ids.length;
    case 'param': {
      const v = x.param(ref.name, ref.path);
      return Array.isArray(v) || v instanceof BigInt64Array ? v.length : 1;
    }
    case 'var': {
      const rows = variableRows(x, ref.name, path);
      if (rows === null) throw new GraphError('invalid_query', `${path}: variable "${clip(ref.name)}" is not bound`);
      return new Set(rows.filter((r) => r.kind === NODE).map((r) => r.id)).size;
    }
    case 'outer':
      return 1;
    case 'variable': {
      if (!x.vars.has(ref.name)) throw new GraphError('invalid_query', `${path}: variable "${clip(ref.name)}" is not bound`);
      return new Set(resolveRef(x, ref, NODE, path, 'source')).size;
    }
  }
}

/** The fields of a path operation its ends are read from. */
type PathNode = OpOf<'shortest_path' | 'weighted_shortest_path'>;

/** The source and target nodes of a path operation without an input, or null when either names none or a missing node. */
export function pathEnds(x: Exec, node: PathNode): [number, number] | null {
  // Both ends are checked, so a bad target is an error even when the source is missing.
  const source = pathEnd(x, node.source, `${node.path}.source`, node.op);
  const target = pathEnd(x, node.target, `${node.path}.target`, node.op);
  return source === null || target === null ? null : [source, target];
}

/**
 * The paths of a path operation with an input: one per input row (a node), the row being
 * the end that is `"input"`, in input order; a row without a path (or whose node is gone)
 * gives none. A row that is not a node is 400 invalid_query.
 */
export function pathPerRow(
  x: Exec,
  node: PathNode,
  context: RowFlow | null,
  find: (source: number, target: number) => Value | null,
): Value[] {
  const rowIsSource = node.source.kind === 'input';
  const end = rowIsSource ? 'target' : 'source';
  const other = pathEnd(x, node[end], `${node.path}.${end}`, node.op);
  const found: Value[] = [];
  for (const row of x.rows(node.input!, context, node).rows) {
    if (row.kind !== NODE)
      throw new GraphError(
        'invalid_query',
        `${node.path}.input: a path starts and ends at nodes, but an input row of "${node.op}" is ${row.kind === EDGE ? `edge ${row.id}` : 'no element'}`,
      );
    if (other === null || !x.hasNode(row.id)) continue;
    const path = rowIsSource ? find(row.id, other) : find(other, row.id);
    if (path !== null && found.push(path) % 1024 === 0) x.checkSize(found.length, node.path);
  }
  return found;
}

/** The one node an endpoint names, or null when it names none or a missing node. */
function pathEnd(x: Exec, ref: PathEnd, path: string, op: string): number | null {
  if (ref.kind === 'input') throw new GraphError('internal_error', `${path}: "input" is an end of a path with an input only`);
  if (namedCount(x, ref, path) > 1) throw new GraphError('invalid_query', `${path}: a ${op} endpoint must name at most one node`);
  // resolveRef checks existence for ids and params; a variable may name a node dropped since.
  for (const id of resolveRef(x, ref, NODE, path, 'target')) return x.store.hasNode(id) ? id : null;
  return null;
}

/** Distinct neighbours of `node` along `direction`, ascending. */
function neighbours(x: Exec, node: number, direction: Direction, label: string | null): readonly number[] {
  const l = label ?? undefined;
  if (direction !== 'both') return x.store.neighbourIds(node, direction, l);
  const out = [...x.store.neighbourIds(node, 'out', l), ...x.store.neighbourIds(node, 'in', l)].sort((a, b) => a - b);
  return out.filter((id, i) => i === 0 || id !== out[i - 1]);
}

export function reverse(direction: Direction): Direction {
  return direction === 'out' ? 'in' : direction === 'in' ? 'out' : 'both';
}

/** The node ids of the path from `source` to `target` (one-sided BFS's answer), or null when there is none within `maxDepth` hops. */
export function bfsPath(
  x: Exec,
  source: number,
  target: number,
  direction: Direction,
  label: string | null,
  maxDepth: number,
  path: string,
): number[] | null {
  if (source === target) return [source];
  const fromSource = new Map<number, number>([[source, 0]]);
  const toTarget = new Map<number, number>([[target, 0]]);
  let sourceFront = [source];
  let targetFront = [target];
  let sourceDepth = 0;
  let targetDepth = 0;
  let distance = -1;
  while (distance < 0 && sourceFront.length > 0 && targetFront.length > 0 && sourceDepth + targetDepth < maxDepth) {
    // Expand the smaller frontier by one level.
    const forward = sourceFront.length <= targetFront.length;
    const seen = forward ? fromSource : toTarget;
    const other = forward ? toTarget : fromSource;
    const depth = (forward ? sourceDepth : targetDepth) + 1;
    const next: number[] = [];
    for (const u of forward ? sourceFront : targetFront) {
      for (const v of neighbours(x, u, forward ? direction : reverse(direction), label)) {
        if (seen.has(v)) continue;
        seen.set(v, depth);
        next.push(v);
        const rest = other.get(v);
        if (rest !== undefined && (distance < 0 || depth + rest < distance)) distance = depth + rest;
      }
    }
    x.checkSize(fromSource.size + toTarget.size, path);
    if (forward) {
      sourceFront = next;
      sourceDepth = depth;
    } else {
      targetFront = next;
      targetDepth = depth;
    }
  }
  if (distance < 0) return null;
  return replay(x, source, target, distance, fromSource, toTarget, direction, label);
}

/** The one-sided search's path among the nodes on shortest paths (see the module comment). */
function replay(
  x: Exec,
  source: number,
  target: number,
  d: number,
  fromSource: ReadonlyMap<number, number>,
  toTarget: ReadonlyMap<number, number>,
  direction: Direction,
  label: string | null,
): number[] {
  const levels: Set<number>[] = Array.from({ length: d + 1 }, () => new Set<number>());
  let low = d;
  let high = 0;
  for (const [v, k] of fromSource) {
    if (toTarget.get(v) === d - k) {
      levels[k]!.add(v);
      low = Math.min(low, k);
      high = Math.max(high, k);
    }
  }
  for (let k = low; k > 0; k--) {
    for (const u of levels[k]!)
      for (const p of neighbours(x, u, reverse(direction), label)) if (fromSource.get(p) === k - 1) levels[k - 1]!.add(p);
  }
  for (let k = high; k < d; k++) {
    for (const u of levels[k]!)
      for (const v of neighbours(x, u, direction, label)) if (toTarget.get(v) === d - k - 1) levels[k + 1]!.add(v);
  }
  const parent = new Map<number, number>();
  let order = [source];
  for (let k = 1; k <= d; k++) {
    const next: number[] = [];
    for (const p of order) {
      for (const v of neighbours(x, p, direction, label)) {
        if (!levels[k]!.has(v) || parent.has(v)) continue;
        parent.set(v, p);
        next.push(v);
      }
    }
    order = next;
  }
  const ids = [target];
  for (let at = target; at !== source;) {
    at = parent.get(at)!;
    ids.push(at);
  }
  return ids.reverse();
}

/** The edge of each hop of a node path: of the hop's label and direction, the one of lowest id. */
export function pathEdges(x: Exec, nodes: readonly number[], direction: Direction, label: string | null): number[] {
  const edges: number[] = [];
  for (let i = 1; i < nodes.length; i++) {
    const from = nodes[i - 1]!;
    const to = nodes[i]!;
    let best = -1;
    for (const adj of adjacent(x, from, direction, label)) if (adj.other === to && (best < 0 || adj.edge < best)) best = adj.edge;
    edges.push(best);
  }
  return edges;
}

/** The edges at `node` along `direction`: out-edges, then in-edges, each in the store's adjacency order. */
export function* adjacent(x: Exec, node: number, direction: Direction, label: string | null): Generator<Adjacent> {
  const l = label ?? undefined;
  if (direction !== 'in') yield* x.store.outEdges(node, l);
  if (direction !== 'out') yield* x.store.inEdges(node, l);
}
