/**
 * RETURN (reference §5.1, DECISIONS D16): each returned value becomes an entry of the batch
 * (or a literal), with the shape the caller sees it in: one element or null, a list, a
 * count, property values, groups.
 */
import type { Expr } from './ast.js';
import type { SourcePos } from './lexer.js';
import { attempt, hiddenName, lookup, typeOf, type ElementTy, type Lowering } from './lower-context.js';
import type { HqlElement, HqlField, HqlValue } from '../plan/hql-format.js';
import { CompileError } from './types.js';
import type { Wire } from './wire-build.js';

export function lowerReturns(l: Lowering): { returns: HqlField[] | null; extra: Wire[] } {
  const items = l.query.returns;
  if (items.length === 1 && items[0]!.kind === 'literal' && items[0]!.value === null) return { returns: null, extra: [] };
  const fields: HqlField[] = [];
  const extra: Wire[] = [];
  const keys = new Set<string>();
  const add = (key: string, pos: SourcePos, e: Expr) => {
    if (keys.has(key)) throw new CompileError(pos, `"${key}" is returned twice`);
    keys.add(key);
    fields.push({ key, value: returnValue(l, key, e, extra) });
  };
  for (const item of items) {
    attempt(l, () => {
      if (item.kind === 'object') for (const f of item.fields) add(f.name.text, f.name.pos, f.value);
      else add(returnKey(item), item.pos, item);
    });
  }
  return { returns: fields, extra };
}

/**
 * One returned value: a literal, a variable or a traversal (an entry of the batch, `$r`
 * and its key path), or an object or array literal of these (reference §5.1; v1 dropped
 * nested literals, Trellis shows them).
 */
function returnValue(l: Lowering, key: string, e: Expr, extra: Wire[]): HqlValue {
  switch (e.kind) {
    case 'literal':
      return { kind: 'literal', value: e.value };
    case 'object': {
      const seen = new Set<string>();
      const fields = e.fields.map((f) => {
        if (seen.has(f.name.text)) throw new CompileError(f.name.pos, `"${f.name.text}" appears twice in this object`);
        seen.add(f.name.text);
        return { key: f.name.text, value: returnValue(l, `${key}.${f.name.text}`, f.value, extra) };
      });
      return { kind: 'object', fields };
    }
    case 'array':
      return { kind: 'array', items: e.items.map((item, i) => returnValue(l, `${key}.${i}`, item, extra)) };
    default:
      break;
  }
  if (e.kind !== 'traversal')
    throw new CompileError(e.pos, 'RETURN takes variables, traversals from them, literals, {key: value, ...} or [value, ...]');
  if (e.source.kind === 'var' && e.steps.length === 0) {
    const v = lookup(l, e.source.name.text, e.source.name.pos);
    if (v.ty.k === 'param') {
      throw new CompileError(e.pos, `"${e.source.name.text}" is a parameter; RETURN shows variables (assign the value first)`);
    }
    const element = v.ty.k === 'element' ? elementOf(l, v.ty) : v.show.element;
    return { kind: 'entry', source: e.source.name.text, ...v.show, element };
  }
  const outer = l.pre;
  l.pre = [];
  try {
    const lowered = l.hooks.traversal(l, e, null);
    if (lowered.ty.k === 'param') throw new CompileError(e.pos, 'RETURN shows the results of traversals, not parameters');
    const name = key.includes('.') ? hiddenName(l, 'r') : `$r${key}`;
    const element = lowered.ty.k === 'element' ? elementOf(l, lowered.ty) : null;
    extra.push(...l.pre, { query: { name, root: lowered.root } });
    return { kind: 'entry', source: name, ...lowered.show, element };
  } finally {
    l.pre = outer;
  }
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
