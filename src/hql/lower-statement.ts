/**
 * Statements (reference §4.5, §4.7): assignments, creations, DROP, FOR loops and upserts,
 * each as entries of the /v2/query batch. Each statement is lowered on its own: an error
 * in one is reported and the next is still checked, so a file shows all its mistakes.
 */
import type { Expr, IdArg, Statement } from './ast.js';
import {
  attempt,
  checkName,
  checkNothingAfterUpsert,
  hiddenName,
  idReference,
  lookup,
  ONE,
  typeOf,
  type Lowered,
  type Lowering,
} from './lower-context.js';
import { vectorInput, VECTOR_PROPERTY } from './lower-search.js';
import { isSingleEnd } from './lower-traversal.js';
import { assignments } from './lower-value.js';
import { CompileError, describeTy, typeText, type ElementKind, type Presentation, type Ty } from './types.js';
import { compare, constant, CONTEXT, op, param, property, type Wire } from './wire-build.js';

/** What an assignment adds to the batch, and the variable it binds. */
interface Assigned {
  readonly entries: Wire[];
  readonly ty: Ty;
  readonly show: Presentation;
}

export function lowerStatements(
  l: Lowering,
  list: readonly Statement[],
  /** Told, per statement, how many entries it became (the hidden ones it asked for included). */
  made: (s: Statement, entries: number) => void = () => {},
): Wire[] {
  const entries: Wire[] = [];
  const outer = l.pre;
  try {
    for (const s of list) {
      // The hidden entries a statement's lowering asks for run just before it.
      l.pre = [];
      const lowered = attempt(l, () => statement(l, s));
      if (lowered !== null) {
        entries.push(...l.pre, ...lowered);
        made(s, l.pre.length + lowered.length);
      }
    }
  } finally {
    l.pre = outer;
  }
  return entries;
}

function statement(l: Lowering, s: Statement): Wire[] {
  switch (s.kind) {
    case 'assign': {
      checkName(s.name.text, s.name.pos, 'a variable');
      const earlier = l.scope.get(s.name.text);
      if (earlier !== undefined) {
        throw new CompileError(s.name.pos, `"${s.name.text}" is already defined (line ${earlier.pos.line}); choose another name`);
      }
      l.failed.add(s.name.text);
      const made = upsert(l, s.value, s.name.text) ?? assigned(s.name.text, topLevel(l, s.value));
      l.failed.delete(s.name.text);
      l.scope.set(s.name.text, { ty: made.ty, show: made.show, pos: s.name.pos });
      return made.entries;
    }
    case 'expr': {
      const made = upsert(l, s.value, `$u${l.hidden + 1}`);
      if (made !== null) {
        l.hidden++;
        return made.entries;
      }
      return [{ query: { root: topLevel(l, s.value).root } }];
    }
    case 'drop': {
      const lowered = topLevel(l, s.value);
      if (lowered.ty.k !== 'element')
        throw new CompileError(s.value.pos, `DROP deletes nodes, edges or vectors, not ${describeTy(lowered.ty)}`);
      l.write = true;
      return [{ query: { root: op('drop', { input: lowered.root }) } }];
    }
    case 'for':
      return [forLoop(l, s)];
  }
}

function forLoop(l: Lowering, s: Extract<Statement, { kind: 'for' }>): Wire {
  const source = lookup(l, s.source.text, s.source.pos);
  if (source.ty.k !== 'param' || source.ty.type.kind !== 'array') {
    throw new CompileError(s.source.pos, `FOR loops over an array parameter; "${s.source.text}" is ${describeTy(source.ty)}`);
  }
  const element = source.ty.type.of;
  if (s.body.length === 0) throw new CompileError(s.pos, 'a FOR loop needs at least one statement');
  // `FOR x IN xs`, xs an array of scalars: the call gives the loop xs as objects {x: value} (a hidden parameter).
  const scalar = !s.destructure && element.kind !== 'object' && s.vars.length === 1;
  if (!scalar && (!s.destructure || element.kind !== 'object')) {
    throw new CompileError(
      s.pos,
      element.kind === 'object'
        ? `FOR over an array of objects names their fields: FOR {field, ...} IN ${s.source.text} (the elements of "${s.source.text}" are ${typeText(element)})`
        : `FOR over an array of values names one value: FOR x IN ${s.source.text}`,
    );
  }
  const array = scalar ? hiddenName(l, 'loop') : s.source.text;
  if (scalar) l.needs.scalarLoops.push({ param: s.source.text, as: s.vars[0]!.text, hidden: array, loops: [...l.loops] });
  l.loops.push(array);
  const declared: string[] = [];
  try {
    for (const v of s.vars) {
      checkName(v.text, v.pos, 'a loop variable');
      const type = scalar ? element : (element.kind === 'object' ? element.fields : []).find((f) => f.name.text === v.text)?.type;
      if (type === undefined)
        throw new CompileError(v.pos, `"${v.text}" is not a field of the elements of "${s.source.text}" (${typeText(element)})`);
      if (l.scope.has(v.text)) throw new CompileError(v.pos, `"${v.text}" is already defined; a loop field cannot reuse the name`);
      l.scope.set(v.text, { ty: { k: 'param', type }, show: ONE, pos: v.pos });
      l.loopFields.set(v.text, [...l.loops]);
      declared.push(v.text);
    }
    const body = lowerStatements(l, s.body);
    if (body.length === 0 && l.problems.length === 0) throw new CompileError(s.pos, 'a FOR loop needs at least one statement');
    return { for_each: { param: array, body } };
  } finally {
    l.loops.pop();
    for (const v of declared) l.loopFields.delete(v);
  }
}

function assigned(name: string, lowered: Lowered): Assigned {
  return { entries: [{ query: { name, root: lowered.root } }], ty: lowered.ty, show: lowered.show };
}

/** A statement's value: a traversal, a creation. */
function topLevel(l: Lowering, e: Expr): Lowered {
  if (e.kind !== 'traversal') throw new CompileError(e.pos, 'a statement takes a traversal or a creation (AddN, AddE), not a plain value');
  return l.hooks.traversal(l, e, null);
}

/**
 * A statement ending in `::UpsertN({...})` or `::UpsertE({...})::From(a)::To(b)`, as three
 * entries of the batch that all bind `name`: the element found (at most one), then,
 * when it was found, the given properties set on it, or else, when it was not, a new
 * element with the properties and the schema's defaults. The batch is one
 * transaction, so an upsert updates or creates, never half of either. Null when the
 * statement is not an upsert.
 */
function upsert(l: Lowering, e: Expr, name: string): Assigned | null {
  if (e.kind !== 'traversal') return null;
  const step = e.steps[e.steps.length - 1];
  if (step === undefined || step.kind !== 'upsert') return null;
  checkNothingAfterUpsert(e.steps);
  const kind: ElementKind = step.which === 'UpsertN' ? 'node' : step.which === 'UpsertE' ? 'edge' : 'vector';
  const x = l.hooks.traversal(l, { ...e, steps: e.steps.slice(0, -1) }, null);
  if (x.ty.k !== 'element' || x.ty.kind !== kind) {
    const fitting = { node: 'UpsertN', edge: 'UpsertE', vector: 'UpsertV' } as const;
    const other = x.ty.k === 'element' ? ` (${x.ty.kind}s are upserted with ${fitting[x.ty.kind]})` : '';
    throw new CompileError(step.pos, `${step.which} applies to ${kind}s, not to ${describeTy(x.ty)}${other}`);
  }
  const t = typeOf(l, x.ty);
  const update = assignments(l, t, step.fields, false);
  const create = assignments(l, t, step.fields, true);
  l.write = true;
  const entry = (root: Wire, condition?: Wire): Wire => ({ query: condition === undefined ? { name, root } : { name, root, condition } });
  const found = op(kind === 'edge' ? 'edges' : 'nodes', { reference: { var: name } });
  let updated = found;
  for (const [field, value] of update) updated = op('set_property', { input: updated, name: field, value });
  const ty: Ty = { k: 'element', kind, type: t.name, single: true };
  const first = (root: Wire) => op('limit', { input: root, count: { literal: 1 } });
  const rest = (created: Wire): Wire[] => [
    ...(update.length > 0 ? [entry(updated, { var_not_empty: name })] : []),
    entry(created, { var_empty: name }),
  ];
  if (step.which === 'UpsertN') {
    return { entries: [entry(first(x.root)), ...rest(op('add_n', { label: t.name, properties: create }))], ty, show: ONE };
  }
  if (step.which === 'UpsertV') {
    // The vector is written only when one is made: an existing vector keeps its data.
    const data = vectorInput(l, step.vector!, t.name);
    const made = op('add_n', { label: t.name, properties: [[VECTOR_PROPERTY, data], ...create] });
    return { entries: [entry(first(x.root)), ...rest(made)], ty, show: ONE };
  }
  // UpsertE: the edge of this type from `from` to `to`; what `x` holds only names the type.
  if (step.from === null) throw new CompileError(step.pos, 'UpsertE needs ::From(node)');
  if (step.to === null) throw new CompileError(step.pos, 'UpsertE needs ::To(node)');
  const from = upsertEnd(l, step.from);
  const to = upsertEnd(l, step.to);
  const existing = op('where', { input: op('out_e', { input: op('nodes', { reference: from }), label: t.name }), predicate: endsAt(to) });
  const created = op('add_e', {
    input: op('nodes', { reference: from, missing: 'error' }),
    label: t.name,
    to,
    properties: create,
  });
  return { entries: [entry(first(existing)), ...rest(created)], ty, show: ONE };
}

/** An end of UpsertE: as for AddE, but one node, so that there is one edge to find or make. */
function upsertEnd(l: Lowering, arg: IdArg): Wire {
  const reference = idReference(l, arg, 'node');
  if (arg.kind === 'name' && !isSingleEnd(l, arg)) {
    const name = arg.name.text;
    throw new CompileError(
      arg.name.pos,
      `UpsertE links one node to one node, and "${name}" holds ${describeTy(l.scope.get(name)!.ty)}; pick one first (one <- ${name}::FIRST)`,
    );
  }
  return reference;
}

/** An edge predicate: the edge ends at the node `to` names (an id, an ID parameter, or a variable of one node or one id). */
function endsAt(to: Wire): Wire {
  const ref = to as { ids?: bigint[]; param?: string; var?: string; variable?: Wire };
  if (ref.ids !== undefined) {
    // An id beyond i64 names no node (and is no i64 constant): no edge ends there.
    const id = ref.ids[0]!;
    return id < 2n ** 63n
      ? compare('eq', property('$to'), constant({ i64: id }))
      : compare('eq', constant({ bool: true }), constant({ bool: false }));
  }
  if (ref.param !== undefined) return compare('eq', property('$to'), param(ref.param));
  // A variable of one id (`x <- u::ID`): the id it holds.
  if (ref.variable !== undefined) return compare('eq', property('$to'), { variable: ref.variable });
  const target = op('within', { input: op('out_n', { input: CONTEXT }), variable: ref.var! });
  return compare('eq', { traversal: { root: op('exists', { input: target }) } }, constant({ bool: true }));
}
