/**
 * Traversals (reference §4.1, §4.2, §4.4): a source (`N<T>`, `E<T>(id)`, a variable, `_`,
 * a creation) and its steps, each checked against the static type of what flows into it
 * and lowered to the /v2/query operation it means.
 */
import type { Expr, IdArg, Step } from './ast.js';
import {
  aliasOf,
  checkNothingAfterUpsert,
  elementItems,
  elementType,
  field,
  implicitFields,
  lookup,
  LIST,
  ONE,
  propertyExpr,
  typeOf,
  type ElementTy,
  type Lowered,
  type Lowering,
} from './lower-context.js';
import { orderProperty } from './lower-condition.js';
import { assignments, bound, valueExpr } from './lower-value.js';
import { integerRange, type EdgeType } from './schema.js';
import { CompileError, describeTy, typeText, type ElementKind, type Ty } from './types.js';
import { and, compare, CONTEXT, ID_EXPR, labelIs, op, projectItem, property, type Wire } from './wire-build.js';

/**
 * Lowers a traversal. `current` is the element `_` stands for inside WHERE, projections
 * and nested traversals (their root is then `context`); null at the top of a statement.
 */
export function lowerTraversal(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, current: Ty | null): Lowered {
  checkNothingAfterUpsert(e.steps);
  let state = source(l, e, current);
  for (const s of e.steps) state = step(l, state, s, current);
  return state;
}

function source(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, current: Ty | null): Lowered {
  const s = e.source;
  switch (s.kind) {
    case 'anon':
      if (current === null)
        throw new CompileError(
          s.pos,
          '"_" stands for the current element and only has a meaning inside WHERE, ORDER, projections and nested traversals',
        );
      return { root: CONTEXT, ty: current, show: current.k === 'element' && current.single ? ONE : LIST };
    case 'var': {
      const v = lookup(l, s.name.text, s.name.pos);
      if (current !== null)
        throw new CompileError(s.pos, `a nested traversal starts from "_", not from the variable "${s.name.text}" (not supported yet)`);
      if (v.ty.k !== 'element') throw new CompileError(s.pos, `"${s.name.text}" is ${describeTy(v.ty)}; steps start from nodes or edges`);
      const reference = { var: s.name.text };
      return { root: op(v.ty.kind === 'node' ? 'nodes' : 'edges', { reference }), ty: v.ty, show: v.ty.single ? ONE : LIST };
    }
    case 'N':
    case 'E': {
      if (current !== null)
        throw new CompileError(s.pos, `${s.kind}<...> starts a traversal of its own; a nested traversal starts from "_"`);
      if (s.type === null) throw new CompileError(s.pos, `${s.kind} needs a type: ${s.kind}<Type>`);
      const kind: ElementKind = s.kind === 'N' ? 'node' : 'edge';
      const t = elementType(l, kind, s.type.text, s.type.pos);
      if (s.lookup !== null) {
        if (kind !== 'node') throw new CompileError(s.lookup.field.pos, 'E<T>({field: value}) is not a lookup; filter with WHERE');
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
        const byId = op(kind === 'node' ? 'nodes' : 'edges', { reference, missing: 'error' });
        return {
          root: op(kind === 'node' ? 'has_label' : 'edge_has_label', { input: byId, label: t.name }),
          ty: { k: 'element', kind, type: t.name, single: true },
          show: ONE,
        };
      }
      return {
        root: op(kind === 'node' ? 'nodes_where' : 'edges_where', { predicate: labelIs(t.name) }),
        ty: { k: 'element', kind, type: t.name, single: false },
        show: LIST,
      };
    }
    case 'V':
    case 'AddV':
    case 'SearchV':
    case 'SearchBM25':
      throw new CompileError(s.pos, `${s.kind} is not supported yet: vector and text search come with Trellis's indexes`);
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
      const single = isSingleEnd(l, s.from) && isSingleEnd(l, s.to);
      return {
        root: op('add_e', {
          input: from,
          label: t.name,
          to: idReference(l, s.to, 'node'),
          properties: assignments(l, t, s.fields, true),
        }),
        ty: { k: 'element', kind: 'edge', type: t.name, single },
        show: single ? ONE : LIST,
      };
    }
  }
}

export function isSingleEnd(l: Lowering, arg: IdArg): boolean {
  if (arg.kind === 'literal') return true;
  const v = l.scope.get(arg.name.text);
  return v === undefined || v.ty.k !== 'element' || v.ty.single;
}

/** What `N<T>(x)`, `::From(x)` and `::To(x)` address: an ID parameter, a variable of nodes, or a literal id. */
export function idReference(l: Lowering, arg: IdArg, kind: ElementKind): Wire {
  if (arg.kind === 'literal') {
    if (!/^[0-9]+$/.test(arg.value) || BigInt(arg.value) >= 2n ** 64n)
      throw new CompileError(arg.pos, `"${arg.value}" is not an id: Trellis ids are non-negative integers`);
    return { ids: [BigInt(arg.value)] };
  }
  const name = arg.name.text;
  const v = lookup(l, name, arg.name.pos);
  if (v.ty.k === 'param') {
    const t = v.ty.type;
    if (t.kind !== 'primitive' || (t.name !== 'ID' && integerRange(t.name) === undefined)) {
      throw new CompileError(arg.name.pos, `"${name}" is a parameter of type ${typeText(t)}; an id is an ID parameter`);
    }
    return { param: name };
  }
  if (v.ty.k === 'element' && v.ty.kind === kind) return { var: name };
  throw new CompileError(arg.name.pos, `"${name}" is ${describeTy(v.ty)}, not ${kind === 'node' ? 'nodes' : 'edges'} or an ID`);
}

function step(l: Lowering, state: Lowered, s: Step, current: Ty | null): Lowered {
  const ty = state.ty;
  const needElement = (what: string): ElementTy => {
    if (ty.k !== 'element') throw new CompileError(s.pos, `${what} applies to nodes or edges, not to ${describeTy(ty)}`);
    return ty;
  };
  switch (s.kind) {
    case 'hop': {
      const el = needElement(`::${s.dir}`);
      const edge = elementType(l, 'edge', s.edge.text, s.edge.pos) as EdgeType;
      if (el.kind !== 'node') throw new CompileError(s.pos, `::${s.dir}<${edge.name}> starts from nodes, not from ${describeTy(el)}`);
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
      if (!toEdges && l.schema.nodes.get(far)?.kind !== 'node') {
        throw new CompileError(s.edge.pos, `edge "${edge.name}" leads to "${far}", which is not a node type`);
      }
      const wireOp = { Out: 'out', In: 'in', OutE: 'out_e', InE: 'in_e' }[s.dir];
      const next: Ty = toEdges
        ? { k: 'element', kind: 'edge', type: edge.name, single: false }
        : { k: 'element', kind: 'node', type: outward ? edge.to : edge.from, single: false };
      return { root: op(wireOp, { input: state.root, label: edge.name }), ty: next, show: LIST };
    }
    case 'endpoint': {
      const el = needElement(`::${s.which}`);
      if (s.which === 'FromV' || s.which === 'ToV')
        throw new CompileError(s.pos, `::${s.which} is not supported yet: vectors come with Trellis's indexes`);
      if (el.kind !== 'edge') throw new CompileError(s.pos, `::${s.which} applies to edges, not to ${describeTy(el)}`);
      const edge = l.schema.edges.get(el.type)!;
      const type = s.which === 'FromN' ? edge.from : edge.to;
      return {
        root: op(s.which === 'FromN' ? 'in_n' : 'out_n', { input: state.root }),
        ty: { k: 'element', kind: 'node', type, single: el.single },
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
        ty: { k: 'shaped', single: true, what: 'a count' },
        show: { unwrap: 'count', pluck: null, nested: null, element: null, group: null },
      };
    case 'ID': {
      const el = needElement('::ID');
      return {
        root: op('project', { input: state.root, projections: [projectItem('id', ID_EXPR)] }),
        ty: { k: 'shaped', single: el.single, what: 'ids' },
        show: { unwrap: el.single ? 'one' : 'list', pluck: 'id', nested: null, element: null, group: null },
      };
    }
    case 'FIRST': {
      if (ty.k === 'param' || (ty.k === 'shaped' && state.show.unwrap === 'count'))
        throw new CompileError(s.pos, `FIRST applies to a list, not to ${describeTy(ty)}`);
      const root = op('limit', { input: state.root, count: { literal: 1 } });
      return { root, ty: { ...ty, single: true }, show: { ...state.show, unwrap: 'one' } };
    }
    case 'range': {
      if (ty.k === 'param' || state.show.unwrap === 'count' || state.show.group !== null)
        throw new CompileError(s.pos, `RANGE applies to a list, not to ${describeTy(ty)}`);
      const root = op('range', { input: state.root, start: bound(l, s.start, 'start'), end: bound(l, s.end, 'end') });
      return { root, ty: { ...ty, single: false }, show: { ...state.show, unwrap: 'list' } };
    }
    case 'order': {
      const el = needElement('ORDER');
      const by = orderProperty(l, s.by, el);
      return {
        root: op('order_by', { input: state.root, property: by, order: s.desc ? 'desc' : 'asc' }),
        ty: { ...el, single: false },
        show: LIST,
      };
    }
    case 'group': {
      const el = needElement(s.aggregate ? 'AGGREGATE_BY' : 'GROUP_BY');
      const t = typeOf(l, el);
      const properties = s.properties.map((p) => {
        if (p.text === 'id' || p.text === 'label') return p.text;
        return field(t, p.text, p.pos).name.text;
      });
      const items = s.aggregate ? elementItems(l, el) : properties.map((p) => projectItem(p, propertyExpr(p, el)));
      return {
        root: op('project', { input: state.root, projections: items }),
        ty: { k: 'shaped', single: false, what: 'groups' },
        show: { unwrap: 'list', pluck: null, nested: null, element: null, group: { properties, aggregate: s.aggregate } },
      };
    }
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
      // A statement ending in an upsert is lowered by lowerUpsert; anywhere else it has no place.
      if (current !== null) throw new CompileError(s.pos, `${s.which} cannot be nested in another traversal`);
      throw new CompileError(s.pos, `${s.which} is a statement of its own: assign it (x <- ...::${s.which}(...)) and return the variable`);
    case 'intersect':
      throw new CompileError(s.pos, 'INTERSECT is not supported yet');
    case 'unsupported':
      throw new CompileError(s.pos, `${s.what} is not supported yet`);
  }
}
