/**
 * Cypher expressions to row expressions (plan/table.ts): names become slots, literals plan
 * literals, patterns used as values become subqueries. Aggregates never reach here: the
 * projection lowering replaces each with the slot its `aggregate` operator fills
 * (`Lowering.replaced`), and likewise any expression that a projection already computed.
 */
import type { Expr, Span } from './ast.js';
import type { PlanLiteral, RowExpr, Where } from '../plan/table.js';
import { unreachable, type Lowering } from './lower-scope.js';
import { exprKey } from './ast-walk.js';

export const where = (span: Span): Where => ({ start: span.start, end: span.end });

export function lowerExpr(e: Expr, l: Lowering): RowExpr {
  if (l.replaced !== null && l.replaced.size > 0) {
    const hit = l.replaced.get(exprKey(e));
    if (hit !== undefined) return hit;
  }
  const at = where(e.span);
  const sub = (x: Expr): RowExpr => lowerExpr(x, l);
  switch (e.kind) {
    case 'integer':
    case 'float':
    case 'string':
    case 'boolean':
      return { k: 'literal', value: e.value };
    case 'null':
      return { k: 'literal', value: null };
    case 'list': {
      const items = e.items.map(sub);
      const literal = constantList(items);
      return literal === null ? { k: 'list', items } : { k: 'literal', value: literal };
    }
    case 'map':
      return { k: 'map', entries: e.entries.map((entry) => [entry.key.name, sub(entry.value)] as const) };
    case 'parameter':
      l.slots.parameters.add(e.name);
      return { k: 'param', name: e.name, at };
    case 'variable': {
      const v = l.scope.get(e.name);
      if (v === undefined) return unreachable(`the undefined variable ${e.name}`);
      return { k: 'slot', slot: v.slot };
    }
    case 'property':
      return { k: 'property', object: sub(e.object), key: e.key.name, at };
    case 'index':
      return { k: 'index', object: sub(e.object), index: sub(e.index), at };
    case 'slice':
      return { k: 'slice', object: sub(e.object), from: e.from === null ? null : sub(e.from), to: e.to === null ? null : sub(e.to), at };
    case 'hasLabels':
      return { k: 'has_labels', object: sub(e.object), labels: e.labels.map((n) => n.name), at };
    case 'unary':
      return { k: e.op === 'not' ? 'not' : e.op === '-' ? 'negate' : 'plus', operand: sub(e.operand), at };
    case 'binary':
      return lowerBinary(e.op, sub(e.left), sub(e.right), at);
    case 'comparison':
      return { k: 'compare', ops: e.ops, operands: e.operands.map(sub), at };
    case 'isNull':
      return { k: 'is_null', operand: sub(e.operand), negated: e.negated };
    case 'call':
      return lowerCall(e, l);
    case 'countStar':
      return unreachable('count(*) outside a projection');
    case 'case':
      return {
        k: 'case',
        subject: e.subject === null ? null : sub(e.subject),
        alternatives: e.alternatives.map((a) => [sub(a.when), sub(a.then)] as const),
        otherwise: e.else === null ? null : sub(e.else),
      };
    case 'listComprehension': {
      const list = sub(e.list);
      const inner = withVariable(l, e.variable.name);
      return {
        k: 'list_comprehension',
        slot: inner.slot,
        list,
        where: e.where === null ? null : lowerExpr(e.where, inner.l),
        project: e.map === null ? null : lowerExpr(e.map, inner.l),
        at,
      };
    }
    case 'quantifier': {
      const list = sub(e.list);
      const inner = withVariable(l, e.variable.name);
      const predicate: RowExpr = e.where === null ? { k: 'literal', value: true } : lowerExpr(e.where, inner.l);
      return { k: 'quantifier', quantifier: e.quantifier, slot: inner.slot, list, predicate, at };
    }
    case 'reduce': {
      const init = sub(e.init);
      const list = sub(e.list);
      const acc = withVariable(l, e.accumulator.name);
      const item = withVariable(acc.l, e.variable.name);
      return { k: 'reduce', accumulator: acc.slot, init, slot: item.slot, list, step: lowerExpr(e.expr, item.l), at };
    }
    case 'mapProjection': {
      const object = sub({ kind: 'variable', span: e.variable.span, name: e.variable.name });
      return {
        k: 'map_projection',
        object,
        at,
        items: e.items.map((item) => {
          switch (item.kind) {
            case 'property':
              return { kind: 'property', key: item.key.name };
            case 'allProperties':
              return { kind: 'all' };
            case 'entry':
              return { kind: 'entry', key: item.key.name, value: sub(item.value) };
            case 'variable':
              return { kind: 'entry', key: item.name.name, value: sub({ kind: 'variable', span: item.name.span, name: item.name.name }) };
          }
        }),
      };
    }
    case 'pattern': {
      const inner: Lowering = { ...l, scope: l.scope.copy() };
      return { k: 'subquery', plan: l.matchPattern({ t: 'argument' }, [e.pattern], inner, null), project: null, exists: true };
    }
    case 'patternComprehension': {
      const inner: Lowering = { ...l, scope: l.scope.copy() };
      const plan = l.matchPattern({ t: 'argument' }, [e.pattern], inner, e.where);
      return { k: 'subquery', plan, project: lowerExpr(e.map, inner), exists: false };
    }
    case 'exists':
      return unreachable('EXISTS { }');
  }
}

function lowerBinary(op: Extract<Expr, { kind: 'binary' }>['op'], left: RowExpr, right: RowExpr, at: Where): RowExpr {
  switch (op) {
    case 'and':
    case 'or':
    case 'xor':
      return { k: op, left, right, at };
    case 'in':
      return { k: 'in', left, right, at };
    case 'startsWith':
    case 'endsWith':
    case 'contains':
    case 'regex':
      return { k: 'string_op', op, left, right, at };
    default:
      return { k: 'arith', op, left, right, at };
  }
}

function lowerCall(e: Extract<Expr, { kind: 'call' }>, l: Lowering): RowExpr {
  const at = where(e.span);
  const name = [...e.namespace.map((n) => n.name), e.name.name].join('.').toLowerCase();
  // exists((a)-->(b)): the pattern form of exists() is a pattern predicate.
  if (name === 'exists' && e.args.length === 1 && e.args[0]!.kind === 'pattern') return lowerExpr(e.args[0]!, l);
  return { k: 'call', name, args: e.args.map((a) => lowerExpr(a, l)), at };
}

/** A list whose items are all literals, as one literal (so it is built once). */
function constantList(items: readonly RowExpr[]): PlanLiteral[] | null {
  const out: PlanLiteral[] = [];
  for (const item of items) {
    if (item.k !== 'literal') return null;
    out.push(item.value);
  }
  return out;
}

/** A copy of the lowering with `name` bound to a fresh value slot (comprehension variables). */
function withVariable(l: Lowering, name: string): { slot: number; l: Lowering } {
  const slot = l.slots.allocate(name);
  const scope = l.scope.copy();
  scope.set(name, { slot, kind: 'value' });
  return { slot, l: { ...l, scope } };
}
