/**
 * Vector and text search (reference §5.12): sources over a whole index and `_within`
 * steps that rank only the elements of their input. Hits carry `$distance` (vector,
 * ascending) or `$score` (text, descending, then id ascending).
 *
 * The index must be active: a missing one, or one whose build has not succeeded, is 400
 * `index_not_found`. Searches read the index in the request's snapshot, so they reflect
 * every write acknowledged before the request started (queued vector links included: the
 * store searches them exactly, src/store/vector-index.ts).
 */
import { GraphError } from '../core/errors.js';
import { LIMITS } from '../plan/limits.js';
import { describeIndex, identityOf, type IndexSpec } from '../core/index-spec.js';
import type { Value } from '../core/value.js';
import { checkVector } from '../search/vector-math.js';
import type { PropertyInput, StreamBound } from '../plan/expr.js';
import type { PlanNode, SearchOp } from '../plan/ops.js';
import { type Candidates, type IndexDef, vectorValues } from '../store/index.js';
import { boundValue } from './bound.js';
import type { Exec } from './context.js';
import { evalExpr } from './eval.js';
import { EMPTY_ROWS, rowFlow, type Flow, type RowFlow } from './flow.js';
import { EDGE, edgeKey, NODE, nodeKey, NONE, Row, startRow } from './row.js';
import { scanOf } from './scan/recognise.js';
import { candidateIds } from './scan/candidate-cache.js';

/** Effective k is capped here (reference §4.5: search result cap). */
export const MAX_SEARCH_K = 800;
/** A `_within` text search ranks at most this many distinct candidates. */
export const MAX_TEXT_CANDIDATES = 1_000_000;

const NO_ROW = new Row(NONE, -1);

type Family = 'vector' | 'text';

function familyOf(op: SearchOp['op']): Family {
  return op.startsWith('vector_') ? 'vector' : 'text';
}

function elementOf(op: SearchOp['op']): typeof NODE | typeof EDGE {
  return op.includes('_nodes') ? NODE : EDGE;
}

function indexKind(op: SearchOp['op']): IndexSpec['kind'] {
  return `${elementOf(op) === NODE ? 'node' : 'edge'}_${familyOf(op)}` as IndexSpec['kind'];
}

/** The active index the search names, null when there is none and the search says so (missing_index), or 400 index_not_found. */
function activeIndex(x: Exec, node: SearchOp): IndexDef | null {
  const kind = indexKind(node.op);
  const catalog = x.indexCatalog();
  const def = catalog.active(kind, node.label, node.property);
  if (def !== undefined) return def;
  if (node.missing_index === 'empty' && !catalog.byIdentity.has(identityOf({ kind, label: node.label, property: node.property })))
    return null;
  const spec = { kind, label: node.label, property: node.property } as IndexSpec;
  throw new GraphError('index_not_found', `${node.path}: planner error: missing ${describeIndex(spec).replace(/ index /, ' index for ')}`);
}

function inputValue(x: Exec, input: PropertyInput): Value {
  return input.kind === 'value' ? input.value : evalExpr(x, NO_ROW, input.expr);
}

/** The tenant partition to search: null for an index without a tenant property. */
function tenantOf(x: Exec, node: SearchOp, def: IndexDef): Value | null {
  const tenantProperty = 'tenant_property' in def.spec ? def.spec.tenant_property : null;
  if (tenantProperty === null) {
    if (node.tenant_value !== null) {
      throw new GraphError('invalid_search_tenant', `${node.path}.tenant_value: ${describeIndex(def.spec)} has no tenant property`);
    }
    return null;
  }
  const value = node.tenant_value === null ? null : inputValue(x, node.tenant_value);
  if (value === null) {
    throw new GraphError(
      'invalid_search_tenant_value',
      `${node.path}.tenant_value: ${describeIndex(def.spec)} is partitioned by "${tenantProperty}"; give a non-null tenant_value`,
    );
  }
  return value;
}

function countOf(x: Exec, node: SearchOp): number {
  const k = boundValue(x, node.k);
  if (k === 0) {
    // Name what gave the 0: a query passes k as a parameter of its own name (`limit`, `top_k`).
    const from = node.k.kind === 'expr' && node.k.expr.e === 'param' ? ` (parameter "${node.k.expr.name}" is 0)` : '';
    throw new GraphError('invalid_search_result_count', `${node.path}.k: the number of results k must be at least 1${from}`);
  }
  return Math.min(k, MAX_SEARCH_K);
}

/** The query vector: an f32_array literal, or a parameter holding numbers. */
function queryVector(x: Exec, node: SearchOp & { query_vector: PropertyInput }, def: IndexDef): Float32Array {
  const path = `${node.path}.query_vector`;
  const input = node.query_vector;
  // A literal must be an f32_array; a parameter may hold numbers of any kind, as a stored vector may.
  const values: ArrayLike<number> | null =
    input.kind === 'value' ? (input.value instanceof Float32Array ? input.value : null) : vectorValues(evalExpr(x, NO_ROW, input.expr));
  if (values === null || values.length === 0) {
    throw new GraphError(
      'invalid_search_input',
      `${path}: expected a non-empty {"value": {"f32_array": [...]}} literal or a parameter holding an array of numbers`,
    );
  }
  const spec = def.spec as Extract<IndexSpec, { kind: 'node_vector' | 'edge_vector' }>;
  const problem = checkVector(spec.metric, spec.dimension, values);
  if (problem !== null) throw new GraphError(problem.code, `${path}: ${problem.msg}`);
  return Float32Array.from(values);
}

function queryText(x: Exec, node: SearchOp & { query_text: PropertyInput }): string {
  const v = inputValue(x, node.query_text);
  if (typeof v !== 'string' || v.length === 0) {
    throw new GraphError('invalid_search_input', `${node.path}.query_text: expected a non-empty string`);
  }
  return v;
}

interface Hit {
  readonly id: number;
  readonly value: number;
}

/** A vector search's beam: its `ef`, or null for the index's default. */
function efOf(x: Exec, node: SearchOp & { ef: StreamBound | null }): number | null {
  if (node.ef === null) return null;
  const ef = boundValue(x, node.ef);
  if (ef < 1 || ef > LIMITS.maxSearchEf) {
    const path = node.ef.kind === 'expr' ? node.ef.path : `${node.path}.ef`;
    throw new GraphError('invalid_query', `${path}: ef must be an integer from 1 to ${LIMITS.maxSearchEf}, got ${ef}`);
  }
  return ef;
}

function run(x: Exec, node: SearchOp, candidates: Candidates | null): Hit[] {
  const def = activeIndex(x, node);
  if (def === null) return [];
  const tenant = tenantOf(x, node, def);
  const k = countOf(x, node);
  if ('query_vector' in node) {
    const vector = queryVector(x, node, def);
    const hits = x.store.vectorSearch(def, { tenant, vector, k, candidates, ef: efOf(x, node) });
    return hits.map((h) => ({ id: h.id, value: h.distance }));
  }
  const text = queryText(x, node as SearchOp & { query_text: PropertyInput });
  const accept = candidates === null ? null : (id: number) => candidates.has(id);
  return x.store.textSearch(def, tenant, text, k, accept).map((h) => ({ id: h.id, value: h.score }));
}

function hitRow(kind: typeof NODE | typeof EDGE, family: Family, hit: Hit, from: Row | null, trackPath: boolean): Row {
  const distance = family === 'vector' ? hit.value : undefined;
  const score = family === 'text' ? hit.value : undefined;
  const path = from === null ? (trackPath ? [kind === NODE ? nodeKey(hit.id) : edgeKey(hit.id)] : null) : from.path;
  return new Row(kind, hit.id, from?.bindings ?? null, path, from?.sack, distance, score);
}

/** `vector_search_*` and `text_search_*` over the whole index. */
export const search = (node: SearchOp, x: Exec): Flow => {
  const kind = elementOf(node.op);
  const family = familyOf(node.op);
  const hits = run(x, node, null);
  return rowFlow(hits.map((hit) => hitRow(kind, family, hit, null, x.trackPath)));
};

/** The `_within` forms: the first row of each distinct input element competes. */
export const searchWithin = (node: SearchOp, x: Exec, ctx: RowFlow | null): Flow => {
  const kind = elementOf(node.op);
  const family = familyOf(node.op);
  const inputNode = (node as SearchOp & { input: PlanNode }).input;
  const scan = kind === NODE ? scanOf(x, inputNode) : null;
  if (scan !== null) {
    // A node scan's nodes, each once, as rows it would start: the candidates as a set of
    // ids, and rows made for the hits only.
    const ids = candidateIds(x, scan);
    if (family === 'text' && ids.size > MAX_TEXT_CANDIDATES) {
      throw new GraphError('limit_exceeded', `${node.path}: a text search ranks at most ${MAX_TEXT_CANDIDATES} distinct candidates`);
    }
    if (ids.size === 0) return EMPTY_ROWS;
    const hits = run(x, node, ids);
    return rowFlow(hits.map((hit) => hitRow(kind, family, hit, startRow(NODE, hit.id, x.trackPath), x.trackPath)));
  }
  const input = x.rows(inputNode, ctx, node);
  const first = new Map<number, Row>();
  for (const row of input.rows) {
    if (row.kind !== kind) {
      throw new GraphError(
        'invalid_query',
        `${node.path}: "${node.op}" ranks ${kind === NODE ? 'nodes' : 'edges'}, but its input holds ${row.kind === NODE ? 'a node' : row.kind === EDGE ? 'an edge' : 'a row without an element'}`,
      );
    }
    if (!first.has(row.id)) first.set(row.id, row);
    if (family === 'text' && first.size > MAX_TEXT_CANDIDATES) {
      throw new GraphError('limit_exceeded', `${node.path}: a text search ranks at most ${MAX_TEXT_CANDIDATES} distinct candidates`);
    }
  }
  if (first.size === 0) return EMPTY_ROWS;
  const hits = run(x, node, first);
  return rowFlow(hits.map((hit) => hitRow(kind, family, hit, first.get(hit.id)!, x.trackPath)));
};
