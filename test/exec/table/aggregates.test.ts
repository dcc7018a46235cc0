/**
 * The aggregating functions (src/exec/table/aggregates.ts) against the openCypher TCK
 * (features/expressions/aggregation, clauses/return*) and CIP2016-06-14's aggregation rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphError } from '../../../src/core/errors.js';
import { NodeRef, type CypherValue } from '../../../src/core/cypher-value.js';
import { makeAggregator } from '../../../src/exec/table/aggregates.js';
import { AT, assertCypherError, map } from './values.js';

/** The result of `fn` over one group whose rows give these argument lists. */
function aggregate(fn: string, rows: readonly (readonly CypherValue[])[], distinct = false): CypherValue {
  const agg = makeAggregator(fn, distinct, AT);
  for (const args of rows) agg.add(args);
  return agg.result();
}

/** One argument per row. */
const over = (fn: string, values: readonly CypherValue[], distinct = false): CypherValue =>
  aggregate(
    fn,
    values.map((v) => [v]),
    distinct,
  );

test('count skips nulls; count(*) counts rows; DISTINCT counts equivalent values once (Aggregation1, Aggregation8)', () => {
  assert.equal(over('count', [33n, null, 42n]), 2n);
  assert.equal(over('count_star', [null, null, 1n]), 3n);
  assert.equal(aggregate('count_star', [[], []]), 2n);
  assert.equal(over('count', []), 0n);
  assert.equal(over('count', [null], true), 0n, 'Aggregation8 [1-2]');
  assert.equal(over('count', [new NodeRef(1), new NodeRef(1), new NodeRef(2)], true), 2n);
  assert.equal(over('count', [map({ name: ['A', 'B'] }), map({ name: ['A', 'B'] })], true), 1n, 'Return5 [1]');
  assert.equal(over('count', [1n, 1.0, 2n], true), 2n, '1 and 1.0 are equivalent');
});

test('collect skips nulls and keeps order; DISTINCT keeps the first of equivalent values (Aggregation5, Aggregation8 [3-4])', () => {
  assert.deepEqual(over('collect', [null]), []);
  assert.deepEqual(over('collect', []), []);
  assert.deepEqual(over('collect', [42n, null, 43n, 44n]), [42n, 43n, 44n]);
  assert.deepEqual(over('collect', [null, null], true), []);
  assert.deepEqual(over('collect', [null, 1n, null], true), [1n]);
  assert.deepEqual(over('collect', [[1n], [1n], [null], [null]], true), [[1n], [null]]);
  assert.deepEqual(over('collect', [NaN, NaN, 1n, 1.0], true), [NaN, 1n]);
});

test('min and max by orderability, across types too (Aggregation2)', () => {
  assert.equal(over('max', [1n, 2n, 0n, null, -1n]), 2n);
  assert.equal(over('min', [1n, 2n, 0n, null, -1n]), -1n);
  assert.equal(over('max', [1.0, 2.0, 0.5, null]), 2.0);
  assert.equal(over('min', [1.0, 2.0, 0.5, null]), 0.5);
  assert.equal(over('max', [1n, 2.0, 5n, null, 3.2, 0.1]), 5n);
  assert.equal(over('min', [1n, 2.0, 5n, null, 3.2, 0.1]), 0.1);
  assert.equal(over('max', ['a', 'b', 'B', null, 'abc', 'abc1']), 'b');
  assert.equal(over('min', ['a', 'b', 'B', null, 'abc', 'abc1']), 'B');
  assert.deepEqual(over('max', [[1n], [2n], [2n, 1n]]), [2n, 1n]);
  assert.deepEqual(over('min', [[1n], [2n], [2n, 1n]]), [1n]);
  assert.equal(over('max', [1n, 'a', null, [1n, 2n], 0.2, 'b']), 1n);
  assert.deepEqual(over('min', [1n, 'a', null, [1n, 2n], 0.2, 'b']), [1n, 2n]);
  assert.equal(over('max', []), null);
  assert.equal(over('min', [null]), null);
});

test('sum: integers stay exact integers, a float makes a float, nothing sums to 0 (Aggregation3)', () => {
  assert.equal(over('sum', [33n, null, 42n]), 75n);
  const range: bigint[] = [];
  for (let i = 1000000n; i < 1003000n; i++) range.push(i);
  assert.equal(over('sum', range), 3004498500n, 'Aggregation3 [2]');
  assert.equal(over('sum', [1n, 0.5]), 1.5);
  assert.equal(over('sum', []), 0n);
  assert.equal(over('sum', [null]), 0n);
  assert.equal(over('sum', [1n, 1n, 2n], true), 3n);
  // The order of the rows does not decide whether an intermediate sum overflows.
  assert.equal(over('sum', [9223372036854775807n, 1n, -2n]), 9223372036854775806n);
  assertCypherError(() => over('sum', [9223372036854775807n, 1n]), 'arithmetic_error', 'IntegerOverflow');
  assertCypherError(() => over('sum', [1n, 'a']), 'type_error', 'InvalidArgumentType');
});

test('avg is a float; of nothing it is null (ReturnOrderBy6 [1])', () => {
  assert.equal(over('avg', [1n, 2n]), 1.5);
  assert.equal(over('avg', [1n, 2.0, null, 3n]), 2);
  assert.equal(typeof over('avg', [2n, 2n]), 'number');
  assert.equal(over('avg', []), null);
  assert.equal(over('avg', [9223372036854775807n, 9223372036854775807n]), 2 ** 63, 'no overflow on the way');
  assertCypherError(() => over('avg', [[1n]]), 'type_error', 'InvalidArgumentType');
});

test('stdev (sample) and stdevp (population); 0.0 for too few values', () => {
  const values = [2n, 4n, 4n, 4n, 5n, 5n, 7n, 9n];
  assert.equal(over('stdevp', values), 2);
  assert.ok(Math.abs((over('stdev', values) as number) - Math.sqrt(32 / 7)) < 1e-12);
  assert.equal(over('stdev', [5n]), 0);
  assert.equal(over('stdevp', [5n]), 0);
  assert.equal(over('stdev', []), 0);
  assert.equal(over('stdevp', [null]), 0);
  assertCypherError(() => over('stdev', ['x']), 'type_error', 'InvalidArgumentType');
});

test('percentileDisc and percentileCont over 10.0, 20.0, 30.0 (Aggregation6 [1-2])', () => {
  const rows = (p: CypherValue) => [10.0, 20.0, 30.0].map((v) => [v, p]);
  for (const [p, want] of [
    [0.0, 10.0],
    [0.5, 20.0],
    [1.0, 30.0],
  ] as const) {
    assert.equal(aggregate('percentiledisc', rows(p)), want);
    assert.equal(aggregate('percentilecont', rows(p)), want);
  }
  assert.equal(aggregate('percentilecont', rows(0.25)), 15.0);
  assert.equal(aggregate('percentiledisc', rows(0.4)), 20.0);
  assert.equal(
    aggregate(
      'percentiledisc',
      [3n, 1n, 2n].map((v) => [v, 0.5]),
    ),
    2n,
    'the value itself, an integer',
  );
  assert.equal(aggregate('percentilecont', [[4n, 0.5]]), 4);
  assert.equal(aggregate('percentilecont', []), null);
  assert.equal(aggregate('percentiledisc', [[null, 0.5]]), null);
});

test('a percentile outside 0..1 is NumberOutOfRange, on any row (Aggregation6 [3-5])', () => {
  for (const fn of ['percentilecont', 'percentiledisc'])
    for (const p of [1000n, -1n, 1.1, NaN]) assertCypherError(() => aggregate(fn, [[10.0, p]]), 'argument_error', 'NumberOutOfRange');
  // percentileDisc(0.90, deg): the arguments swapped, deg is the percentile.
  assertCypherError(() => aggregate('percentiledisc', [[0.9, 3n]]), 'argument_error', 'NumberOutOfRange');
  assertCypherError(
    () =>
      aggregate('percentilecont', [
        [1n, 0.5],
        [2n, 2n],
      ]),
    'argument_error',
    'NumberOutOfRange',
  );
  assertCypherError(() => aggregate('percentilecont', [[1n, 'half']]), 'type_error', 'InvalidArgumentValue');
  assertCypherError(() => aggregate('percentilecont', [['x', 0.5]]), 'type_error', 'InvalidArgumentType');
});

test('an unknown aggregate is an internal error: semantic analysis should have refused it', () => {
  assert.throws(
    () => makeAggregator('median', false, AT),
    (err: unknown) => err instanceof GraphError && err.code === 'internal_error',
  );
});
