/**
 * RETURN (reference §5.1, DECISIONS D16): each returned value becomes an entry of the batch
 * (or a literal), with the shape the caller sees it in: one element or null, a list, a
 * count, property values, groups.
 */
import type { Expr } from './ast.js';
import type { SourcePos } from './lexer.js';
import { attempt, lookup, ONE, typeOf, type ElementTy, type Lowering } from './lower-context.js';
import type { HqlElement } from '../plan/hql-format.js';
import { CompileError, type ReturnShape } from './types.js';
import type { Wire } from './wire-build.js';

export function lowerReturns(l: Lowering): { returns: ReturnShape[] | null; extra: Wire[] } {
  const items = l.query.returns;
  if (items.length === 1 && items[0]!.kind === 'literal' && items[0]!.value === null) return { returns: null, extra: [] };
  const shapes: ReturnShape[] = [];
  const extra: Wire[] = [];
  const keys = new Set<string>();
  const add = (key: string, pos: SourcePos, e: Expr) => {
    if (keys.has(key)) throw new CompileError(pos, `"${key}" is returned twice`);
    keys.add(key);
    const made = returnItem(l, key, e);
    shapes.push(made.shape);
    if (made.entry !== null) extra.push(made.entry);
  };
  for (const item of items) {
    attempt(l, () => {
      if (item.kind === 'object') for (const f of item.fields) add(f.name.text, f.name.pos, f.value);
      else add(returnKey(item), item.pos, item);
    });
  }
  return { returns: shapes, extra };
}

function returnItem(l: Lowering, key: string, e: Expr): { shape: ReturnShape; entry: Wire | null } {
  if (e.kind === 'literal') return { shape: { key, source: null, literal: e.value, ...ONE }, entry: null };
  if (e.kind !== 'traversal') throw new CompileError(e.pos, 'RETURN takes variables, traversals from them, literals or {key: value, ...}');
  if (e.source.kind === 'var' && e.steps.length === 0) {
    const v = lookup(l, e.source.name.text, e.source.name.pos);
    if (v.ty.k === 'param') {
      throw new CompileError(e.pos, `"${e.source.name.text}" is a parameter; RETURN shows variables (assign the value first)`);
    }
    if (v.ty.k === 'shaped') return { shape: { key, source: e.source.name.text, literal: null, ...v.show }, entry: null };
    if (v.ty.k === 'element')
      return { shape: { key, source: e.source.name.text, literal: null, ...v.show, element: elementOf(l, v.ty) }, entry: null };
  }
  const lowered = l.hooks.traversal(l, e, null);
  if (lowered.ty.k === 'param') throw new CompileError(e.pos, 'RETURN shows the results of traversals, not parameters');
  const name = `$r${key}`;
  const element = lowered.ty.k === 'element' ? elementOf(l, lowered.ty) : null;
  return { shape: { key, source: name, literal: null, ...lowered.show, element }, entry: { query: { name, root: lowered.root } } };
}

/** Whole elements of `el`'s type, as the response shows them. */
function elementOf(l: Lowering, el: ElementTy): HqlElement {
  return { kind: el.kind, fields: [...typeOf(l, el).fields.keys()] };
}

/** `#[mcp]` queries return one object or value (contract, D18). */
export function checkMcpReturn(l: Lowering): void {
  const items = l.query.returns;
  const one =
    items.length === 1 &&
    !(items[0]!.kind === 'literal' && items[0]!.value === null) &&
    !(items[0]!.kind === 'object' && items[0]!.fields.length !== 1);
  if (!one)
    throw new CompileError(
      l.query.returnPos,
      `an #[mcp] query must return a single object or value, but query "${l.query.name.text}" returns ${describeReturns(items)}`,
    );
}

function returnKey(e: Expr): string {
  if (e.kind === 'traversal' && e.source.kind === 'var') return e.source.name.text;
  return 'data';
}

function describeReturns(items: readonly Expr[]): string {
  if (items.length === 1 && items[0]!.kind === 'literal' && items[0]!.value === null) return 'NONE';
  if (items.length === 1 && items[0]!.kind === 'object') return `an object of ${items[0]!.fields.length} values`;
  return `${items.length} values`;
}
