/**
 * Paths (reference §5.9, §5.11): path, simple_path and shortest_path. Rows record their
 * path only when the plan reads paths (src/plan/features.ts sets x.trackPath).
 */
import { GraphError } from '../core/errors.js';
import type { ElementRef } from '../plan/expr.js';
import type { Direction } from '../plan/ops.js';
import type { Exec, Executor } from './context.js';
import { kept, rowFlow } from './flow.js';
import { resolveRef, variableRows } from './refs.js';
import { NODE, type Row } from './row.js';
import { clip } from '../core/clip.js';

export const path: Executor<'path'> = (node, x, ctx) => ({ ...x.rows(node.input, ctx, node), showPath: true });

export const simplePath: Executor<'simple_path'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  return rowFlow(kept(input.rows, isSimplePath), input);
};

/** No element twice on the row's path. */
function isSimplePath(row: Row): boolean {
  const keys = row.path ?? [];
  return new Set(keys).size === keys.length;
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
  }
}

/** The one node an endpoint names, or null when it names none or a missing node. */
function endpoint(x: Exec, ref: ElementRef, path: string): number | null {
  if (namedCount(x, ref, path) > 1) {
    throw new GraphError('invalid_query', `${path}: a shortest_path endpoint must name at most one node`);
  }
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

/**
 * Unweighted BFS of at most max_depth hops. Neighbours are visited in ascending id order,
 * so among equally short paths the first one discovered wins.
 */
export const shortestPath: Executor<'shortest_path'> = (node, x) => {
  const source = endpoint(x, node.source, `${node.path}.source`);
  const target = endpoint(x, node.target, `${node.path}.target`);
  if (source === null || target === null) return { t: 'values', items: [] };
  if (source === target) return { t: 'values', items: [BigInt(source)] };
  const parent = new Map<number, number>([[source, source]]);
  let frontier = [source];
  for (let depth = 0; depth < node.max_depth && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const from of frontier) {
      for (const to of neighbours(x, from, node.direction, node.label)) {
        if (parent.has(to)) continue;
        parent.set(to, from);
        if (to === target) return { t: 'values', items: trace(parent, source, target) };
        next.push(to);
      }
    }
    x.checkSize(parent.size, node.path);
    frontier = next;
  }
  return { t: 'values', items: [] };
};

function trace(parent: ReadonlyMap<number, number>, source: number, target: number): bigint[] {
  const ids = [BigInt(target)];
  for (let at = target; at !== source;) {
    at = parent.get(at)!;
    ids.push(BigInt(at));
  }
  return ids.reverse();
}
