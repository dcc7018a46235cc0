/**
 * The reading operators of MATCH: node sources (a traversal, a label scan, an id lookup),
 * expands (one hop or a range of hops), checks of nodes bound earlier, shortest paths and
 * named paths. A relationship is never used twice in one MATCH: each expand skips those
 * held by the slots in `distinctFrom`, and a var-length expand never repeats one.
 */
import { NodeRef, PathValue, RelRef, propertiesOf, typeName, type CypherValue } from '../../core/cypher-value.js';
import type { Expand, PatternProperties, RelDirection, TableNode, Where } from '../../plan/table.js';
import type { Adjacent } from '../../store/index.js';
import { NODE } from '../row.js';
import { runtimeError, labelsOf } from './env.js';
import { evaluate } from './eval.js';
import { equals } from './operators.js';
import type { TableRow, TableRun } from './rows.js';

type Node<K extends TableNode['t']> = Extract<TableNode, { t: K }>;

function bindRow(row: TableRow, slot: number, value: CypherValue): TableRow {
  const out = row.slice();
  out[slot] = value;
  return out;
}

export function fromTraversal(node: Node<'from_traversal'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const input = run.rows(node.input, argument);
  if (input.length === 0) return [];
  const flow = run.x.rows(node.root, null, node.root);
  const found: CypherValue[] = [];
  for (const r of flow.rows) found.push(r.kind === NODE ? new NodeRef(r.id) : new RelRef(r.id));
  const out: TableRow[] = [];
  for (const row of input) for (const v of found) out.push(bindRow(row, node.slot, v));
  run.check(out.length);
  return out;
}

export function scan(node: Node<'scan'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const out: TableRow[] = [];
  const store = run.x.store;
  for (const row of run.rows(node.input, argument)) {
    if (node.id !== null) {
      // Cypher equality: 7 and 7.0 both name node 7; anything else names none.
      const id = evaluate(node.id, row, run);
      const n = typeof id === 'bigint' ? Number(id) : typeof id === 'number' && Number.isInteger(id) ? id : -1;
      if (n < 0 || n > Number.MAX_SAFE_INTEGER) continue;
      const rec = store.getNode(n);
      if (rec !== undefined && (node.label === null || rec.label === node.label)) out.push(bindRow(row, node.slot, new NodeRef(rec.id)));
      continue;
    }
    const ids = node.label === null ? store.nodeIds() : store.nodeIdsByLabel(node.label);
    for (const id of ids) {
      out.push(bindRow(row, node.slot, new NodeRef(id)));
      run.check(out.length);
    }
  }
  return out;
}

/** Whether the stored properties hold every pattern property (Cypher equality, so null never matches). */
function propertiesMatch(props: { readonly [key: string]: CypherValue }, wanted: PatternProperties, row: TableRow, run: TableRun): boolean {
  for (const [key, expr] of wanted) {
    const have = Object.hasOwn(props, key) ? props[key]! : null;
    if (equals(have, evaluate(expr, row, run)) !== true) return false;
  }
  return true;
}

function nodeOf(v: CypherValue | undefined, at: Where): NodeRef | null {
  if (v === null || v === undefined) return null;
  if (!(v instanceof NodeRef))
    throw runtimeError('type_error', 'InvalidArgumentType', `a pattern node must be a node, not a ${typeName(v)}`, at);
  return v;
}

export function checkNode(node: Node<'check_node'>, run: TableRun, argument: TableRow | null): TableRow[] {
  return run.rows(node.input, argument).filter((row) => {
    const n = nodeOf(row[node.slot], null);
    if (n === null) return false;
    const rec = run.x.store.getNode(n.id);
    if (rec === undefined) return false;
    const labels = labelsOf(rec);
    if (!node.labels.every((l) => labels.includes(l))) return false;
    return node.properties.length === 0 || propertiesMatch(propertiesOf(rec.props), node.properties, row, run);
  });
}

/** The relationships of `node` along `direction` with one of `types` (any type when empty); a self-loop once. */
function adjacent(run: TableRun, node: number, direction: RelDirection, types: readonly string[]): Iterable<Adjacent> {
  const store = run.x.store;
  const label = types.length === 1 ? types[0] : undefined;
  // The common hop, one type one way: the store's list as it is.
  if (direction === 'out' && types.length === 1) return store.outEdges(node, label);
  if (direction === 'in' && types.length === 1) return store.inEdges(node, label);
  const out: Adjacent[] = [];
  const keep = (a: Adjacent) => types.length <= 1 || types.includes(a.label);
  if (direction !== 'in') for (const a of store.outEdges(node, label)) if (keep(a)) out.push(a);
  if (direction !== 'out')
    for (const a of store.inEdges(node, label)) if (keep(a) && !(direction === 'both' && a.other === node)) out.push(a);
  return out;
}

/** Whether an earlier relationship slot of the same MATCH holds `edge` (one relationship, or a var-length list). */
function isUsed(row: TableRow, slots: readonly number[], edge: number): boolean {
  for (const slot of slots) {
    const v = row[slot];
    if (v instanceof RelRef) {
      if (v.id === edge) return true;
    } else if (Array.isArray(v)) {
      for (const r of v) if (r instanceof RelRef && r.id === edge) return true;
    }
  }
  return false;
}

function relMatches(run: TableRun, e: Expand, edge: number, row: TableRow): boolean {
  if (e.properties.length === 0) return true;
  const rec = run.x.store.getEdge(edge);
  return rec !== undefined && propertiesMatch(propertiesOf(rec.props), e.properties, row, run);
}

export function expand(node: Node<'expand'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const out: TableRow[] = [];
  for (const row of run.rows(node.input, argument)) {
    const from = nodeOf(row[node.from], null);
    if (from === null) continue;
    if (node.length === null) expandOne(node, run, row, from.id, out);
    else expandRange(node, run, row, from.id, out);
    run.check(out.length);
  }
  return out;
}

function reaches(node: Expand, row: TableRow, other: number): boolean {
  if (!node.toBound) return true;
  const to = row[node.to];
  return to instanceof NodeRef && to.id === other;
}

function expandOne(node: Expand, run: TableRun, row: TableRow, from: number, out: TableRow[]): void {
  const bound = node.relBound ? row[node.rel] : undefined;
  for (const a of adjacent(run, from, node.direction, node.types)) {
    if ((node.distinctFrom.length > 0 && isUsed(row, node.distinctFrom, a.edge)) || !reaches(node, row, a.other)) continue;
    if (bound !== undefined && !(bound instanceof RelRef && bound.id === a.edge)) continue;
    if (!relMatches(run, node, a.edge, row)) continue;
    const next = row.slice();
    next[node.rel] = new RelRef(a.edge);
    next[node.to] = new NodeRef(a.other);
    out.push(next);
  }
}

/** `[*min..max]`: every trail (no relationship twice) from `from` of an allowed length, depth first. */
function expandRange(node: Expand, run: TableRun, row: TableRow, from: number, out: TableRow[]): void {
  const { min, max } = node.length!;
  const trail: number[] = [];
  const onTrail = new Set<number>();
  const emit = (at: number) => {
    if (trail.length < min || !reaches(node, row, at)) return;
    const rels = trail.map((id) => new RelRef(id));
    if (node.relBound && !sameRels(row[node.rel], rels)) return;
    const next = row.slice();
    next[node.rel] = rels;
    next[node.to] = new NodeRef(at);
    out.push(next);
  };
  const walk = (at: number) => {
    emit(at);
    if (max !== null && trail.length >= max) return;
    for (const a of adjacent(run, at, node.direction, node.types)) {
      if (onTrail.has(a.edge) || isUsed(row, node.distinctFrom, a.edge) || !relMatches(run, node, a.edge, row)) continue;
      trail.push(a.edge);
      onTrail.add(a.edge);
      walk(a.other);
      trail.pop();
      onTrail.delete(a.edge);
      run.check(out.length);
    }
  };
  walk(from);
}

function sameRels(v: CypherValue | undefined, rels: readonly RelRef[]): boolean {
  return Array.isArray(v) && v.length === rels.length && v.every((r, i) => r instanceof RelRef && r.id === rels[i]!.id);
}

export function shortestPath(node: Node<'shortest_path'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const out: TableRow[] = [];
  for (const row of run.rows(node.input, argument)) {
    const from = nodeOf(row[node.from], null);
    const to = nodeOf(row[node.to], null);
    if (from === null || to === null) continue;
    for (const path of shortestPaths(run, node, from.id, to.id)) {
      const next = row.slice();
      next[node.path] = path;
      next[node.rel] = [...path.rels];
      out.push(next);
    }
    run.check(out.length);
  }
  return out;
}

/** Breadth first: the shortest paths (one, or all of them) from `from` to `to` within the length range. */
function shortestPaths(run: TableRun, node: Node<'shortest_path'>, from: number, to: number): PathValue[] {
  if (from === to) return node.min === 0 ? [new PathValue([new NodeRef(from)], [])] : [];
  type Step = { readonly node: number; readonly rels: readonly number[]; readonly nodes: readonly number[] };
  let frontier: Step[] = [{ node: from, rels: [], nodes: [from] }];
  const seen = new Map<number, number>([[from, 0]]);
  const found: PathValue[] = [];
  for (let depth = 1; frontier.length > 0 && (node.max === null || depth <= node.max); depth++) {
    const next: Step[] = [];
    for (const step of frontier) {
      for (const a of adjacent(run, step.node, node.direction, node.types)) {
        if (step.rels.includes(a.edge)) continue;
        const prior = seen.get(a.other);
        if (prior !== undefined && prior < depth) continue;
        seen.set(a.other, depth);
        const s = { node: a.other, rels: [...step.rels, a.edge], nodes: [...step.nodes, a.other] };
        if (a.other === to && depth >= node.min) {
          found.push(
            new PathValue(
              s.nodes.map((n) => new NodeRef(n)),
              s.rels.map((r) => new RelRef(r)),
            ),
          );
          if (!node.all) return found;
        } else next.push(s);
      }
    }
    if (found.length > 0) return found;
    frontier = next;
    run.check(frontier.length);
  }
  return found;
}

export function bindPath(node: Node<'bind_path'>, run: TableRun, argument: TableRow | null): TableRow[] {
  return run.rows(node.input, argument).map((row) => bindRow(row, node.path.slot, pathOf(row, node.path.elements, run)));
}

/** A path from alternating node and relationship slots; a var-length slot adds its hops' nodes. */
export function pathOf(row: TableRow, elements: readonly number[], run: TableRun): CypherValue {
  const first = row[elements[0]!];
  if (!(first instanceof NodeRef)) return null;
  const nodes: NodeRef[] = [first];
  const rels: RelRef[] = [];
  for (let i = 1; i < elements.length; i += 2) {
    const rel = row[elements[i]!];
    const hops = Array.isArray(rel) ? (rel as RelRef[]) : rel instanceof RelRef ? [rel] : null;
    if (hops === null) return null;
    for (const hop of hops) {
      const rec = run.access.rel(hop.id, null);
      const at = nodes[nodes.length - 1]!.id;
      nodes.push(new NodeRef(rec.from === at ? rec.to : rec.from));
      rels.push(hop);
    }
  }
  return new PathValue(nodes, rels);
}
