/**
 * The sack (reference §5.9): a per-row value carried along navigation. with_sack sets it,
 * sack_set copies a property into it, sack_add adds a property to it, sack_get makes it
 * visible in the output.
 */
import { GraphError } from '../core/errors.js';
import { I64_MAX, I64_MIN, isNumeric, toNumber, type Value } from '../core/value.js';
import type { Exec, Executor } from './context.js';
import { resolveProperty } from './eval.js';
import { rowFlow, type RowFlow } from './flow.js';
import type { Row } from './row.js';
import { clip } from '../core/clip.js';

function mapRows(input: RowFlow, fn: (row: Row) => Row): RowFlow {
  return rowFlow(mapped(input.rows, fn), input);
}

function* mapped(rows: Iterable<Row>, fn: (row: Row) => Row): Generator<Row> {
  for (const row of rows) yield fn(row);
}

export const withSack: Executor<'with_sack'> = (node, x, ctx) =>
  mapRows(x.rows(node.input, ctx, node), (row) => row.withSack(node.initial));

export const sackSet: Executor<'sack_set'> = (node, x, ctx) =>
  mapRows(x.rows(node.input, ctx, node), (row) => row.withSack(resolveProperty(x, row, node.property)));

function describe(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return Array.isArray(v) || ArrayBuffer.isView(v) ? 'an array' : 'a non-numeric value';
  return `a ${typeof v}`;
}

/** i64 + i64 stays i64 (overflow is an error); any other numeric pair is f64. */
function add(x: Exec, sack: Value, v: Value, path: string): Value {
  if (!isNumeric(sack) || !isNumeric(v)) {
    throw new GraphError(
      'invalid_query',
      `${path}: sack_add needs numbers, but the sack holds ${describe(sack)} and the property ${describe(v)}`,
    );
  }
  if (typeof sack === 'bigint' && typeof v === 'bigint') {
    const sum = sack + v;
    if (sum > I64_MAX || sum < I64_MIN) throw new GraphError('invalid_query', `${path}: sack_add overflows i64 (${sack} + ${v})`);
    return sum;
  }
  return toNumber(sack) + toNumber(v);
}

export const sackAdd: Executor<'sack_add'> = (node, x, ctx) =>
  mapRows(x.rows(node.input, ctx, node), (row) => {
    const v = resolveProperty(x, row, node.property);
    if (v === undefined) return row;
    if (!isNumeric(v))
      throw new GraphError('invalid_query', `${node.path}: sack_add needs a number, but "${clip(node.property)}" holds ${describe(v)}`);
    // An empty sack (never set, cleared, or null) takes the value as it is.
    if (row.sack === undefined || row.sack === null) return row.withSack(v);
    return row.withSack(add(x, row.sack, v, node.path));
  });

export const sackGet: Executor<'sack_get'> = (node, x, ctx) => ({ ...x.rows(node.input, ctx, node), showSack: true });
