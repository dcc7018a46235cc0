/**
 * Patterns to operators: MATCH patterns become scans, expands and checks (and named paths);
 * CREATE and MERGE patterns become what to create. A node pattern whose variable is already
 * bound is a check of that node, not a new scan; a relationship may not be matched twice
 * in one MATCH (openCypher's relationship uniqueness), so each expand lists the
 * relationship slots bound before it in the same clause.
 */
import type { Expr, MapExpr, NodePattern, ParameterExpr, PatternPart, RelationshipPattern } from './ast.js';
import type { CreateNode, CreatePattern, CreateRel, PatternProperties, RelDirection, RowExpr, TableNode } from '../plan/table.js';
import type { Expr as PlanExpr, Predicate } from '../plan/expr.js';
import type { PlanNode } from '../plan/ops.js';
import { lowerExpr } from './lower-expr.js';
import { unreachable, type Lowering, type VariableKind } from './lower-scope.js';
import { forEachChild, isAggregateCall } from './ast-walk.js';

const direction = (r: RelationshipPattern): RelDirection => (r.direction === 'right' ? 'out' : r.direction === 'left' ? 'in' : 'both');

/** The slot of a pattern element's variable, bound now if new; unnamed elements get a temporary. */
function bind(l: Lowering, name: string | null, kind: VariableKind): { slot: number; bound: boolean } {
  if (name !== null) {
    const v = l.scope.get(name);
    if (v !== undefined) return { slot: v.slot, bound: true };
  }
  const fixed = name === null ? undefined : l.fixed?.get(name);
  const slot = fixed ?? l.slots.allocate(name);
  l.scope.set(name ?? ` ${slot}`, { slot, kind });
  return { slot, bound: false };
}

function properties(map: MapExpr | ParameterExpr | null, l: Lowering): PatternProperties {
  if (map === null) return [];
  if (map.kind === 'parameter') return unreachable('a parameter as a pattern property map');
  return map.entries.map((entry) => [entry.key.name, lowerExpr(entry.value, l)] as const);
}

/** A created element's properties: listed entries, or a parameter map (CREATE only; analysis rejects it in MATCH and MERGE). */
function createProperties(map: MapExpr | ParameterExpr | null, l: Lowering): [PatternProperties, RowExpr | null] {
  return map?.kind === 'parameter' ? [[], lowerExpr(map, l)] : [properties(map, l), null];
}

/** MATCH: the parts in order, then the WHERE filter. Binds the parts' variables in `l.scope`. */
export function lowerPatternMatch(input: TableNode, parts: readonly PatternPart[], l: Lowering, where: Expr | null): TableNode {
  let plan = input;
  const rels: number[] = [];
  const conjuncts = where === null ? [] : conjunctsOf(where);
  // Conjuncts a node source answers exactly (`id(n) = $x`) leave the filter.
  const answered = new Set<Expr>();
  for (const part of parts)
    plan = part.shortest !== null ? lowerShortest(plan, part, l) : lowerPart(plan, part, l, rels, conjuncts, answered);
  const rest = conjuncts.filter((c) => !answered.has(c));
  if (rest.length > 0) {
    const predicate = rest.map((c) => lowerExpr(c, l)).reduce((left, right) => ({ k: 'and', left, right, at: null }));
    plan = { t: 'filter', input: plan, predicate };
  }
  return plan;
}

function lowerPart(
  input: TableNode,
  part: PatternPart,
  l: Lowering,
  rels: number[],
  conjuncts: readonly Expr[],
  answered: Set<Expr>,
): TableNode {
  let plan = matchNode(input, part.nodes[0]!, l, conjuncts, answered);
  const elements = [slotOf(l, part.nodes[0]!)];
  part.relationships.forEach((r, i) => {
    const from = elements[elements.length - 1]!;
    const varLength = r.length !== null;
    const rel = bind(l, r.variable?.name ?? null, varLength ? 'rels' : 'rel');
    const toPattern = part.nodes[i + 1]!;
    const to = bind(l, toPattern.variable?.name ?? null, 'node');
    const length =
      r.length === null
        ? null
        : { min: r.length.min === null ? 1 : Number(r.length.min), max: r.length.max === null ? null : Number(r.length.max) };
    plan = {
      t: 'expand',
      input: plan,
      from,
      rel: rel.slot,
      to: to.slot,
      toBound: to.bound,
      relBound: rel.bound,
      types: r.types.map((t) => t.name),
      direction: direction(r),
      properties: properties(r.properties, l),
      length,
      distinctFrom: rels.filter((slot) => slot !== rel.slot),
    };
    rels.push(rel.slot);
    plan = checkNode(plan, to.slot, toPattern, l);
    elements.push(rel.slot, to.slot);
  });
  if (part.variable !== null) {
    const path = bind(l, part.variable.name, 'path');
    plan = { t: 'bind_path', input: plan, path: { slot: path.slot, elements } };
  }
  return plan;
}

function slotOf(l: Lowering, node: NodePattern): number {
  // matchNode bound it (named or as the last temporary).
  if (node.variable !== null) return l.scope.get(node.variable.name)!.slot;
  return l.slots.count - 1;
}

/** The first node of a part: a check when bound, else the narrowest source the pattern and WHERE allow. */
function matchNode(input: TableNode, node: NodePattern, l: Lowering, conjuncts: readonly Expr[], answered: Set<Expr>): TableNode {
  const name = node.variable?.name ?? null;
  const existing = name === null ? undefined : l.scope.get(name);
  if (existing !== undefined) return checkNode(input, existing.slot, node, l);
  const props = properties(node.properties, l);
  // The id expression is lowered before the node is bound: it may only read what is bound already.
  const id = name === null ? null : idLookup(name, conjuncts, l, answered);
  const slot = bind(l, name, 'node').slot;
  const label = node.labels.length === 1 ? node.labels[0]!.name : null;
  let plan: TableNode;
  const traversal =
    id === null && label !== null ? propertyLookup(label, props, name === null ? [] : pushedDown(name, conjuncts, answered)) : null;
  if (traversal !== null) plan = { t: 'from_traversal', input, root: traversal.root, slot, kind: 'node' };
  else plan = { t: 'scan', input, slot, label, id };
  // What the source did not check: further labels, and every property the lookup left out.
  const rest = traversal !== null ? traversal.unchecked : props;
  // The source checks `label` (scans by label, or the lookup's predicate); any other label is checked after.
  const labels = node.labels.map((n) => n.name).filter((n) => n !== label);
  if (labels.length > 0 || rest.length > 0) plan = { t: 'check_node', input: plan, slot, labels, properties: rest };
  return plan;
}

function checkNode(input: TableNode, slot: number, node: NodePattern, l: Lowering): TableNode {
  const props = properties(node.properties, l);
  if (node.labels.length === 0 && props.length === 0) return input;
  return { t: 'check_node', input, slot, labels: node.labels.map((n) => n.name), properties: props };
}

/** `id(n) = $x` or `id(n) = 7` among the WHERE conjuncts: the id expression to look `n` up by. */
function idLookup(name: string, conjuncts: readonly Expr[], l: Lowering, answered: Set<Expr>): RowExpr | null {
  for (const c of conjuncts) {
    if (c.kind !== 'comparison' || c.ops.length !== 1 || c.ops[0] !== '=') continue;
    const [a, b] = c.operands as [Expr, Expr];
    for (const [call, value] of [
      [a, b],
      [b, a],
    ] as const) {
      if (call.kind !== 'call' || call.namespace.length > 0 || call.name.name.toLowerCase() !== 'id' || call.args.length !== 1) continue;
      const arg = call.args[0]!;
      if (arg.kind !== 'variable' || arg.name !== name) continue;
      if (!usesOnly(value, l)) continue;
      answered.add(c);
      return lowerExpr(value, l);
    }
  }
  return null;
}

/**
 * `(n:L {k: v, ...})` as /v2/query's `nodes_where` (so it uses the same column scans and
 * secondary indexes): the label and each property compared with a non-null scalar literal
 * or a parameter. A parameter may hold null or a list at run time, where the scan's
 * equality and Cypher's differ, so those properties are checked again (`unchecked`).
 */
function propertyLookup(
  label: string,
  props: PatternProperties,
  where: readonly Predicate[],
): { root: PlanNode; unchecked: PatternProperties } {
  const path = '$';
  const predicates: Predicate[] = [
    { p: 'compare', op: 'eq', left: { e: 'property', name: '$label', path }, right: { e: 'constant', value: label, path }, path },
    ...where,
  ];
  const unchecked: (readonly [string, RowExpr])[] = [];
  for (const [key, value] of props) {
    let right: PlanExpr | null = null;
    if (value.k === 'literal' && value.value !== null && typeof value.value !== 'object' && !key.startsWith('$'))
      right = { e: 'constant', value: value.value, path };
    else if (value.k === 'param' && !key.startsWith('$')) {
      right = { e: 'param', name: value.name, path };
      unchecked.push([key, value]);
    } else unchecked.push([key, value]);
    if (right !== null) predicates.push({ p: 'compare', op: 'eq', left: { e: 'property', name: key, path }, right, path });
  }
  const predicate: Predicate = predicates.length === 1 ? predicates[0]! : { p: 'and', predicates, path };
  return { root: { op: 'nodes_where', path, predicate }, unchecked };
}

/** Whether an expression reads only parameters, literals and variables already in scope (so it can run before the match). */
function usesOnly(e: Expr, l: Lowering): boolean {
  if (e.kind === 'variable') return l.scope.has(e.name);
  if (e.kind === 'pattern' || e.kind === 'patternComprehension' || e.kind === 'exists') return false;
  if (e.kind === 'listComprehension' || e.kind === 'quantifier' || e.kind === 'reduce' || e.kind === 'mapProjection') return false;
  if (e.kind === 'countStar' || isAggregateCall(e)) return false;
  let ok = true;
  forEachChild(e, (child) => {
    if (ok && !usesOnly(child, l)) ok = false;
  });
  return ok;
}

const SCAN_OPS = { '=': 'eq', '<': 'lt', '>': 'gt', '<=': 'lte', '>=': 'gte' } as const;
const FLIPPED = { '=': '=', '<': '>', '>': '<', '<=': '>=', '>=': '<=' } as const;

/**
 * WHERE conjuncts `n.key <op> literal` the scan can test from its property columns. A
 * conjunct is pushed only where the scan never drops a row Cypher keeps (numbers and
 * strings for ranges; numbers, strings and booleans for equality; never null). Where the
 * scan's comparison is also Cypher's exactly (any comparison with a number, equality with
 * a string or boolean) the conjunct is answered and leaves the filter; string ranges stay
 * in it too, since the scan orders strings by UTF-16 unit and Cypher by code point.
 */
function pushedDown(name: string, conjuncts: readonly Expr[], answered: Set<Expr>): Predicate[] {
  const path = '$';
  const out: Predicate[] = [];
  for (const c of conjuncts) {
    if (c.kind !== 'comparison' || c.ops.length !== 1 || c.ops[0] === '<>') continue;
    const op = c.ops[0]!;
    const [a, b] = c.operands as [Expr, Expr];
    const [prop, value, written] = a.kind === 'property' ? [a, b, op] : [b, a, FLIPPED[op]];
    if (prop.kind !== 'property' || prop.object.kind !== 'variable' || prop.object.name !== name || prop.key.name.startsWith('$')) continue;
    const ranged = value.kind === 'integer' || value.kind === 'float' || value.kind === 'string';
    if (!ranged && !(value.kind === 'boolean' && written === '=')) continue;
    if (value.kind === 'integer' || value.kind === 'float' || written === '=') answered.add(c);
    out.push({
      p: 'compare',
      op: SCAN_OPS[written],
      left: { e: 'property', name: prop.key.name, path },
      right: { e: 'constant', value: value.value, path },
      path,
    });
  }
  return out;
}

/** The AND-ed parts of a WHERE expression. */
function conjunctsOf(e: Expr): Expr[] {
  if (e.kind === 'binary' && e.op === 'and') return [...conjunctsOf(e.left), ...conjunctsOf(e.right)];
  return [e];
}

/** `p = shortestPath((a)-[*..n]->(b))`: both ends bound first (scans when new), then the search. */
function lowerShortest(input: TableNode, part: PatternPart, l: Lowering): TableNode {
  let plan = matchNode(input, part.nodes[0]!, l, [], new Set());
  const from = slotOf(l, part.nodes[0]!);
  plan = matchNode(plan, part.nodes[1]!, l, [], new Set());
  const to = slotOf(l, part.nodes[1]!);
  const r = part.relationships[0]!;
  const rel = bind(l, r.variable?.name ?? null, 'rels');
  const path = bind(l, part.variable?.name ?? null, 'path');
  return {
    t: 'shortest_path',
    input: plan,
    from,
    to,
    path: path.slot,
    rel: rel.slot,
    types: r.types.map((t) => t.name),
    direction: direction(r),
    min: r.length?.min === null || r.length === null ? 1 : Number(r.length.min),
    max: r.length === null ? 1 : r.length.max === null ? null : Number(r.length.max),
    all: part.shortest === 'allShortestPaths',
  };
}

/**
 * CREATE (and MERGE's creating half): new nodes with their one label (or none, D22), new
 * relationships with their type and direction; bound nodes are reused.
 */
export function lowerCreatePattern(parts: readonly PatternPart[], l: Lowering): CreatePattern {
  const nodes: CreateNode[] = [];
  const rels: CreateRel[] = [];
  const paths: { slot: number; elements: number[] }[] = [];
  for (const part of parts) {
    const elements: number[] = [];
    const nodeSlots = part.nodes.map((n) => {
      const [props, propertyMap] = createProperties(n.properties, l);
      const b = bind(l, n.variable?.name ?? null, 'node');
      if (!b.bound || !nodes.some((c) => c.slot === b.slot))
        nodes.push({ slot: b.slot, label: n.labels[0]?.name ?? '', properties: props, propertyMap, bound: b.bound });
      return b.slot;
    });
    elements.push(nodeSlots[0]!);
    part.relationships.forEach((r, i) => {
      const [props, propertyMap] = createProperties(r.properties, l);
      const b = bind(l, r.variable?.name ?? null, 'rel');
      const [from, to] = r.direction === 'left' ? [nodeSlots[i + 1]!, nodeSlots[i]!] : [nodeSlots[i]!, nodeSlots[i + 1]!];
      rels.push({ slot: b.slot, type: r.types[0]?.name ?? '', from, to, properties: props, propertyMap });
      elements.push(b.slot, nodeSlots[i + 1]!);
    });
    if (part.variable !== null) paths.push({ slot: bind(l, part.variable.name, 'path').slot, elements });
  }
  return { nodes, rels, paths };
}
