/**
 * Variables and row-local bindings (reference §5.5, §5.6): as/store, select, inject, bind,
 * project_bindings.
 */
import { GraphError } from '../core/errors.js';
import type { BindingTarget } from '../plan/ops.js';
import type { Value, ValueObject } from '../core/value.js';
import { setOwn } from '../core/value.js';
import type { Exec, Executor } from './context.js';
import { encodeValue } from './encode.js';
import { resolveProperty } from './eval.js';
import { materialize, rowFlow, type Flow } from './flow.js';
import { keyId, keyKind, Row } from './row.js';
import { clip } from '../core/clip.js';

function bound(x: Exec, name: string, path: string): Flow {
  const flow = x.vars.get(name);
  if (flow === undefined) throw new GraphError('invalid_query', `${path}: variable "${clip(name)}" is not bound`);
  return flow;
}

/**
 * as / store: the variable must hold the rows as they are now, and the stream must go on
 * with those same rows, so a lazy input is materialised exactly once.
 */
const storeStep: Executor<'as' | 'store'> = (node, x, ctx) => {
  const flow = materialize(x.run(node.input, ctx), (rows) => x.collect(rows, node.path));
  x.vars.set(node.name, flow);
  return flow;
};
export const store = storeStep as Executor<'as'> & Executor<'store'>;

export const select: Executor<'select'> = (node, x, ctx) => {
  // The input is drained, not just started: an `as` inside a lazy step (a branch body,
  // say) must have written its variable before we read it.
  const input = x.run(node.input, ctx);
  if (input.t === 'rows') for (const _row of input.rows);
  return bound(x, node.name, `${node.path}.name`);
};

export const inject: Executor<'inject'> = (node, x, ctx) => {
  const path = `${node.path}.variable`;
  if (node.input === null) return bound(x, node.variable, path);
  const input = x.rows(node.input, ctx, node);
  const value = bound(x, node.variable, path);
  if (value.t !== 'rows') {
    throw new GraphError(
      'invalid_query',
      `${path}: variable "${clip(node.variable)}" holds ${value.t === 'values' ? 'a list of values' : `a ${value.t}`}, not a stream of nodes or edges`,
    );
  }
  return rowFlow(concat(input.rows, value.rows), input);
};

function* concat(first: Iterable<Row>, second: Iterable<Row>): Generator<Row> {
  yield* first;
  yield* second;
}

export const bind: Executor<'bind'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const name = node.name;
  return rowFlow(withBinding(input.rows, name), input);
};

function* withBinding(rows: Iterable<Row>, name: string): Generator<Row> {
  for (const row of rows) {
    yield row.withBindings(new Map([...(row.bindings ?? []), [name, { key: row.key, distance: row.distance, score: row.score }]]));
  }
}

/** The row a binding target names: the row itself, or a row on the bound element. */
function targetRow(row: Row, target: BindingTarget): Row | null {
  if (target.kind === 'current') return row;
  const b = row.bindings?.get(target.name);
  if (b === undefined || b.key === null) return null;
  // The bound hit's $distance/$score stay readable through the binding.
  return new Row(keyKind(b.key), keyId(b.key), null, null, undefined, b.distance, b.score);
}

function read(x: Exec, row: Row, target: BindingTarget, source: string): Value | undefined {
  const t = targetRow(row, target);
  return t === null ? undefined : resolveProperty(x, t, source);
}

export const projectBindings: Executor<'project_bindings'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const items: Value[] = [];
  const seen = node.distinct ? new Set<string>() : null;
  for (const row of input.rows) {
    const obj: ValueObject = {};
    for (const item of node.projections) {
      if (item.kind === 'property') {
        const v = read(x, row, item.target, item.source);
        if (v !== undefined) setOwn(obj, item.alias, v);
        continue;
      }
      for (const ref of item.refs) {
        const v = read(x, row, ref.target, ref.source);
        if (v !== undefined && v !== null) {
          setOwn(obj, item.alias, v);
          break;
        }
      }
    }
    if (seen !== null) {
      const text = encodeValue(obj);
      if (seen.has(text)) continue;
      seen.add(text);
    }
    items.push(obj);
    if (items.length % 65536 === 0) x.checkSize(items.length, node.path);
  }
  return { t: 'values', items };
};
