/**
 * Projections (reference §4.4): `::{a, alias: b, ..}`, closures `::|item|{...}`, computed
 * fields (nested traversals from `_` or an enclosing item, math), as /v2/query `project`
 * items, and how each projected value is shown.
 */
import type { Expr, ProjectionStep, Step } from './ast.js';
import type { SourcePos } from './lexer.js';
import {
  aliasOf,
  elementItems,
  propertyOf,
  singleField,
  type ElementTy,
  type ItemScope,
  type Lowered,
  type Lowering,
} from './lower-context.js';
import { literal } from './lower-value.js';
import { CompileError, describeTy } from './types.js';
import { constant, ID_EXPR, op, param, projectItem, type Wire } from './wire-build.js';

export function lowerProjection(l: Lowering, state: Lowered, el: ElementTy, step: ProjectionStep): Lowered {
  if (step.fields.length === 0) throw new CompileError(step.pos, 'a projection lists at least one field');
  const pluck = step.closure === null && !step.spread ? singleField(step) : null;
  const items: Wire[] = [];
  const used = new Set<string>();
  const aliases = new Set<string>();
  const nested: Record<string, string> = {};
  if (step.closure !== null) l.items.push({ name: step.closure.text, el, level: l.expressionLevel });
  try {
    for (const f of step.fields) {
      const alias = f.name.text === 'ID' && f.value === null ? 'id' : f.name.text;
      if (aliases.has(alias)) throw new CompileError(f.name.pos, `"${alias}" appears twice in this projection`);
      aliases.add(alias);
      const { expr, source, pluck: inner } = projectedValue(l, f.name.text, f.name.pos, f.value, el, step.closure?.text ?? null);
      if (source !== null) used.add(source);
      if (inner !== undefined) nested[alias] = inner;
      items.push(projectItem(alias, expr));
    }
  } finally {
    if (step.closure !== null) l.items.pop();
  }
  if (step.spread) {
    for (const item of elementItems(l, el)) {
      const name = aliasOf(item);
      if (!used.has(name) && !aliases.has(name)) items.push(item);
    }
  }
  const root = op('project', { input: state.root, projections: items });
  if (pluck !== null) {
    return {
      root,
      ty: { k: 'shaped', single: el.single, what: 'property values' },
      show: { unwrap: el.single ? 'one' : 'list', pluck: aliasOf(items[0]!), nested: null, element: null, group: null },
    };
  }
  const show = Object.keys(nested).length > 0 ? { ...state.show, nested } : state.show;
  return { root, ty: { k: 'shaped', single: el.single, what: 'objects' }, show };
}

/** The whole elements of `root` as objects: id, label (edges: ends), then every declared field. */
export function elementObjects(l: Lowering, root: Wire, el: ElementTy): Wire {
  return op('project', { input: root, projections: elementItems(l, el) });
}

/** One field of a projection: its expression and the property it reads (for the spread). */
function projectedValue(
  l: Lowering,
  name: string,
  pos: SourcePos,
  value: Expr | ProjectionStep | null,
  el: ElementTy,
  closure: string | null,
): { expr: Wire; source: string | null; pluck?: string } {
  if (value === null) return { expr: propertyOf(l, el, name, pos).expr, source: name === 'ID' ? 'id' : name };
  if (value.kind === 'project') throw new CompileError(value.pos, 'a nested {...} object in a projection is not supported yet');
  if (value.kind === 'literal') return { expr: constant(literal(value.value, null, value.pos)), source: null };
  if (value.kind === 'math') return { expr: math(l, value, el, closure), source: null };
  if (value.kind !== 'traversal')
    throw new CompileError(value.pos, 'a projected field takes a property, a traversal from "_", a literal or a math function');
  const src = value.source;
  // `alias: property`, `alias: ID` or `alias: param`.
  if (src.kind === 'var' && value.steps.length === 0) {
    const n = src.name.text;
    if (n === 'ID' || n === 'id') return { expr: ID_EXPR, source: 'id' };
    const v = l.scope.get(n);
    if (v?.ty.k === 'param') return { expr: param(n), source: null };
    if (v !== undefined)
      throw new CompileError(src.pos, `"${n}" is ${describeTy(v.ty)}; showing a variable inside a projection is not supported yet`);
    return { expr: propertyOf(l, el, n, src.pos).expr, source: n };
  }
  // `_::...` or `item::...` inside `|item|{...}`: a traversal from the element itself.
  const fromCurrent = src.kind === 'anon' || (src.kind === 'var' && src.name.text === closure);
  if (!fromCurrent && src.kind === 'var') {
    const outer = outerItem(l, src.name.text, value.steps);
    if (outer !== null) return { expr: outer, source: null };
  }
  if (!fromCurrent) {
    throw new CompileError(
      src.pos,
      src.kind === 'var' ? `"${src.name.text}" is not an item of an enclosing |item| scope here` : 'a projected traversal starts from "_"',
    );
  }
  const first = value.steps[0];
  if (value.steps.length === 1 && first!.kind === 'ID') return { expr: ID_EXPR, source: 'id' };
  if (value.steps.length === 1 && first!.kind === 'project') {
    const only = singleField(first);
    if (only !== null) return { expr: propertyOf(l, el, only.text, only.pos).expr, source: only.text };
  }
  const anon = { ...value, source: { kind: 'anon' as const, pos: src.pos } };
  return { ...nestedValue(l, anon, el), source: null };
}

/**
 * `item::ID` or `item::{property}` of an enclosing `|item|` scope, read through an
 * `outer` expression: its depth is the number of traversal expressions between that
 * scope and here. Null when `name` names no enclosing scope.
 */
function outerItem(l: Lowering, name: string, steps: readonly Step[]): Wire | null {
  let frame: ItemScope | undefined;
  for (let i = l.items.length - 1; i >= 0 && frame === undefined; i--) if (l.items[i]!.name === name) frame = l.items[i];
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
  if (property === null) {
    const pos = first?.pos ?? l.query.name.pos;
    throw new CompileError(pos, `an outer item is read as ${name}::ID or ${name}::{property}; traversals from it are not supported yet`);
  }
  return { outer: { depth, property } };
}

/**
 * A traversal from the element, shown inside a projection as the value it would be
 * returned as. A property access at its end comes back as one-key objects; `pluck`
 * names the key the response shows the bare values of.
 */
function nestedValue(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, el: ElementTy): { expr: Wire; pluck?: string } {
  l.expressionLevel++;
  let sub: Lowered;
  try {
    sub = l.hooks.traversal(l, e, { ...el, single: true });
  } finally {
    l.expressionLevel--;
  }
  if (sub.show.group !== null || sub.show.nested !== null)
    throw new CompileError(e.pos, 'grouping or nesting inside a nested traversal is not supported yet');
  if (sub.show.unwrap === 'count') return { expr: { traversal: { root: sub.root } } };
  const root = sub.ty.k === 'element' ? elementObjects(l, sub.root, sub.ty) : sub.root;
  const expr = { traversal: { root, first: sub.show.unwrap === 'one' } };
  return sub.show.pluck === null ? { expr } : { expr, pluck: sub.show.pluck };
}

function math(l: Lowering, e: Extract<Expr, { kind: 'math' }>, el: ElementTy, closure: string | null): Wire {
  const ops: Readonly<Record<string, string>> = { ADD: 'add', SUB: 'sub', MUL: 'mul', DIV: 'div', MOD: 'mod' };
  const wireOp = ops[e.fn];
  if (wireOp === undefined) throw new CompileError(e.pos, `${e.fn} is not supported yet (ADD, SUB, MUL, DIV and MOD are)`);
  const [a, b] = e.args.map((arg) => mathArg(l, arg, el, closure));
  return { [wireOp]: { left: a, right: b } };
}

function mathArg(l: Lowering, arg: Expr, el: ElementTy, closure: string | null): Wire {
  if (arg.kind === 'literal' && (typeof arg.value === 'bigint' || typeof arg.value === 'number'))
    return constant(literal(arg.value, null, arg.pos));
  if (arg.kind === 'math') return math(l, arg, el, closure);
  return projectedValue(l, '', arg.pos, arg, el, closure).expr;
}
