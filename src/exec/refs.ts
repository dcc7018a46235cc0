/** Resolving NodeRef/EdgeRef (reference §4.6) to element ids. */
import { GraphError } from '../core/errors.js';
import { isValueObject, SAFE_I64 } from '../core/value.js';
import type { ElementRef } from '../plan/expr.js';
import type { Exec } from './context.js';
import { type EDGE, NODE, type Row } from './row.js';
import { clip } from '../core/clip.js';

type Kind = typeof NODE | typeof EDGE;

/** An id a parameter or a variable holds: a non-negative integer (beyond 2^53: Infinity, which cannot exist). */
function heldId(item: unknown, problem: () => string): number {
  if (typeof item === 'bigint' && item >= 0n) return item <= SAFE_I64 ? Number(item) : Infinity;
  throw new GraphError('invalid_query', problem());
}

function paramIds(x: Exec, ref: { name: string; path: string }): number[] {
  const v = x.param(ref.name, ref.path);
  const one = (item: unknown): number =>
    heldId(item, () => `${ref.path}: parameter "${clip(ref.name)}" must hold a non-negative integer id or an array of them`);
  if (Array.isArray(v)) return v.map(one);
  if (v instanceof BigInt64Array) return Array.from(v, one);
  return [one(v)];
}

/**
 * The ids a variable of values holds (`{"variable": ...}`): each item, or that entry of
 * each object (a missing entry or null names nothing); a stream's elements of the kind.
 * Null when the variable is unbound.
 */
function variableIds(x: Exec, ref: Extract<ElementRef, { kind: 'variable' }>, kind: Kind): number[] | null {
  const flow = x.vars.get(ref.name);
  if (flow === undefined) return null;
  const what = ref.property === null ? `variable "${clip(ref.name)}"` : `entry "${clip(ref.property)}" of variable "${clip(ref.name)}"`;
  switch (flow.t) {
    case 'values': {
      const ids: number[] = [];
      for (const item of flow.items) {
        const v = ref.property === null ? item : isValueObject(item) ? item[ref.property] : undefined;
        if (v === undefined || v === null) continue;
        ids.push(heldId(v, () => `${ref.path}: the ${what} holds ${describeValue(v)}, not an id (a non-negative integer)`));
      }
      return ids;
    }
    case 'rows':
      if (ref.property !== null)
        throw new GraphError(
          'invalid_query',
          `${ref.path}: variable "${clip(ref.name)}" holds nodes or edges; name them with {"var": ...}`,
        );
      return Array.from(flow.rows as Iterable<Row>).flatMap((row) => (row.kind === kind ? [row.id] : []));
    default:
      throw new GraphError('invalid_query', `${ref.path}: variable "${clip(ref.name)}" holds a ${flow.t}, not ids`);
  }
}

const describeValue = (v: unknown): string =>
  typeof v === 'string'
    ? 'a string'
    : typeof v === 'bigint'
      ? 'a negative integer'
      : `a ${typeof v === 'object' ? 'list or object' : typeof v}`;

/** Rows of a variable whose current element has the wanted kind; unbound means empty. */
export function variableRows(x: Exec, name: string, path: string): readonly Row[] | null {
  const flow = x.vars.get(name);
  if (flow === undefined) return null;
  if (flow.t !== 'rows')
    throw new GraphError(
      'invalid_query',
      `${path}: variable "${clip(name)}" holds ${flow.t === 'values' ? 'a list of values' : `a ${flow.t}`}, not a stream of nodes or edges`,
    );
  return flow.rows as readonly Row[];
}

/**
 * How a reference treats what it cannot resolve (reference §3.2, §4.6):
 * - source: ids that do not exist are dropped, an unbound variable is empty;
 * - checked source (`missing: "error"` on nodes/edges): ids that do not exist are errors,
 *   an unbound variable is empty (its entry was skipped: it names no id at all);
 * - target: ids that do not exist are dropped, an unbound variable is an error
 *   (drop_edge targets, drop_edge_by_id, shortest_path endpoints);
 * - required: a missing element and an unbound variable are errors (add_e targets).
 */
export type RefMode = 'source' | 'checked_source' | 'target' | 'required';

const describeId = (id: number) => (Number.isFinite(id) ? String(id) : 'with an id beyond 2^53');

/** Ids a reference names, in reference order. */
export function resolveRef(x: Exec, ref: ElementRef, kind: Kind, path: string, mode: RefMode = 'source'): Iterable<number> {
  const exists = (id: number) => (kind === NODE ? x.hasNode(id) : x.store.hasEdge(id));
  const idsMustExist = mode === 'required' || mode === 'checked_source';
  const check = (ids: readonly number[]): number[] => {
    if (!idsMustExist) return ids.filter((id) => Number.isFinite(id) && exists(id));
    for (const id of ids) {
      if (!Number.isFinite(id) || !exists(id)) {
        throw new GraphError(
          kind === NODE ? 'node_not_found' : 'edge_not_found',
          `${path}: ${kind === NODE ? 'node' : 'edge'} ${describeId(id)} does not exist`,
        );
      }
    }
    return ids as number[];
  };
  switch (ref.kind) {
    case 'all':
      return kind === NODE ? x.store.nodeIds() : x.store.edgeIds();
    case 'ids':
      return check(ref.ids);
    case 'param':
      return check(paramIds(x, ref));
    case 'var': {
      const rows = variableRows(x, ref.name, path);
      if (rows === null) {
        if (mode === 'target' || mode === 'required')
          throw new GraphError('invalid_query', `${path}: variable "${clip(ref.name)}" is not bound (yet) when this runs`);
        return [];
      }
      const ids: number[] = [];
      for (const row of rows) if (row.kind === kind) ids.push(row.id);
      // A variable may name an element deleted since it was bound (earlier in the batch).
      return idsMustExist ? check(ids) : ids;
    }
    case 'variable': {
      const ids = variableIds(x, ref, kind);
      if (ids === null) {
        if (mode === 'target' || mode === 'required')
          throw new GraphError('invalid_query', `${path}: variable "${clip(ref.name)}" is not bound (yet) when this runs`);
        return [];
      }
      return check(ids);
    }
    case 'outer': {
      // Validation bounds the depth by the traversal expressions around the reference.
      const origin = x.origins[x.origins.length - ref.depth];
      if (origin === undefined) throw new GraphError('invalid_query', `${ref.path}: no traversal expression ${ref.depth} level(s) out`);
      return origin.kind === kind ? check([origin.id]) : [];
    }
  }
}
