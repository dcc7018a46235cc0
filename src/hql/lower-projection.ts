/**
 * Projections (reference §4.4): `::{a, alias: b, ..}`, closures `::|item|{...}`, computed
 * fields (nested traversals from `_`, from an enclosing item or from a variable, math,
 * EXISTS), nested `{...}` objects, variables and items as values, as /v2/query `project`
 * items, and how each projected value is shown.
 */
import type { Expr, ProjectionStep, Step } from './ast.js';
import type { SourcePos } from './lexer.js';
import {
  aliasOf,
  elementItems,
  lookup,
  nestedTraversal,
  outerScope,
  propertyOf,
  traversalStart,
  shows,
  singleField,
  withInput,
  type ElementTy,
  type ItemScope,
  type Lowered,
  type Lowering,
} from './lower-context.js';
import { existsExpr } from './lower-condition.js';
import { literal, mathCall } from './lower-value.js';
import { CompileError, describeTy } from './types.js';
import type { HqlNested } from '../plan/hql-format.js';
import { constant, CONTEXT, ID_EXPR, not, compare, op, param, projectItem, type Wire } from './wire-build.js';

/** A projected value: its expression, the property it reads (for the spread), where the response shows bare values. */
interface Projected {
  readonly expr: Wire;
  readonly source: string | null;
  /** Paths below this field to the keys of one-key objects shown as bare values (nested property accesses). */
  readonly plucks?: Readonly<Record<string, HqlNested>>;
}

export function lowerProjection(l: Lowering, state: Lowered, el: ElementTy, step: ProjectionStep): Lowered {
  const pluck = step.closure === null && !step.spread ? singleField(step) : null;
  const { items, nested } = projectionItems(l, el, step);
  const root = op('project', { input: state.root, projections: items });
  if (pluck !== null) {
    const { type } = propertyOf(l, el, pluck.text, pluck.pos);
    const value = type === null ? undefined : { type, entry: aliasOf(items[0]!) };
    return {
      root,
      ty: { k: 'shaped', single: el.single, what: 'property values', ...(value === undefined ? {} : { value }) },
      show: shows({ unwrap: el.single ? 'one' : 'list', pluck: aliasOf(items[0]!) }),
    };
  }
  const show = Object.keys(nested).length > 0 ? { ...state.show, nested } : state.show;
  return { root, ty: { k: 'shaped', single: el.single, what: 'objects' }, show };
}

/** The `project` items of a projection step on `el`, and the nested property accesses shown bare (alias path to key). */
function projectionItems(l: Lowering, el: ElementTy, step: ProjectionStep): { items: Wire[]; nested: Record<string, HqlNested> } {
  if (step.fields.length === 0) throw new CompileError(step.pos, 'a projection lists at least one field');
  const items: Wire[] = [];
  const used = new Set<string>();
  const aliases = new Set<string>();
  const nested: Record<string, HqlNested> = {};
  const frame: ItemScope | null =
    step.closure === null ? null : { name: step.closure.text, el, level: l.expressionLevel, stored: null, uses: 0 };
  if (frame !== null) l.items.push(frame);
  try {
    for (const f of step.fields) {
      const alias = f.name.text === 'ID' && f.value === null ? 'id' : f.name.text;
      if (aliases.has(alias)) throw new CompileError(f.name.pos, `"${alias}" appears twice in this projection`);
      aliases.add(alias);
      const uses = frame?.uses ?? 0;
      const made = projectedValue(l, f.name.text, f.name.pos, f.value, el, step.closure?.text ?? null);
      if (made.source !== null) used.add(made.source);
      for (const [path, key] of Object.entries(made.plucks ?? {})) nested[path === '' ? alias : `${alias}.${path}`] = key;
      // Deeper traversals of this value start from the item: its traversal expressions store it first.
      const expr = frame !== null && frame.uses > uses ? storingItem(made.expr, frame.stored!) : made.expr;
      items.push(projectItem(alias, expr));
    }
  } finally {
    if (frame !== null) l.items.pop();
  }
  if (step.spread) {
    for (const item of elementItems(l, el)) {
      const name = aliasOf(item);
      if (!used.has(name) && !aliases.has(name)) items.push(item);
    }
  }
  return { items, nested };
}

/**
 * `expr` with each of its traversal expressions storing the row it starts from (the
 * current item) in the variable `name` before it runs, for the traversals from the item
 * nested inside it (read back with `select`). Evaluation is depth first, so every read
 * sees the item of its own enclosing row.
 */
function storingItem(expr: Wire, name: string): Wire {
  if (typeof expr !== 'object' || expr === null) return expr;
  if (Array.isArray(expr)) return expr.map((x: Wire) => storingItem(x, name)) as unknown as Wire;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(expr)) {
    if (key === 'traversal' && typeof value === 'object' && value !== null && 'root' in value) {
      const t = value as { root: Wire };
      out[key] = { ...t, root: withInput(t.root, op('as', { input: CONTEXT, name })) };
    } else out[key] = storingItem(value as Wire, name);
  }
  return out;
}

/** The whole elements of `root` as objects: id, label (edges: ends), then every declared field. */
export function elementObjects(l: Lowering, root: Wire, el: ElementTy): Wire {
  return op('project', { input: root, projections: elementItems(l, el) });
}

/** One field of a projection. */
function projectedValue(
  l: Lowering,
  name: string,
  pos: SourcePos,
  value: Expr | ProjectionStep | null,
  el: ElementTy,
  closure: string | null,
): Projected {
  if (value === null) return { expr: propertyOf(l, el, name, pos).expr, source: name === 'ID' ? 'id' : name };
  if (value.kind === 'project') {
    // A nested object of fields of the same element: a projection of the current row alone, its one object.
    const { items, nested } = projectionItems(l, el, { ...value, closure: null });
    return {
      expr: { traversal: { root: op('project', { input: CONTEXT, projections: items }), first: true } },
      source: null,
      plucks: nested,
    };
  }
  if (value.kind === 'literal') return { expr: constant(literal(value.value, null, value.pos)), source: null };
  if (value.kind === 'math') return { expr: mathCall(value, (arg) => mathArg(l, arg, el, closure)), source: null };
  if (value.kind === 'exists') {
    const test = existsExpr(l, value, el);
    return {
      expr: value.negated
        ? {
            case: {
              when_then: [{ when: not(compare('eq', test, constant({ bool: true }))), then: constant({ bool: true }) }],
              else_expr: constant({ bool: false }),
            },
          }
        : test,
      source: null,
    };
  }
  if (value.kind === 'object') throw new CompileError(value.pos, 'a projected object lists fields: {name, alias: value, ...}');
  if (value.kind !== 'traversal')
    throw new CompileError(value.pos, 'a projected field takes a property, a traversal, a variable, a literal or a math function');
  const src = value.source;
  if (src.kind === 'var' && value.steps.length === 0) {
    const n = src.name.text;
    if (n === 'ID' || n === 'id') return { expr: ID_EXPR, source: 'id' };
    // `|item|{self: item}`: the current element, whole.
    if (n === closure) return { expr: { traversal: { root: elementObjects(l, CONTEXT, el), first: true } }, source: null };
    const v = l.scope.get(n);
    if (v?.ty.k === 'param') return { expr: param(n), source: null };
    if (v !== undefined) return variableValue(l, n, v.ty.k === 'element' ? v.ty : null, v.show.pluck, v.ty.single);
    if (outerScope(l, n) !== undefined) {
      // `|p|{author: u}` deeper down: the enclosing item, whole.
      const start = traversalStart(l, n, src.pos)!;
      return { expr: { traversal: { root: elementObjects(l, start.root, start.el), first: true } }, source: null };
    }
    return { expr: propertyOf(l, el, n, src.pos).expr, source: n };
  }
  // `_::...` or `item::...` inside `|item|{...}`: a traversal from the element itself.
  const fromCurrent = src.kind === 'anon' || (src.kind === 'var' && src.name.text === closure);
  if (!fromCurrent && src.kind === 'var') {
    const outer = outerItem(l, src.name.text, value.steps);
    if (outer !== null) return { expr: outer, source: null };
    // `posts: posts::{title}`: a traversal from a variable of the query, the same for every
    // element; `u::Out<Wrote>` deeper inside `|u|{...}`: a traversal from the enclosing item.
    const start = traversalStart(l, src.name.text, src.pos);
    if (start === null) {
      const v = lookup(l, src.name.text, src.pos);
      throw new CompileError(src.pos, `"${src.name.text}" is ${describeTy(v.ty)}; steps start from nodes, edges or vectors`);
    }
    const anon = { ...value, source: { kind: 'anon' as const, pos: src.pos } };
    return { ...nestedValue(l, anon, start.el, start.root), source: null };
  }
  if (!fromCurrent) throw new CompileError(src.pos, 'a projected traversal starts from "_", an item or a variable');
  const first = value.steps[0];
  if (value.steps.length === 1 && first!.kind === 'ID') return { expr: ID_EXPR, source: 'id' };
  if (value.steps.length === 1 && first!.kind === 'project') {
    const only = singleField(first);
    if (only !== null) return { expr: propertyOf(l, el, only.text, only.pos).expr, source: only.text };
  }
  const anon = { ...value, source: { kind: 'anon' as const, pos: src.pos } };
  return { ...nestedValue(l, anon, { ...el, single: true }, null), source: null };
}

/**
 * A variable of the query as a projected value, the same for every element: its elements
 * whole, its count, its values (read with `select` inside a traversal expression).
 */
function variableValue(l: Lowering, name: string, el: ElementTy | null, pluck: string | null, single: boolean): Projected {
  const selected = op('select', { input: CONTEXT, name });
  const root = el === null ? selected : elementObjects(l, selected, el);
  return { expr: { traversal: { root, first: single } }, source: null, ...(pluck === null ? {} : { plucks: { '': pluck } }) };
}

/**
 * `item::ID` or `item::{property}` of an enclosing `|item|` scope, read through an
 * `outer` expression: its depth is the number of traversal expressions between that
 * scope and here. Null when `name` names no enclosing scope, or for a traversal from it.
 */
function outerItem(l: Lowering, name: string, steps: readonly Step[]): Wire | null {
  const frame = outerScope(l, name);
  if (frame === undefined) return null;
  const depth = l.expressionLevel - frame.level;
  const first = steps[0];
  let property: string | null = null;
  if (steps.length === 1 && first!.kind === 'ID') property = '$id';
  if (steps.length === 1 && first!.kind === 'project') {
    const only = singleField(first);
    if (only !== null) {
      const { expr } = propertyOf(l, frame.el, only.text, only.pos);
      property = expr === ID_EXPR ? '$id' : (expr as { property: string }).property;
    }
  }
  return property === null ? null : { outer: { depth, property } };
}

/**
 * A traversal from the element (or, with `start`, from a variable's elements), shown
 * inside a projection as the value it would be returned as. A property access at its end
 * comes back as one-key objects; `plucks` names the key the response shows bare.
 */
function nestedValue(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, from: ElementTy, start: Wire | null): Omit<Projected, 'source'> {
  const sub = nestedTraversal(l, e, from);
  const rooted = start === null ? sub.root : withInput(sub.root, start);
  if (sub.show.unwrap === 'count') return { expr: { traversal: { root: rooted } } };
  // `topics: _::Out<Wrote>::GROUP_BY(topic)`: the projected rows, grouped as the response is written.
  if (sub.show.group !== null) return { expr: { traversal: { root: rooted } }, plucks: { '': sub.show.group } };
  const root = sub.ty.k === 'element' ? elementObjects(l, rooted, sub.ty) : rooted;
  const expr = { traversal: { root, first: sub.show.unwrap === 'one' } };
  const plucks: Record<string, HqlNested> = {};
  if (sub.show.pluck !== null) plucks[''] = sub.show.pluck;
  // `route: _::ShortestPath<Road>::To(x)`: the path (null for none), or the paths, shown with their elements whole.
  if (sub.show.path !== null) plucks[''] = sub.show.path;
  for (const [path, key] of Object.entries(sub.show.nested ?? {})) plucks[path] = key;
  return Object.keys(plucks).length === 0 ? { expr } : { expr, plucks };
}

function mathArg(l: Lowering, arg: Expr, el: ElementTy, closure: string | null): Wire {
  if (arg.kind === 'literal' && (typeof arg.value === 'bigint' || typeof arg.value === 'number'))
    return constant(literal(arg.value, null, arg.pos));
  if (arg.kind === 'math') return mathCall(arg, (x) => mathArg(l, x, el, closure));
  return projectedValue(l, '', arg.pos, arg, el, closure).expr;
}
