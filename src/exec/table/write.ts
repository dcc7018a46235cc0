/**
 * The updating operators: CREATE, MERGE, SET/REMOVE, DELETE and FOREACH. They run in the
 * statement's write transaction, so a runtime error anywhere rolls all of them back.
 * Property values must be storable (core/cypher-value.ts toStored); setting a property to
 * null removes it.
 */
import { NodeRef, PathValue, RelRef, isCypherMap, propertiesOf, toStored, typeName, type CypherValue } from '../../core/cypher-value.js';
import { setOwn, type ValueObject } from '../../core/value.js';
import type { CreatePattern, PatternProperties, RowExpr, SetAction, TableNode, Where } from '../../plan/table.js';
import { runtimeError } from './env.js';
import { evaluate } from './eval.js';
import { pathOf } from './match.js';
import type { TableRow, TableRun } from './rows.js';

type Node<K extends TableNode['t']> = Extract<TableNode, { t: K }>;

function storable(key: string, v: CypherValue, at: Where): ValueObject[string] {
  const checked = toStored(v);
  if (!checked.ok) throw runtimeError('type_error', 'InvalidPropertyType', `property "${key}": ${checked.why}`, at);
  return checked.value;
}

function propsOf(props: PatternProperties, propertyMap: RowExpr | null, row: TableRow, run: TableRun, merging: boolean): ValueObject {
  const out: ValueObject = {};
  const entries: [string, CypherValue][] = props.map(([key, expr]) => [key, evaluate(expr, row, run)]);
  if (propertyMap !== null) {
    const map = evaluate(propertyMap, row, run);
    if (!isCypherMap(map))
      throw runtimeError('type_error', 'InvalidArgumentType', `CREATE needs a map of properties, not a ${typeName(map)}`, null);
    for (const key of Object.keys(map)) entries.push([key, map[key]!]);
  }
  for (const [key, v] of entries) {
    // MERGE cannot create what it could never match again (TCK Merge1 [17], Merge5 [29]).
    if (v === null && merging)
      throw runtimeError('semantic_error', 'MergeReadOwnWrites', `MERGE cannot create an element with property "${key}" set to null`, null);
    if (v !== null) setOwn(out, key, storable(key, v, null));
  }
  return out;
}

/** Creates the pattern for one row; returns the row with the new elements bound. */
function createOn(row: TableRow, pattern: CreatePattern, run: TableRun, merging = false): TableRow {
  const w = run.x.writable;
  const next = row.slice();
  for (const n of pattern.nodes) {
    if (n.bound) continue;
    next[n.slot] = new NodeRef(w.createNode(n.label, propsOf(n.properties, n.propertyMap, next, run, merging)));
  }
  for (const r of pattern.rels) {
    const from = next[r.from];
    const to = next[r.to];
    if (!(from instanceof NodeRef) || !(to instanceof NodeRef))
      throw runtimeError(
        'semantic_error',
        'InvalidArgumentType',
        `cannot create a relationship of type ${r.type} to or from ${from === null || to === null ? 'null' : 'a non-node'}`,
        null,
      );
    run.access.node(from.id, null);
    run.access.node(to.id, null);
    next[r.slot] = new RelRef(w.createEdge(r.type, from.id, to.id, propsOf(r.properties, r.propertyMap, next, run, merging)));
  }
  for (const p of pattern.paths) next[p.slot] = pathOf(next, p.elements, run);
  return next;
}

export function create(node: Node<'create'>, run: TableRun, argument: TableRow | null): TableRow[] {
  return run.rows(node.input, argument).map((row) => createOn(row, node.pattern, run));
}

export function merge(node: Node<'merge'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const out: TableRow[] = [];
  for (const row of run.rows(node.input, argument)) {
    const found = run.rows(node.match, row);
    if (found.length > 0) {
      for (const r of found) applyAll(node.onMatch, r, run);
      out.push(...found);
    } else {
      const created = createOn(row, node.create, run, true);
      applyAll(node.onCreate, created, run);
      out.push(created);
    }
    run.check(out.length);
  }
  return out;
}

export function set(node: Node<'set'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const rows = run.rows(node.input, argument);
  for (const row of rows) applyAll(node.actions, row, run);
  return rows;
}

function applyAll(actions: readonly SetAction[], row: TableRow, run: TableRun): void {
  for (const action of actions) apply(action, row, run);
}

/** The element a SET or REMOVE changes: null is a no-op, anything but a node or relationship an error. */
function target(v: CypherValue, at: Where): NodeRef | RelRef | null {
  if (v === null) return null;
  if (v instanceof NodeRef || v instanceof RelRef) return v;
  throw runtimeError('type_error', 'InvalidArgumentType', `SET and REMOVE change nodes and relationships, not a ${typeName(v)}`, at);
}

function apply(action: SetAction, row: TableRow, run: TableRun): void {
  const subject = 'slot' in action ? (row[action.slot] ?? null) : evaluate(action.object, row, run);
  const element = target(subject, action.at);
  if (element === null) return;
  const current = element instanceof NodeRef ? run.access.node(element.id, action.at) : run.access.rel(element.id, action.at);
  const props: ValueObject = { ...current.props };
  switch (action.kind) {
    case 'property': {
      const v = evaluate(action.value, row, run);
      if (v === null) delete props[action.key];
      else setOwn(props, action.key, storable(action.key, v, action.at));
      break;
    }
    case 'remove_property':
      delete props[action.key];
      break;
    case 'replace':
    case 'merge': {
      const map = mapOf(evaluate(action.value, row, run), action.at, run);
      if (map === null && action.kind === 'merge') return;
      if (action.kind === 'replace') for (const key of Object.keys(props)) if (!key.startsWith('$')) delete props[key];
      for (const [key, v] of Object.entries(map ?? {})) {
        if (v === null) delete props[key];
        else setOwn(props, key, storable(key, v, action.at));
      }
      break;
    }
  }
  const w = run.x.writable;
  if (element instanceof NodeRef) w.putNode({ id: element.id, label: current.label, props });
  else w.putEdgeProps(element.id, props);
}

/** The map a `SET n = x` or `SET n += x` reads: a map, or an element's properties. */
function mapOf(v: CypherValue, at: Where, run: TableRun): { readonly [key: string]: CypherValue } | null {
  if (v === null) return null;
  if (isCypherMap(v)) return v;
  if (v instanceof NodeRef) return propertiesOf(run.access.node(v.id, at).props);
  if (v instanceof RelRef) return propertiesOf(run.access.rel(v.id, at).props);
  throw runtimeError('type_error', 'InvalidArgumentType', `SET needs a map of properties, not a ${typeName(v)}`, at);
}

/** DELETE: every relationship first, then nodes; a node that still has relationships needs DETACH. */
export function remove(node: Node<'delete'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const rows = run.rows(node.input, argument);
  const nodes = new Set<number>();
  const rels = new Set<number>();
  const add = (v: CypherValue) => {
    if (v === null) return;
    if (v instanceof NodeRef) nodes.add(v.id);
    else if (v instanceof RelRef) rels.add(v.id);
    else if (v instanceof PathValue) {
      v.nodes.forEach((n) => nodes.add(n.id));
      v.rels.forEach((r) => rels.add(r.id));
    } else
      throw runtimeError(
        'type_error',
        'InvalidArgumentType',
        `DELETE removes nodes, relationships and paths, not a ${typeName(v)}`,
        node.at,
      );
  };
  for (const row of rows) for (const t of node.targets) add(evaluate(t, row, run));
  const w = run.x.writable;
  const deleteEdge = (id: number) => {
    const rec = w.getEdge(id);
    if (rec === undefined) return;
    run.access.deleting(rec);
    w.deleteEdge(id);
  };
  rels.forEach(deleteEdge);
  for (const id of nodes) {
    if (!w.hasNode(id)) continue;
    const incident = [...w.incidentEdgeIds(id, 'out'), ...w.incidentEdgeIds(id, 'in')];
    if (!node.detach && incident.length > 0)
      throw runtimeError(
        'constraint_verification_failed',
        'DeleteConnectedNode',
        `node ${id} still has relationships; use DETACH DELETE to delete them too`,
        node.at,
      );
    incident.forEach(deleteEdge);
    w.deleteNode(id);
  }
  return rows;
}

export function foreach(node: Node<'foreach'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const rows = run.rows(node.input, argument);
  for (const row of rows) {
    const list = evaluate(node.list, row, run);
    if (list === null) continue;
    if (!Array.isArray(list))
      throw runtimeError('type_error', 'InvalidArgumentType', `FOREACH needs a list, not a ${typeName(list)}`, null);
    for (const item of list) {
      const inner = row.slice();
      inner[node.slot] = item;
      run.rows(node.body, inner);
    }
  }
  return rows;
}
