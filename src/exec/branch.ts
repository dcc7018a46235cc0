/**
 * Branching and repeat (reference §5.8). A branch body starts at "context", which yields
 * the rows handed to it. union, coalesce and optional run each body once per input row
 * and stay lazy; choose and repeat work on whole batches of rows, so they hold their
 * input, but only once their output is first read.
 */
import { GraphError } from '../core/errors.js';
import type { Predicate } from '../plan/expr.js';
import { inputOf, subTraversalsOf } from '../plan/catalog.js';
import type { OpOf, PlanNode, SubTraversal } from '../plan/ops.js';
import type { Exec, Executor } from './context.js';
import { evalPredicate } from './eval.js';
import type { RowFlow } from './flow.js';
import type { Row } from './row.js';

/** Runs a body on `rows` and returns its rows; a body ending in a terminal is a client error. */
function runBody(x: Exec, sub: SubTraversal, rows: readonly Row[], from: RowFlow, owner: PlanNode): Iterable<Row> {
  const flow = x.run(sub.root, { t: 'rows', rows, folded: false, showPath: from.showPath, showSack: from.showSack });
  if (flow.t !== 'rows') {
    const what = flow.t === 'values' ? 'a list of values' : `a ${flow.t}`;
    throw new GraphError('invalid_query', `${owner.path}: a "${owner.op}" body must yield nodes or edges, but it yields ${what}`);
  }
  if (flow.folded) throw new GraphError('invalid_query', `${owner.path}: a "${owner.op}" body yields a folded stream; use unfold first`);
  return flow.rows;
}

/**
 * The output of a branching step shows paths or sacks when its input did or when a body
 * contains path / sack_get. Bodies run lazily, after the flow is built, so this is
 * decided from the plan rather than from the bodies' flows.
 */
function outputFlow(input: RowFlow, bodies: readonly SubTraversal[], rows: Iterable<Row>): RowFlow {
  let showPath = input.showPath;
  let showSack = input.showSack;
  const stack = bodies.map((b) => b.root);
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.op === 'path') showPath = true;
    if (node.op === 'sack_get') showSack = true;
    const next = inputOf(node);
    if (next !== null) stack.push(next);
    for (const sub of subTraversalsOf(node)) stack.push(sub.root);
  }
  return { t: 'rows', rows, folded: false, showPath, showSack };
}

/** Appends rows one by one (a spread of millions of rows would overflow the stack). */
function append(x: Exec, out: Row[], rows: Iterable<Row>, path: string): Row[] {
  for (const row of rows) {
    out.push(row);
    if (out.length % 65536 === 0) x.checkSize(out.length, path);
  }
  return out;
}

const collect = (x: Exec, rows: Iterable<Row>, path: string): Row[] => append(x, [], rows, path);

export const union: Executor<'union'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  return outputFlow(input, node.traversals, unionRows(x, node, input));
};

function* unionRows(x: Exec, node: OpOf<'union'>, input: RowFlow): Generator<Row> {
  for (const row of input.rows) {
    for (const sub of node.traversals) yield* runBody(x, sub, [row], input, node);
  }
}

export const coalesce: Executor<'coalesce'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  return outputFlow(input, node.traversals, coalesceRows(x, node, input));
};

function* coalesceRows(x: Exec, node: OpOf<'coalesce'>, input: RowFlow): Generator<Row> {
  for (const row of input.rows) {
    for (const sub of node.traversals) {
      // Peek one row to learn whether the branch is empty, without running it to the end.
      const it = runBody(x, sub, [row], input, node)[Symbol.iterator]();
      const first = it.next();
      if (first.done) continue;
      yield first.value;
      for (let r = it.next(); !r.done; r = it.next()) yield r.value;
      break;
    }
  }
}

export const optional: Executor<'optional'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  return outputFlow(input, [node.traversal], optionalRows(x, node, input));
};

function* optionalRows(x: Exec, node: OpOf<'optional'>, input: RowFlow): Generator<Row> {
  for (const row of input.rows) {
    const it = runBody(x, node.traversal, [row], input, node)[Symbol.iterator]();
    const first = it.next();
    if (first.done) {
      yield row;
      continue;
    }
    yield first.value;
    for (let r = it.next(); !r.done; r = it.next()) yield r.value;
  }
}

/** Output rows computed on first read, so a batch operation costs nothing until used. */
function deferred(input: RowFlow, bodies: readonly SubTraversal[], compute: () => Iterable<Row>): RowFlow {
  return outputFlow(input, bodies, lazily(compute));
}

function* lazily(compute: () => Iterable<Row>): Generator<Row> {
  yield* compute();
}

/**
 * Batch semantics (§5.8, Q6): without else, failing rows are dropped and the passing rows
 * go through the then-branch together; with else, then(passing) comes before
 * else(failing). A branch is not run on an empty set of rows.
 */
export const choose: Executor<'choose'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const bodies = node.else_traversal === null ? [node.then_traversal] : [node.then_traversal, node.else_traversal];
  return deferred(input, bodies, () => {
    const pass: Row[] = [];
    const fail: Row[] = [];
    for (const row of input.rows) {
      (evalPredicate(x, row, node.condition) ? pass : fail).push(row);
      if ((pass.length + fail.length) % 65536 === 0) x.checkSize(pass.length + fail.length, node.path);
    }
    const out: Row[] = [];
    if (pass.length > 0) append(x, out, runBody(x, node.then_traversal, pass, input, node), node.path);
    if (node.else_traversal !== null && fail.length > 0) append(x, out, runBody(x, node.else_traversal, fail, input, node), node.path);
    return out;
  });
};

function anyMatch(x: Exec, rows: readonly Row[], p: Predicate): boolean {
  return rows.some((row) => evalPredicate(x, row, p));
}

/**
 * The frontier loop of §5.8: up to min(max_depth, times) rounds; each round emits the
 * frontier (before/all), runs the body on the whole frontier, emits the result
 * (after/all, filtered by emit_predicate), then stops when `until` matches any result row
 * or the result is empty. The output is the final frontier when nothing is emitted.
 */
export const repeat: Executor<'repeat'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const { traversal, times, until, emit, emit_predicate: emitPredicate, max_depth: maxDepth } = node.config;
  const rounds = times === null ? maxDepth : Math.min(times, maxDepth);
  const before = emit === 'before' || emit === 'all';
  const after = emit === 'after' || emit === 'all';
  return deferred(input, [traversal], () => {
    let frontier = collect(x, input.rows, node.path);
    const emitted: Row[] = [];
    for (let round = 0; round < rounds; round++) {
      if (before) append(x, emitted, frontier, node.path);
      const result = collect(x, runBody(x, traversal, frontier, input, node), node.path);
      if (after) {
        for (const row of result) if (emitPredicate === null || evalPredicate(x, row, emitPredicate)) emitted.push(row);
      }
      x.checkSize(emitted.length + result.length, node.path);
      frontier = result;
      if (frontier.length === 0 || (until !== null && anyMatch(x, frontier, until))) break;
    }
    return emit === 'none' ? frontier : emitted;
  });
};
