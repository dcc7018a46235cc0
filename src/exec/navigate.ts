/**
 * Navigation (reference §5.2). Per input row, neighbours come out deduplicated in
 * ascending id order; a labelled hop is one adjacency range scan that is already in that
 * order, an unlabelled one is sorted. Rows without a current element are skipped, and
 * out/in/both on an edge row act like out_n/in_n/other_n, as in the reference.
 */
import type { GraphReader } from '../store/index.js';
import type { Exec, Executor } from './context.js';
import { rowFlow } from './flow.js';
import { EDGE, NODE, keyKind, keyId, type Row } from './row.js';

type Dir = 'out' | 'in' | 'both';

/** Ids along one direction, or the distinct union of both, ascending. */
function alongDir(dir: Dir, ids: (d: 'out' | 'in') => readonly number[]): readonly number[] {
  return dir === 'both' ? mergeDistinct(ids('out'), ids('in')) : ids(dir);
}

/** Distinct neighbour node ids of `node`, ascending. */
function neighbours(store: GraphReader, node: number, dir: Dir, label: string | null): readonly number[] {
  return alongDir(dir, (d) => store.neighbourIds(node, d, label ?? undefined));
}

/** Distinct incident edge ids of `node`, ascending (a self-loop is one edge). */
function incidentEdges(store: GraphReader, node: number, dir: Dir, label: string | null): readonly number[] {
  return alongDir(dir, (d) => store.incidentEdgeIds(node, d, label ?? undefined));
}

/** The union of two ascending distinct lists, ascending and distinct. */
function mergeDistinct(a: readonly number[], b: readonly number[]): number[] {
  if (b.length === 0) return a as number[];
  if (a.length === 0) return b as number[];
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    if (x <= y) {
      out.push(x);
      i++;
      if (x === y) j++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

/** The endpoints of an edge row that `dir` leads to. */
function* edgeEnds(x: Exec, row: Row, which: 'to' | 'from' | 'other'): Generator<number> {
  const edge = x.edge(row);
  if (!edge) return;
  if (which === 'to') return yield edge.to;
  if (which === 'from') return yield edge.from;
  // other_n: the endpoint that is not the last node visited before this edge.
  const path = row.path ?? [];
  for (let i = path.length - 1; i >= 0; i--) {
    const key = path[i]!;
    if (keyKind(key) !== NODE) continue;
    const last = keyId(key);
    if (last === edge.from) return yield edge.to;
    if (last === edge.to) return yield edge.from;
    break;
  }
  yield edge.from;
  if (edge.to !== edge.from) yield edge.to;
}

function hopToNodes(dir: Dir): Executor<'out' | 'in' | 'both'> {
  const edgeEquivalent = dir === 'out' ? 'to' : dir === 'in' ? 'from' : 'other';
  return (node, x, ctx) => {
    const input = x.rows(node.input, ctx, node);
    return rowFlow(hopRows(x, input.rows, dir, node.label, edgeEquivalent), input);
  };
}

function* hopRows(x: Exec, rows: Iterable<Row>, dir: Dir, label: string | null, edgeEquivalent: 'to' | 'from' | 'other'): Generator<Row> {
  for (const row of rows) {
    if (row.kind === NODE) {
      for (const id of neighbours(x.store, row.id, dir, label)) yield row.moveTo(NODE, id, x.trackPath);
    } else if (row.kind === EDGE) {
      for (const id of edgeEnds(x, row, edgeEquivalent)) yield row.moveTo(NODE, id, x.trackPath);
    }
  }
}

function hopToEdges(dir: Dir): Executor<'out_e' | 'in_e' | 'both_e'> {
  return (node, x, ctx) => {
    const input = x.rows(node.input, ctx, node);
    return rowFlow(incidentEdgeRows(x, input.rows, dir, node.label), input);
  };
}

function* incidentEdgeRows(x: Exec, rows: Iterable<Row>, dir: Dir, label: string | null): Generator<Row> {
  for (const row of rows) {
    if (row.kind !== NODE) continue;
    for (const id of incidentEdges(x.store, row.id, dir, label)) yield row.moveTo(EDGE, id, x.trackPath);
  }
}

function edgeToNode(which: 'to' | 'from' | 'other'): Executor<'out_n' | 'in_n' | 'other_n'> {
  return (node, x, ctx) => {
    const input = x.rows(node.input, ctx, node);
    return rowFlow(edgeEndRows(x, input.rows, which), input);
  };
}

function* edgeEndRows(x: Exec, rows: Iterable<Row>, which: 'to' | 'from' | 'other'): Generator<Row> {
  for (const row of rows) {
    if (row.kind !== EDGE) continue;
    for (const id of edgeEnds(x, row, which)) yield row.moveTo(NODE, id, x.trackPath);
  }
}

export const out = hopToNodes('out') as Executor<'out'>;
export const inn = hopToNodes('in') as Executor<'in'>;
export const both = hopToNodes('both') as Executor<'both'>;
export const outE = hopToEdges('out') as Executor<'out_e'>;
export const inE = hopToEdges('in') as Executor<'in_e'>;
export const bothE = hopToEdges('both') as Executor<'both_e'>;
export const outN = edgeToNode('to') as Executor<'out_n'>;
export const inN = edgeToNode('from') as Executor<'in_n'>;
export const otherN = edgeToNode('other') as Executor<'other_n'>;
