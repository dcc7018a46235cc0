/**
 * A checked syntax tree to a table plan (plan/table.ts), clause by clause: each clause
 * takes the operator chain so far and the variables in scope, and extends both. Reading
 * clauses become scans, expands and filters; projections become project/aggregate/sort;
 * updating clauses become create/merge/set/delete operators, and make the statement a
 * write. Every operator materialises its rows before the next clause reads them, so a
 * clause never sees the writes of the rows after it (openCypher's clause-at-a-time rule).
 */
import type { Clause, Query, SingleQuery, SetItem, RemoveItem } from './ast.js';
import type { SetAction, TableNode, TableStatement } from '../plan/table.js';
import { lowerExpr, where } from './lower-expr.js';
import { lowerCreatePattern, lowerPatternMatch } from './lower-pattern.js';
import { lowerProjection } from './lower-projection.js';
import { Scope, Slots, unreachable, type Lowering } from './lower-scope.js';

export interface CompiledCypher {
  /** Write: the statement has an updating clause and runs on the writer. */
  readonly effect: 'read' | 'write';
  readonly statement: TableStatement;
  /** The parameters the statement reads ($name), so a missing one fails before running. */
  readonly parameters: readonly string[];
  /** The variable each slot holds (null: a temporary), for explain. */
  readonly slotNames: readonly (string | null)[];
}

interface State {
  plan: TableNode;
  l: Lowering;
  columns: readonly (readonly [string, number])[];
  writes: boolean;
}

export function lowerQuery(query: Query): CompiledCypher {
  const slots = new Slots();
  let statement: Omit<TableStatement, 'slotCount'>;
  let writes: boolean;
  if (query.kind === 'single') {
    const s = lowerSingle(query, slots);
    statement = { root: s.plan, columns: s.columns };
    writes = s.writes;
  } else {
    const branches = query.queries.map((q) => lowerSingle(q, slots));
    writes = branches.some((b) => b.writes);
    const first = branches[0]!;
    const shared = first.columns.map(([name]) => [name, slots.allocate(name)] as const);
    // Branches agree on their column names, not necessarily on their order.
    const roots = branches.map((b) => {
      const slotOf = new Map(b.columns);
      const items = shared.map(([name, slot]) => [slot, { k: 'slot', slot: slotOf.get(name) ?? slot }] as const);
      return { t: 'project', input: b.plan, items, only: true, distinct: false } as const;
    });
    statement = { root: { t: 'union', branches: roots, all: query.all }, columns: shared };
  }
  return {
    effect: writes ? 'write' : 'read',
    statement: { ...statement, slotCount: slots.count },
    parameters: [...slots.parameters],
    slotNames: slots.names,
  };
}

function lowerSingle(query: SingleQuery, slots: Slots): State {
  const state: State = {
    plan: { t: 'unit' },
    l: { scope: new Scope(), slots, replaced: null, matchPattern: lowerPatternMatch },
    columns: [],
    writes: false,
  };
  for (const clause of query.clauses) lowerClause(state, clause);
  return state;
}

function lowerClause(s: State, clause: Clause): void {
  const l = s.l;
  switch (clause.kind) {
    case 'match': {
      if (!clause.optional) {
        s.plan = lowerPatternMatch(s.plan, clause.pattern, l, clause.where);
        return;
      }
      const inner: Lowering = { ...l, scope: l.scope.copy() };
      const body = lowerPatternMatch({ t: 'argument' }, clause.pattern, inner, clause.where);
      const added = inner.scope.entries().filter(([name]) => !l.scope.has(name));
      for (const [name, v] of added) l.scope.set(name, v);
      s.plan = { t: 'optional', input: s.plan, body, slots: added.map(([, v]) => v.slot) };
      return;
    }
    case 'unwind': {
      const list = lowerExpr(clause.list, l);
      const slot = l.slots.allocate(clause.variable.name);
      l.scope.set(clause.variable.name, { slot, kind: 'value' });
      s.plan = { t: 'unwind', input: s.plan, list, slot };
      return;
    }
    case 'with': {
      const projected = lowerProjection(s.plan, clause, l);
      s.plan = projected.plan;
      s.l = { ...l, scope: projected.scope };
      return;
    }
    case 'return': {
      const projected = lowerProjection(s.plan, clause, l);
      s.plan = projected.plan;
      s.columns = projected.columns;
      return;
    }
    case 'create':
      s.writes = true;
      s.plan = { t: 'create', input: s.plan, pattern: lowerCreatePattern(clause.pattern, l) };
      return;
    case 'merge': {
      s.writes = true;
      const matched: Lowering = { ...l, scope: l.scope.copy() };
      const match = lowerPatternMatch({ t: 'argument' }, [clause.pattern], matched, null);
      const fixed = new Map(matched.scope.entries().map(([name, v]) => [name, v.slot] as const));
      const create = lowerCreatePattern([clause.pattern], { ...l, scope: l.scope.copy(), fixed });
      s.l = matched;
      const actions = (on: 'create' | 'match') =>
        clause.actions.filter((a) => a.on === on).flatMap((a) => a.items.map((item) => setAction(item, matched)));
      s.plan = { t: 'merge', input: s.plan, match, create, onMatch: actions('match'), onCreate: actions('create') };
      return;
    }
    case 'set':
      s.writes = true;
      s.plan = { t: 'set', input: s.plan, actions: clause.items.map((item) => setAction(item, l)) };
      return;
    case 'remove':
      s.writes = true;
      s.plan = { t: 'set', input: s.plan, actions: clause.items.map((item) => removeAction(item, l)) };
      return;
    case 'delete':
      s.writes = true;
      s.plan = {
        t: 'delete',
        input: s.plan,
        targets: clause.targets.map((t) => lowerExpr(t, l)),
        detach: clause.detach,
        at: where(clause.span),
      };
      return;
    case 'foreach': {
      s.writes = true;
      const list = lowerExpr(clause.list, l);
      const slot = l.slots.allocate(clause.variable.name);
      const scope = l.scope.copy();
      scope.set(clause.variable.name, { slot, kind: 'value' });
      const inner: State = { plan: { t: 'argument' }, l: { ...l, scope }, columns: [], writes: true };
      for (const c of clause.clauses) lowerClause(inner, c);
      s.plan = { t: 'foreach', input: s.plan, list, slot, body: inner.plan };
      return;
    }
    case 'call':
    case 'callSubquery':
      return unreachable('CALL');
  }
}

function setAction(item: SetItem, l: Lowering): SetAction {
  const at = where(item.span);
  switch (item.kind) {
    case 'setProperty':
      return { kind: 'property', object: lowerExpr(item.target.object, l), key: item.target.key.name, value: lowerExpr(item.value, l), at };
    case 'setAll':
    case 'setMerge': {
      const v = l.scope.get(item.variable.name) ?? unreachable(`the undefined variable ${item.variable.name}`);
      return { kind: item.kind === 'setAll' ? 'replace' : 'merge', slot: v.slot, value: lowerExpr(item.value, l), at };
    }
    case 'setLabels':
      return unreachable('SET of labels');
  }
}

function removeAction(item: RemoveItem, l: Lowering): SetAction {
  const at = where(item.span);
  if (item.kind === 'removeLabels') return unreachable('REMOVE of labels');
  return { kind: 'remove_property', object: lowerExpr(item.target.object, l), key: item.target.key.name, at };
}
