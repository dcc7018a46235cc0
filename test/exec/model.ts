/**
 * An in-memory reference model of a small graph and of the read traversal semantics the
 * property test exercises (navigation, filters, bounds, ordering, three terminals).
 *
 * Written from the wire reference (/work/shared/reference/v2-wire.md §4.4, §5.2-5.6, §6.2,
 * §9) and DECISIONS.md, deliberately without reading src/exec: a model that copies the
 * executor proves nothing. It favours obviousness over speed (graphs have ~15 nodes).
 */

/** A stored property value, with the tag it is written with. */
export type PropVal =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'i64'; readonly v: number }
  | { readonly t: 'f64'; readonly v: number }
  | { readonly t: 'string'; readonly v: string };

/** A value as the response prints it (untagged JSON); `undefined` is a missing property. */
export type Plain = null | boolean | number | string;

export interface MNode {
  readonly label: string;
  readonly props: readonly (readonly [string, PropVal])[];
}
export interface MEdge extends MNode {
  readonly from: number;
  readonly to: number;
}
/** Node i has id i and edge j has id j: the graph is loaded into a fresh database in order. */
export interface MGraph {
  readonly nodes: readonly MNode[];
  readonly edges: readonly MEdge[];
}

export type Operand = { readonly prop: string } | { readonly constant: PropVal };
export type Pred =
  | { readonly op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'; readonly left: Operand; readonly right: Operand }
  | { readonly op: 'and' | 'or'; readonly preds: readonly Pred[] }
  | { readonly op: 'not'; readonly pred: Pred }
  | { readonly op: 'is_null'; readonly property: string }
  | { readonly op: 'starts_with'; readonly value: Operand; readonly prefix: Operand };

export type Order = 'asc' | 'desc';
export type Step =
  | { readonly op: 'out' | 'in' | 'both' | 'out_e' | 'in_e' | 'both_e'; readonly label: string | null }
  | { readonly op: 'out_n' | 'in_n' | 'other_n' | 'dedup' }
  | { readonly op: 'has'; readonly property: string; readonly value: PropVal }
  | { readonly op: 'has_label'; readonly label: string }
  | { readonly op: 'has_key'; readonly property: string }
  | { readonly op: 'where'; readonly pred: Pred }
  | { readonly op: 'as' | 'within' | 'without'; readonly name: string }
  | { readonly op: 'limit' | 'skip'; readonly n: number }
  | { readonly op: 'range'; readonly start: number; readonly end: number }
  | { readonly op: 'order_by'; readonly property: string; readonly order: Order }
  | { readonly op: 'order_by_multiple'; readonly keys: readonly (readonly [string, Order])[] };

export type Source =
  | { readonly op: 'all' }
  | { readonly op: 'ids'; readonly ids: readonly number[] }
  | { readonly op: 'label'; readonly label: string }
  | { readonly op: 'edges_all' };
export type Terminal =
  { readonly op: 'stream' | 'id' | 'count' } | { readonly op: 'value_map'; readonly properties: readonly string[] | null };

export interface Traversal {
  readonly source: Source;
  readonly steps: readonly Step[];
  readonly terminal: Terminal;
}

type Kind = 'node' | 'edge';
interface Elem {
  readonly kind: Kind;
  readonly id: number;
}
interface Row extends Elem {
  /** Elements visited, ending with the current one; only other_n reads it. */
  readonly path: readonly Elem[];
}

export function plain(v: PropVal): Plain {
  return v.t === 'null' ? null : v.v;
}

function element(g: MGraph, e: Elem): MNode | MEdge {
  const found = e.kind === 'node' ? g.nodes[e.id] : g.edges[e.id];
  if (found === undefined) throw new Error(`model: no ${e.kind} ${e.id}`);
  return found;
}

/** §6.2 name resolution, restricted to the names the generator uses. */
function resolve(g: MGraph, row: Elem, name: string): Plain | undefined {
  if (name === '$id') return row.id;
  const el = element(g, row);
  if (row.kind === 'edge' && (name === '$from' || name === '$to')) return name === '$from' ? (el as MEdge).from : (el as MEdge).to;
  if (name === '$label') return el.label;
  const hit = el.props.find(([k]) => k === name);
  return hit === undefined ? undefined : plain(hit[1]);
}

function operand(g: MGraph, row: Elem, o: Operand): Plain {
  if ('prop' in o) return resolve(g, row, o.prop) ?? null;
  return plain(o.constant);
}

/** UTF-8 byte order, which differs from JS's UTF-16 `<` above the BMP. */
function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** §4.4 typed equality: numbers by value across i64/f64, everything else same type and value. */
function equal(a: Plain, b: Plain): boolean {
  return a === b;
}

/** §4.4: only number/number and string/string compare; anything else is incomparable. */
function compare(a: Plain, b: Plain): number | null {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return byteCompare(a, b);
  return null;
}

export function holds(g: MGraph, row: Elem, p: Pred): boolean {
  switch (p.op) {
    case 'eq':
      return equal(operand(g, row, p.left), operand(g, row, p.right));
    case 'neq':
      return !equal(operand(g, row, p.left), operand(g, row, p.right));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const c = compare(operand(g, row, p.left), operand(g, row, p.right));
      if (c === null) return false;
      return p.op === 'gt' ? c > 0 : p.op === 'gte' ? c >= 0 : p.op === 'lt' ? c < 0 : c <= 0;
    }
    case 'and':
      return p.preds.every((q) => holds(g, row, q));
    case 'or':
      return p.preds.some((q) => holds(g, row, q));
    case 'not':
      return !holds(g, row, p.pred);
    case 'is_null':
      return (resolve(g, row, p.property) ?? null) === null;
    case 'starts_with': {
      const v = operand(g, row, p.value);
      const prefix = operand(g, row, p.prefix);
      return typeof v === 'string' && typeof prefix === 'string' && v.startsWith(prefix);
    }
  }
}

/** §5.4 cross-type order of present values: null < bool < number < string (no dates generated). */
function totalOrder(a: Plain, b: Plain): number {
  const rank = (v: Plain) => (v === null ? 0 : typeof v === 'boolean' ? 1 : typeof v === 'number' ? 2 : 4);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'number') return a - (b as number);
  if (typeof a === 'string') return byteCompare(a, b as string);
  return 0;
}

/** One sort key: missing first ascending, last descending. */
function keyCompare(a: Plain | undefined, b: Plain | undefined, order: Order): number {
  if (a === undefined && b === undefined) return 0;
  if (a === undefined) return order === 'asc' ? -1 : 1;
  if (b === undefined) return order === 'asc' ? 1 : -1;
  const c = totalOrder(a, b);
  return order === 'asc' ? c : -c;
}

function sortRows(g: MGraph, rows: readonly Row[], keys: readonly (readonly [string, Order])[]): Row[] {
  const decorated = rows.map((row, index) => ({ row, index, values: keys.map(([k]) => resolve(g, row, k)) }));
  decorated.sort((x, y) => {
    for (let i = 0; i < keys.length; i++) {
      const c = keyCompare(x.values[i], y.values[i], keys[i]![1]);
      if (c !== 0) return c;
    }
    // Ties: by element, nodes before edges, regardless of direction; then input order.
    if (x.row.kind !== y.row.kind) return x.row.kind === 'node' ? -1 : 1;
    return x.row.id - y.row.id || x.index - y.index;
  });
  return decorated.map((d) => d.row);
}

const elemKey = (e: Elem) => `${e.kind}:${e.id}`;

function incident(g: MGraph, node: number, dir: 'out' | 'in' | 'both', label: string | null): number[] {
  const ids: number[] = [];
  g.edges.forEach((e, id) => {
    if (label !== null && e.label !== label) return;
    if ((dir !== 'in' && e.from === node) || (dir !== 'out' && e.to === node)) ids.push(id);
  });
  return ids; // ascending edge id, each edge once (a self-loop too)
}

function neighbours(g: MGraph, node: number, dir: 'out' | 'in' | 'both', label: string | null): number[] {
  const set = new Set<number>();
  for (const id of incident(g, node, dir, label)) {
    const e = g.edges[id]!;
    if (dir !== 'in' && e.from === node) set.add(e.to);
    if (dir !== 'out' && e.to === node) set.add(e.from);
  }
  return [...set].sort((a, b) => a - b);
}

function extend(row: Row, next: Elem): Row {
  return { ...next, path: [...row.path, next] };
}

function otherEnds(g: MGraph, row: Row): number[] {
  const e = g.edges[row.id]!;
  const before = row.path
    .slice(0, -1)
    .reverse()
    .find((x) => x.kind === 'node');
  if (before === undefined) return e.from === e.to ? [e.from] : [e.from, e.to];
  return [before.id === e.from ? e.to : e.from];
}

function source(g: MGraph, s: Source): Row[] {
  const nodeRow = (id: number): Row => ({ kind: 'node', id, path: [{ kind: 'node', id }] });
  switch (s.op) {
    case 'all':
      return g.nodes.map((_, id) => nodeRow(id));
    case 'ids':
      return s.ids.filter((id) => id < g.nodes.length).map(nodeRow);
    case 'label':
      return g.nodes.flatMap((n, id) => (n.label === s.label ? [nodeRow(id)] : []));
    case 'edges_all':
      return g.edges.map((_, id) => ({ kind: 'edge', id, path: [{ kind: 'edge', id }] }));
  }
}

function step(g: MGraph, rows: readonly Row[], s: Step, vars: Map<string, readonly Row[]>): Row[] {
  switch (s.op) {
    case 'out':
    case 'in':
    case 'both': {
      const dir = s.op;
      return rows.flatMap((r) => neighbours(g, r.id, dir, s.label).map((id) => extend(r, { kind: 'node', id })));
    }
    case 'out_e':
    case 'in_e':
    case 'both_e': {
      const dir = s.op === 'out_e' ? 'out' : s.op === 'in_e' ? 'in' : 'both';
      return rows.flatMap((r) => incident(g, r.id, dir, s.label).map((id) => extend(r, { kind: 'edge', id })));
    }
    case 'out_n':
      return rows.map((r) => extend(r, { kind: 'node', id: g.edges[r.id]!.to }));
    case 'in_n':
      return rows.map((r) => extend(r, { kind: 'node', id: g.edges[r.id]!.from }));
    case 'other_n':
      return rows.flatMap((r) => otherEnds(g, r).map((id) => extend(r, { kind: 'node', id })));
    case 'has':
      return rows.filter((r) => equal(resolve(g, r, s.property) ?? null, plain(s.value)));
    case 'has_label':
      return rows.filter((r) => element(g, r).label === s.label);
    case 'has_key':
      return rows.filter((r) => resolve(g, r, s.property) !== undefined);
    case 'where':
      return rows.filter((r) => holds(g, r, s.pred));
    case 'dedup': {
      const seen = new Set<string>();
      return rows.filter((r) => !seen.has(elemKey(r)) && seen.add(elemKey(r)) !== undefined);
    }
    case 'as':
      vars.set(s.name, rows);
      return [...rows];
    case 'within':
    case 'without': {
      const set = new Set((vars.get(s.name) ?? []).map(elemKey));
      return rows.filter((r) => set.has(elemKey(r)) === (s.op === 'within'));
    }
    case 'limit':
      return rows.slice(0, s.n);
    case 'skip':
      return rows.slice(s.n);
    case 'range':
      return rows.slice(s.start, s.end);
    case 'order_by':
      return sortRows(g, rows, [[s.property, s.order]]);
    case 'order_by_multiple':
      return sortRows(g, rows, s.keys);
  }
}

/** The value of the returned name, as `Database.query` parses it. */
export function evaluate(g: MGraph, t: Traversal): unknown[] {
  const vars = new Map<string, readonly Row[]>();
  let rows = source(g, t.source);
  for (const s of t.steps) rows = step(g, rows, s, vars);
  const term = t.terminal;
  switch (term.op) {
    case 'stream':
      return rows.map((r) => ({ $id: r.id }));
    case 'id':
      return rows.map((r) => r.id);
    case 'count':
      return [rows.length];
    case 'value_map':
      return rows.map((r) => {
        const out: Record<string, Plain> = {};
        if (term.properties === null) {
          const el = element(g, r);
          for (const [k, v] of el.props) out[k] = plain(v);
          out.$label = el.label;
          out.$id = r.id;
          // DECISIONS D9: edges also show their endpoints.
          if (r.kind === 'edge') {
            out.$from = (el as MEdge).from;
            out.$to = (el as MEdge).to;
          }
          return out;
        }
        for (const k of term.properties) {
          const v = resolve(g, r, k);
          if (v !== undefined) out[k] = v;
        }
        return out;
      });
  }
}

/** Which kind of element a traversal's stream holds after each prefix, for the generator. */
export function kindAfter(kind: Kind, s: Step): Kind {
  switch (s.op) {
    case 'out_e':
    case 'in_e':
    case 'both_e':
      return 'edge';
    case 'out':
    case 'in':
    case 'both':
    case 'out_n':
    case 'in_n':
    case 'other_n':
      return 'node';
    default:
      return kind;
  }
}
