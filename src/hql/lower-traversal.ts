/**
 * Traversals (reference §4.1, §4.2, §4.4): a source (`N<T>`, `E<T>(id)`, `V<T>`, a
 * variable, `_`, a creation, a search) and its steps, each checked against the static
 * type of what flows into it and lowered to the /v2/query operation it means.
 */
import type { Expr, IdArg, Step } from './ast.js';
import {
  aliasOf,
  checkNothingAfterUpsert,
  COUNT,
  COUNT_TYPE,
  elementItems,
  elementType,
  field,
  hiddenName,
  ID_TYPE,
  idReference,
  implicitFields,
  kindOfType,
  lookup,
  LIST,
  ONE,
  propertyExpr,
  shows,
  stored,
  traversalStart,
  typeOf,
  withInput,
  type ElementTy,
  type Lowered,
  type Lowering,
} from './lower-context.js';
import { orderKey } from './lower-condition.js';
import { lowerPath } from './lower-path.js';
import {
  lowerAddV,
  lowerBatchAddV,
  lowerRerank,
  lowerSearchBM25,
  lowerSearchHybrid,
  lowerSearchStep,
  lowerSearchV,
} from './lower-search.js';
import { assignments, bound, valueExpr } from './lower-value.js';
import type { EdgeType } from './schema.js';
import { CompileError, describeTy, type ElementKind, type Ty } from './types.js';
import { and, compare, constant, CONTEXT, ID_EXPR, labelIs, not, op, projectItem, property, type Wire } from './wire-build.js';

/**
 * Lowers a traversal. `current` is the element `_` stands for inside WHERE, projections
 * and nested traversals (their root is then `context`); null at the top of a statement.
 */
export function lowerTraversal(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, current: Ty | null): Lowered {
  checkNothingAfterUpsert(e.steps);
  const counted = pathCount(l, e);
  if (counted !== null) return counted;
  let steps = e.steps;
  let state: Lowered;
  // `SearchV<T>(vec, k)::PREFILTER(cond)`: the condition takes part in the search.
  if (e.source.kind === 'SearchV' && steps[0]?.kind === 'prefilter') {
    if (e.source.prefilter !== null) throw new CompileError(steps[0].pos, 'this SearchV has a PREFILTER already');
    state = source(l, { ...e, source: { ...e.source, prefilter: steps[0].condition } }, current);
    steps = steps.slice(1);
  } else state = source(l, e, current);
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    // `::COUNT::GROUP_BY(...)` / `::COUNT::AGGREGATE_BY(...)`: count mode, counts per group.
    const next = steps[i + 1];
    if (s.kind === 'COUNT' && next?.kind === 'group') {
      state = group(l, state, next, true);
      i++;
      continue;
    }
    state = step(l, state, s, current);
  }
  return state;
}

/**
 * `path::COUNT`, `path` a variable of shortest paths: how many paths it holds: 1 or 0 for
 * a path from one node (a query that asks whether a path exists; v1 typed paths Unknown
 * and answered 404 when there was none, counted Trellis answers 0), one per start node
 * that has a path for paths from several. Null for any other traversal.
 */
function pathCount(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>): Lowered | null {
  if (e.source.kind !== 'var' || e.steps.length !== 1 || e.steps[0]!.kind !== 'COUNT') return null;
  const v = l.scope.get(e.source.name.text);
  if (v?.ty.k !== 'shaped' || v.show.path === null || v.show.path === undefined) return null;
  return {
    root: op('count', { input: op('inject', { variable: e.source.name.text }) }),
    ty: { k: 'shaped', single: true, what: 'a count', value: { type: COUNT_TYPE, entry: null } },
    show: COUNT,
  };
}

function source(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, current: Ty | null): Lowered {
  const s = e.source;
  const nested = (what: string) => {
    if (current !== null) throw new CompileError(s.pos, `${what} starts a traversal of its own; a nested traversal starts from "_"`);
  };
  switch (s.kind) {
    case 'anon':
      if (current === null)
        throw new CompileError(
          s.pos,
          '"_" stands for the current element and only has a meaning inside WHERE, ORDER, projections and nested traversals',
        );
      return { root: CONTEXT, ty: current, show: current.k === 'element' && current.single ? ONE : LIST };
    case 'var': {
      if (current !== null) {
        // Inside WHERE, EXISTS or a projection: from an enclosing |item|, or a variable's elements.
        const start = traversalStart(l, s.name.text, s.name.pos);
        if (start === null)
          throw new CompileError(
            s.pos,
            `"${s.name.text}" is ${describeTy(lookup(l, s.name.text, s.name.pos).ty)}; steps start from nodes, edges or vectors`,
          );
        return { root: start.root, ty: start.el, show: start.el.single ? ONE : LIST };
      }
      const v = lookup(l, s.name.text, s.name.pos);
      if (v.ty.k !== 'element')
        throw new CompileError(s.pos, `"${s.name.text}" is ${describeTy(v.ty)}; steps start from nodes, edges or vectors`);
      const reference = { var: s.name.text };
      return { root: op(stored(v.ty.kind) === 'node' ? 'nodes' : 'edges', { reference }), ty: v.ty, show: v.ty.single ? ONE : LIST };
    }
    case 'N':
    case 'E':
    case 'V': {
      nested(`${s.kind}<...>`);
      if (s.type === null) throw new CompileError(s.pos, `${s.kind} needs a type: ${s.kind}<Type>`);
      const kind: ElementKind = s.kind === 'N' ? 'node' : s.kind === 'E' ? 'edge' : 'vector';
      const t = elementType(l, kind, s.type.text, s.type.pos);
      const asNodes = stored(kind) === 'node';
      if (s.lookup !== null) {
        if (kind !== 'node') throw new CompileError(s.lookup.field.pos, `${s.kind}<T>({field: value}) is not a lookup; filter with WHERE`);
        const declared = field(t, s.lookup.field.text, s.lookup.field.pos);
        if (declared.index === 'none') {
          throw new CompileError(
            s.lookup.field.pos,
            `N<${t.name}>({${declared.name.text}: ...}) looks a node up by an indexed field, and "${declared.name.text}" is not INDEX or UNIQUE INDEX`,
          );
        }
        const value = valueExpr(l, s.lookup.value, declared.type);
        const where = op('nodes_where', { predicate: and([labelIs(t.name), compare('eq', property(declared.name.text), value)]) });
        return {
          root: op('limit', { input: where, count: { literal: 1 } }),
          ty: { k: 'element', kind, type: t.name, single: true },
          show: ONE,
        };
      }
      if (s.id !== null) {
        const reference = idReference(l, s.id, kind);
        const byId = op(asNodes ? 'nodes' : 'edges', { reference, missing: 'error' });
        // One element, unless a variable of many ids names them (`ids <- users::ID`).
        const single = isSingleEnd(l, s.id);
        return {
          root: op(asNodes ? 'has_label' : 'edge_has_label', { input: byId, label: t.name }),
          ty: { k: 'element', kind, type: t.name, single },
          show: single ? ONE : LIST,
        };
      }
      return {
        root: op(asNodes ? 'nodes_where' : 'edges_where', { predicate: labelIs(t.name) }),
        ty: { k: 'element', kind, type: t.name, single: false },
        show: LIST,
      };
    }
    case 'AddV':
      nested('AddV');
      return lowerAddV(l, s.type, s.vector, s.fields);
    case 'BatchAddV':
      nested('BatchAddV');
      return lowerBatchAddV(l, s.type, s.items, s.pos);
    case 'SearchV':
      nested('SearchV');
      return lowerSearchV(l, s.type, s.vector, s.k, s.prefilter);
    case 'SearchBM25':
      nested('SearchBM25');
      return lowerSearchBM25(l, s.type, s.text, s.k, s.pos);
    case 'SearchHybrid':
      nested('SearchHybrid');
      return lowerSearchHybrid(l, s.type, s.vector, s.text, s.k, s.pos);
    case 'AddN': {
      if (current !== null) throw new CompileError(s.pos, 'AddN cannot be nested in another traversal');
      const t = elementType(l, 'node', s.type.text, s.type.pos);
      l.write = true;
      return {
        root: op('add_n', { label: t.name, properties: assignments(l, t, s.fields, true) }),
        ty: { k: 'element', kind: 'node', type: t.name, single: true },
        show: ONE,
      };
    }
    case 'AddE': {
      if (current !== null) throw new CompileError(s.pos, 'AddE cannot be nested in another traversal');
      const t = elementType(l, 'edge', s.type.text, s.type.pos) as EdgeType;
      if (s.from === null) throw new CompileError(s.pos, `AddE<${t.name}> needs ::From(node)`);
      if (s.to === null) throw new CompileError(s.pos, `AddE<${t.name}> needs ::To(node)`);
      l.write = true;
      const from = op('nodes', { reference: idReference(l, s.from, 'node'), missing: 'error' });
      const to = idReference(l, s.to, 'node');
      const single = isSingleEnd(l, s.from) && isSingleEnd(l, s.to);
      return {
        root: op('add_e', {
          input: whenTargets(from, to),
          label: t.name,
          to,
          properties: assignments(l, t, s.fields, true),
        }),
        ty: { k: 'element', kind: 'edge', type: t.name, single },
        show: single ? ONE : LIST,
      };
    }
  }
}

/**
 * AddE's sources, kept only when a variable of targets holds any: an empty `::To(x)` makes
 * no edge, as an empty `::From(x)` does (v1: one edge per pair), where `add_e` itself
 * refuses sources without targets. The test reads the variable's first id (null when empty).
 */
function whenTargets(from: Wire, to: Wire): Wire {
  const ref = to as { var?: string; variable?: Wire };
  const held = ref.var !== undefined ? { name: ref.var } : ref.variable;
  if (held === undefined) return from;
  return op('where', { input: from, predicate: compare('gte', { variable: held }, constant({ i64: 0n })) });
}

export function isSingleEnd(l: Lowering, arg: IdArg): boolean {
  if (arg.kind === 'literal') return true;
  const v = l.scope.get(arg.name.text);
  return v === undefined || v.ty.k === 'param' || v.ty.single;
}

function step(l: Lowering, state: Lowered, s: Step, current: Ty | null): Lowered {
  const ty = state.ty;
  const needElement = (what: string): ElementTy => {
    if (ty.k !== 'element') throw new CompileError(s.pos, `${what} applies to nodes, edges or vectors, not to ${describeTy(ty)}`);
    return ty;
  };
  switch (s.kind) {
    case 'hop': {
      const el = needElement(`::${s.dir}`);
      const edge = elementType(l, 'edge', s.edge.text, s.edge.pos) as EdgeType;
      if (el.kind === 'edge')
        throw new CompileError(s.pos, `::${s.dir}<${edge.name}> starts from nodes or vectors, not from ${describeTy(el)}`);
      const outward = s.dir === 'Out' || s.dir === 'OutE';
      const end = outward ? edge.from : edge.to;
      if (end !== el.type) {
        throw new CompileError(
          s.edge.pos,
          `edge "${edge.name}" goes from ${edge.from} to ${edge.to}, so ::${s.dir}<${edge.name}> cannot start from ${el.type}`,
        );
      }
      const toEdges = s.dir === 'OutE' || s.dir === 'InE';
      const far = outward ? edge.to : edge.from;
      const wireOp = { Out: 'out', In: 'in', OutE: 'out_e', InE: 'in_e' }[s.dir];
      const next: Ty = toEdges
        ? { k: 'element', kind: 'edge', type: edge.name, single: false }
        : { k: 'element', kind: kindOfType(l, far), type: far, single: false };
      return { root: op(wireOp, { input: state.root, label: edge.name }), ty: next, show: LIST };
    }
    case 'endpoint': {
      const el = needElement(`::${s.which}`);
      if (el.kind !== 'edge') throw new CompileError(s.pos, `::${s.which} applies to edges, not to ${describeTy(el)}`);
      const edge = l.schema.edges.get(el.type)!;
      const fromEnd = s.which === 'FromN' || s.which === 'FromV';
      const type = fromEnd ? edge.from : edge.to;
      const kind = kindOfType(l, type);
      const wanted = s.which.endsWith('V') ? 'vector' : 'node';
      if (kind !== wanted)
        throw new CompileError(
          s.pos,
          `::${s.which} goes to ${wanted}s, and edge "${edge.name}" ${fromEnd ? 'comes from' : 'goes to'} ${type}, a ${kind} type (use ::${fromEnd ? 'From' : 'To'}${kind === 'vector' ? 'V' : 'N'})`,
        );
      return {
        root: op(fromEnd ? 'in_n' : 'out_n', { input: state.root }),
        ty: { k: 'element', kind, type, single: el.single },
        show: state.show,
      };
    }
    case 'where': {
      const el = needElement('WHERE');
      return {
        root: op('where', { input: state.root, predicate: l.hooks.condition(l, s.condition, { ...el, single: true }) }),
        ty: el,
        show: state.show,
      };
    }
    case 'COUNT':
      needElement('COUNT');
      return {
        root: op('count', { input: state.root }),
        ty: { k: 'shaped', single: true, what: 'a count', value: { type: COUNT_TYPE, entry: null } },
        show: COUNT,
      };
    case 'ID': {
      const el = needElement('::ID');
      return {
        root: op('project', { input: state.root, projections: [projectItem('id', ID_EXPR)] }),
        ty: { k: 'shaped', single: el.single, what: 'ids', value: { type: ID_TYPE, entry: 'id' } },
        show: shows({ unwrap: el.single ? 'one' : 'list', pluck: 'id' }),
      };
    }
    case 'FIRST': {
      if (ty.k === 'param' || (ty.k === 'shaped' && state.show.unwrap === 'count'))
        throw new CompileError(s.pos, `FIRST applies to a list, not to ${describeTy(ty)}`);
      const root = op('limit', { input: state.root, count: { literal: 1 } });
      return { root, ty: { ...ty, single: true }, show: { ...state.show, unwrap: 'one' } };
    }
    case 'range': {
      if (ty.k === 'param' || state.show.unwrap === 'count' || state.show.group !== null || state.show.path !== null)
        throw new CompileError(s.pos, `RANGE applies to a list, not to ${describeTy(ty)}`);
      const root = op('range', { input: state.root, start: bound(l, s.start, 'start'), end: bound(l, s.end, 'end') });
      return { root, ty: { ...ty, single: false }, show: { ...state.show, unwrap: 'list' } };
    }
    case 'order': {
      const el = needElement('ORDER');
      const key = orderKey(l, s.by, el);
      return {
        root: op('order_by', { input: state.root, ...key, order: s.desc ? 'desc' : 'asc' }),
        ty: { ...el, single: false },
        show: LIST,
      };
    }
    case 'group':
      return group(l, state, s, false);
    case 'project':
      return l.hooks.projection(l, state, needElement('a projection'), s);
    case 'exclude': {
      const el = needElement('an exclusion');
      const t = typeOf(l, el);
      const excluded = new Set<string>();
      for (const f of s.fields) {
        if (excluded.has(f.text)) throw new CompileError(f.pos, `"${f.text}" is excluded twice`);
        if (!implicitFields(el.kind).includes(f.text)) field(t, f.text, f.pos);
        excluded.add(f.text);
      }
      const items = elementItems(l, el).filter((item) => !excluded.has(aliasOf(item)));
      if (items.length === 0) throw new CompileError(s.pos, 'this exclusion leaves nothing to show');
      return {
        root: op('project', { input: state.root, projections: items }),
        ty: { k: 'shaped', single: el.single, what: 'objects' },
        show: state.show,
      };
    }
    case 'update': {
      const el = needElement('UPDATE');
      if (current !== null) throw new CompileError(s.pos, 'UPDATE cannot be nested in another traversal');
      const t = typeOf(l, el);
      l.write = true;
      let root = state.root;
      for (const [name, value] of assignments(l, t, s.fields, false)) root = op('set_property', { input: root, name, value });
      return { root, ty: { ...el, single: true }, show: ONE };
    }
    case 'compare':
      throw new CompileError(s.pos, `${s.op} compares a value inside WHERE(...), for example WHERE(_::{age}::${s.op}(...))`);
    case 'upsert':
      // A statement ending in an upsert is lowered by lower-statement.ts; anywhere else it has no place.
      if (current !== null) throw new CompileError(s.pos, `${s.which} cannot be nested in another traversal`);
      throw new CompileError(s.pos, `${s.which} is a statement of its own: assign it (x <- ...::${s.which}(...)) and return the variable`);
    case 'intersect':
      return intersect(l, state, needElement('INTERSECT'), s);
    case 'search':
      return lowerSearchStep(l, state, s);
    case 'prefilter':
      throw new CompileError(s.pos, 'PREFILTER follows SearchV<T>(vector, k) directly; to filter other results, use WHERE');
    case 'rerankRRF':
    case 'rerankMMR':
      return lowerRerank(l, state, s);
    case 'path':
      return lowerPath(l, state, s);
    case 'unsupported':
      throw new CompileError(s.pos, `${s.what} is not supported yet`);
  }
}

/**
 * `::GROUP_BY(p, ...)` and `::AGGREGATE_BY(p, ...)`: the rows projected to the grouped
 * properties (or whole, to aggregate), grouped as the response is written (D17). In
 * count mode (`::COUNT::GROUP_BY`, `::COUNT::AGGREGATE_BY`) both give the counts of the
 * groups, `[{p: v, ..., count}]`.
 */
function group(l: Lowering, state: Lowered, s: Extract<Step, { kind: 'group' }>, countMode: boolean): Lowered {
  const ty = state.ty;
  if (ty.k !== 'element')
    throw new CompileError(
      s.pos,
      `${s.aggregate ? 'AGGREGATE_BY' : 'GROUP_BY'} applies to nodes, edges or vectors, not to ${describeTy(ty)}`,
    );
  const t = typeOf(l, ty);
  const properties = s.properties.map((p) => {
    if (p.text === 'id' || p.text === 'label') return p.text;
    return field(t, p.text, p.pos).name.text;
  });
  const aggregate = s.aggregate && !countMode;
  const items = aggregate ? elementItems(l, ty) : properties.map((p) => projectItem(p, propertyExpr(p, ty)));
  return {
    root: op('project', { input: state.root, projections: items }),
    ty: { k: 'shaped', single: false, what: 'groups' },
    show: shows({ unwrap: 'list', group: { properties, aggregate } }),
  };
}

/**
 * `::INTERSECT(_::step...)` (reference §4.3): the elements that the traversal reaches from
 * every incoming element, each once, in the order they are first reached. Lowered as the
 * elements reached from any incoming one (dedup) that no incoming one fails to reach: the
 * incoming elements are a hidden variable, read back inside the test with `select`. At the
 * top of a statement the variable is an entry of its own; inside a nested traversal, where
 * the incoming elements are those of the current element, the stream stores it (`as`) as
 * it passes, once per evaluation.
 */
function intersect(l: Lowering, state: Lowered, el: ElementTy, s: Extract<Step, { kind: 'intersect' }>): Lowered {
  const e = s.traversal;
  if (e.kind !== 'traversal' || e.source.kind !== 'anon')
    throw new CompileError(s.pos, 'INTERSECT takes a traversal from the current element, such as INTERSECT(_::Out<Follows>)');
  const sub = l.hooks.traversal(l, e, { ...el, single: true });
  if (sub.ty.k !== 'element')
    throw new CompileError(e.pos, `INTERSECT intersects nodes, edges or vectors; this traversal gives ${describeTy(sub.ty)}`);
  const inputs = hiddenName(l, 'from');
  let incoming: Wire;
  if (l.expressionLevel === 0) {
    l.pre.push({ query: { name: inputs, root: state.root } });
    incoming = op(stored(el.kind) === 'node' ? 'nodes' : 'edges', { reference: { var: inputs } });
  } else incoming = op('as', { input: state.root, name: inputs });
  const reached = op('dedup', { input: withInput(sub.root, incoming) });
  // Inside: from each incoming element (read back with select), does the traversal reach the candidate (two levels out)?
  const reaches = op('exists', {
    input: op('where', { input: sub.root, predicate: compare('eq', ID_EXPR, { outer: { depth: 2, property: '$id' } }) }),
  });
  const missing = op('where', {
    input: op('select', { input: CONTEXT, name: inputs }),
    predicate: not(compare('eq', { traversal: { root: reaches } }, constant({ bool: true }))),
  });
  const kept = compare('eq', { traversal: { root: op('exists', { input: missing }) } }, constant({ bool: false }));
  return { root: op('where', { input: reached, predicate: kept }), ty: { ...sub.ty, single: false }, show: LIST };
}
