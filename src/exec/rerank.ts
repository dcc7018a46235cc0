/**
 * Reranking (Trellis extensions, docs/queries.md "Reranking"): `fuse` merges rankings (a
 * vector search and a text search, say) into one, by reciprocal rank or by summed scores;
 * `rerank_mmr` reorders one ranking by maximal marginal relevance, trading relevance for
 * diversity. Both give each row a `$score` (its fused or MMR score) and drop `$distance`.
 */
import { GraphError } from '../core/errors.js';
import type { PropertyInput } from '../plan/expr.js';
import type { MmrMetric } from '../plan/ops.js';
import { vectorValues } from '../store/index.js';
import type { Exec, Executor } from './context.js';
import { evalExpr, resolveProperty } from './eval.js';
import { rowFlow } from './flow.js';
import { variableRows } from './refs.js';
import { EDGE, NODE, NONE, Row } from './row.js';

/** The fusion constant when none is given (reciprocal rank fusion's usual 60). */
export const DEFAULT_RRF_K = 60;
/** rerank_mmr compares every pair of its rows: at most this many. */
export const MAX_MMR_ROWS = 10_000;

const NO_ROW = new Row(NONE, -1);

function numberOf(x: Exec, input: PropertyInput): number {
  const v = input.kind === 'value' ? input.value : evalExpr(x, NO_ROW, input.expr);
  return typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : NaN;
}

/** Rows of elements only; a row without one cannot be ranked. */
function elementRow(row: Row, path: string): Row {
  if (row.kind !== NODE && row.kind !== EDGE)
    throw new GraphError('invalid_query', `${path}: a ranking holds nodes or edges, not other values`);
  return row;
}

const keyOf = (row: Row): number => (row.kind === NODE ? row.id * 2 : row.id * 2 + 1);

export const fuse: Executor<'fuse'> = (node, x, ctx) => {
  const k = node.k === null ? DEFAULT_RRF_K : numberOf(x, node.k);
  if (!(k > 0)) throw new GraphError('invalid_rerank_parameter', `${node.path}.k: the fusion constant k is a positive number, got ${k}`);
  const rankings: Iterable<Row>[] = [];
  if (node.input !== null) rankings.push(x.rows(node.input, ctx, node).rows);
  node.variables.forEach((name, i) => rankings.push(variableRows(x, name, `${node.path}.variables[${i}]`) ?? []));
  const fused = new Map<number, { row: Row; score: number }>();
  for (const ranking of rankings) {
    const seen = new Set<number>();
    let rank = 0;
    for (const raw of ranking) {
      const row = elementRow(raw, node.path);
      const key = keyOf(row);
      if (seen.has(key)) continue;
      seen.add(key);
      const add = node.method === 'rrf' ? 1 / (k + rank + 1) : (row.score ?? 0);
      rank++;
      const hit = fused.get(key);
      if (hit === undefined) fused.set(key, { row, score: add });
      else hit.score += add;
    }
    x.checkSize(fused.size, node.path);
  }
  const ranked = [...fused.values()].sort((a, b) => b.score - a.score || a.row.kind - b.row.kind || a.row.id - b.row.id);
  return rowFlow(ranked.map(({ row, score }) => withScore(row, score)));
};

function withScore(row: Row, score: number): Row {
  return new Row(row.kind, row.id, row.bindings, row.path, row.sack, undefined, score);
}

export const rerankMmr: Executor<'rerank_mmr'> = (node, x, ctx) => {
  const lambda = numberOf(x, node.lambda);
  if (!(lambda >= 0 && lambda <= 1))
    throw new GraphError('invalid_rerank_parameter', `${node.path}.lambda: lambda is a number from 0 to 1, got ${lambda}`);
  const rows: Row[] = [];
  const seen = new Set<number>();
  for (const raw of x.rows(node.input, ctx, node).rows) {
    const row = elementRow(raw, node.path);
    if (seen.has(keyOf(row))) continue;
    seen.add(keyOf(row));
    rows.push(row);
    if (rows.length > MAX_MMR_ROWS)
      throw new GraphError('limit_exceeded', `${node.path}: rerank_mmr reorders at most ${MAX_MMR_ROWS} rows`);
  }
  if (rows.length === 0) return rowFlow([]);
  const vectors = rows.map((row) => vectorOf(x, row, node.property, node.path));
  const dimension = vectors[0]!.length;
  vectors.forEach((v, i) => {
    if (v.length !== dimension)
      throw new GraphError(
        'invalid_vector_dimension',
        `${node.path}: ${describe(rows[i]!)} has a vector of ${v.length} numbers, the first ${dimension}`,
      );
  });
  const similarity = SIMILARITY[node.metric];
  const relevance = rows.map((row) => row.score ?? (row.distance === undefined ? 0 : 1 - row.distance));
  // The most similar chosen vector of each row not chosen yet, kept up to date as rows are chosen.
  const closest = new Array<number>(rows.length).fill(Number.NEGATIVE_INFINITY);
  const chosen = new Array<boolean>(rows.length).fill(false);
  const out: Row[] = [];
  for (let round = 0; round < rows.length; round++) {
    let pick = -1;
    let pickScore = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < rows.length; i++) {
      if (chosen[i]) continue;
      const score = round === 0 ? lambda * relevance[i]! : lambda * relevance[i]! - (1 - lambda) * closest[i]!;
      if (pick < 0 || score > pickScore) {
        pick = i;
        pickScore = score;
      }
    }
    chosen[pick] = true;
    out.push(withScore(rows[pick]!, pickScore));
    for (let i = 0; i < rows.length; i++) if (!chosen[i]) closest[i] = Math.max(closest[i]!, similarity(vectors[i]!, vectors[pick]!));
    x.tick();
  }
  return rowFlow(out);
};

function vectorOf(x: Exec, row: Row, property: string, path: string): ArrayLike<number> {
  const v = vectorValues(resolveProperty(x, row, property));
  if (v === null)
    throw new GraphError('invalid_search_input', `${path}: ${describe(row)} has no vector (an array of numbers) in "${property}"`);
  return v;
}

const describe = (row: Row): string => `${row.kind === NODE ? 'node' : 'edge'} ${row.id}`;

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

const SIMILARITY: Readonly<Record<MmrMetric, (a: ArrayLike<number>, b: ArrayLike<number>) => number>> = {
  cosine: (a, b) => {
    const norms = Math.sqrt(dot(a, a) * dot(b, b));
    return norms === 0 ? 0 : dot(a, b) / norms;
  },
  euclidean: (a, b) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
    return Math.exp(-Math.sqrt(s));
  },
  dot_product: dot,
};
