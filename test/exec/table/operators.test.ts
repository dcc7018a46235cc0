/**
 * Cypher operator semantics (src/exec/table/operators.ts), case by case from the openCypher
 * TCK (features/expressions/**, clauses/return-orderby) and CIP2016-06-14.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NodeRef, PathValue, RelRef, type CypherValue } from '../../../src/core/cypher-value.js';
import {
  arithmetic,
  checkNumber,
  compareValues,
  comparison,
  equals,
  groupKey,
  inList,
  indexValue,
  logical,
  negate,
  orderValues,
  propertyOf,
  sliceList,
  stringOp,
} from '../../../src/exec/table/operators.js';
import { AT, assertCypherError, graph, map, show } from './values.js';

const NaN_ = 0.0 / 0.0;
const I64_MAX = 9223372036854775807n;
const I64_MIN = -9223372036854775808n;

test('equality of lists is false on a size or item mismatch, null when only nulls leave it open (Comparison1 [6], List3)', () => {
  assert.equal(equals([1n, 2n], [1n]), false);
  assert.equal(equals([null], [1n]), null);
  assert.equal(equals(['a'], [1n]), false);
  assert.equal(equals([[1n]], [[1n], [null]]), false);
  assert.equal(equals([[1n], [2n]], [[1n], [null]]), null);
  assert.equal(equals([[1n], [2n, 3n]], [[1n], [null]]), false);
  assert.equal(equals([1n, 2n], 'foo'), false);
  assert.equal(equals([1n], [1n, null]), false);
  assert.equal(equals([1n, 2n], [null, 'foo']), false);
  assert.equal(equals([1n, 2n], [null, 2n]), null);
  assert.equal(
    equals(
      [
        [1n, 2n],
        ['foo', 'bar'],
      ],
      [
        [1n, 2n],
        [null, 'bar'],
      ],
    ),
    null,
  );
  assert.equal(equals([3n, 4n], [3n, 4n]), true);
});

test('equality of maps: same keys (null-valued ones too), then the values (Comparison1 [7])', () => {
  const cases: [CypherValue, CypherValue, boolean | null][] = [
    [map({}), map({}), true],
    [map({ k: true }), map({ k: true }), true],
    [map({ k: 1n }), map({ k: 1n }), true],
    [map({ k: 1.0 }), map({ k: 1.0 }), true],
    [map({ k: 'a', l: 2n }), map({ l: 2n, k: 'a' }), true],
    [map({}), map({ k: null }), false],
    [map({ k: null }), map({}), false],
    [map({ k: 1n }), map({ k: 1n, l: null }), false],
    [map({ k: null, l: 1n }), map({ l: 1n }), false],
    [map({ k: null }), map({ k: null, l: null }), false],
    [map({ k: null }), map({ k: null }), null],
    [map({ k: 1n }), map({ k: null }), null],
    [map({ k: 1n, l: null }), map({ k: null, l: null }), null],
    [map({ k: 1n, l: null }), map({ k: null, l: 1n }), null],
    [map({ k: 1n, l: null }), map({ k: 1n, l: 1n }), null],
  ];
  for (const [a, b, want] of cases) assert.equal(equals(a, b), want, `${show(a)} = ${show(b)}`);
});

test('numbers: 1 = 1.0, NaN equals nothing, strings never equal numbers, large integers exactly (Comparison1 [8-13])', () => {
  assert.equal(equals(1n, 1.0), true);
  assert.equal(equals(1.0, 1n), true);
  assert.equal(equals('1.0', 1.0), false);
  assert.equal(equals('1', 1n), false);
  for (const other of [1n, 1.0, NaN_, 'a']) {
    assert.equal(equals(NaN_, other), false);
    assert.equal(comparison('<>', NaN_, other), true);
  }
  assert.equal(equals(4611686018427387905n, 4611686018427387905n), true);
  assert.equal(equals(4611686018427387905n, 4611686018427387900n), false);
  // 2^53 + 1 is not the float 2^53, although Number(2n ** 53n + 1n) would round to it.
  assert.equal(equals(2n ** 53n + 1n, 2 ** 53), false);
  assert.equal(equals(2n ** 53n, 2 ** 53), true);
  assert.equal(equals(null, null), null);
  assert.equal(comparison('<>', null, null), null);
  assert.equal(equals(null, 1n), null);
});

test('elements are equal by identity; paths by their alternating elements, loops in either direction (Comparison1 [4,5,14])', () => {
  assert.equal(equals(new NodeRef(1), new NodeRef(1)), true);
  assert.equal(equals(new NodeRef(1), new NodeRef(2)), false);
  assert.equal(equals(new NodeRef(1), new RelRef(1)), false);
  assert.equal(equals(new RelRef(4), new RelRef(4)), true);
  const loop = new PathValue([new NodeRef(1), new NodeRef(1)], [new RelRef(5)]);
  const loopBack = new PathValue([new NodeRef(1), new NodeRef(1)], [new RelRef(5)]);
  assert.equal(equals(loop, loopBack), true);
  assert.equal(equals(loop, new PathValue([new NodeRef(1), new NodeRef(2)], [new RelRef(5)])), false);
  assert.equal(equals(loop, [new NodeRef(1), new RelRef(5), new NodeRef(1)]), false);
});

test('comparing across types is null except between numbers (Comparison2 [3], [6])', () => {
  const values: CypherValue[] = [new NodeRef(1), new RelRef(1), new PathValue([new NodeRef(1)], []), '', 1n, 3.14, true, null, [], map({})];
  for (let i = 0; i < values.length; i++)
    for (let j = 0; j < values.length; j++) {
      if (i === j) continue;
      const numbers = (i === 4 && j === 5) || (i === 5 && j === 4);
      for (const op of ['<', '<=', '>', '>='] as const) {
        const got = comparison(op, values[i]!, values[j]!);
        if (numbers) assert.equal(typeof got, 'boolean');
        else assert.equal(got, null, `${i} ${op} ${j}`);
      }
    }
  assert.equal(comparison('<', 1n, 3.14), true);
  assert.equal(comparison('>=', 3.14, 1n), true);
  assert.equal(comparison('<', 1.0, 1.0), false);
  assert.equal(comparison('<', 1n, 1.0), false);
  assert.equal(comparison('<', '1.0', 1.0), null);
  assert.equal(comparison('<', '1', 1n), null);
});

test('every ordering comparison with NaN is false, and null against a non-number (Comparison2 [5])', () => {
  for (const other of [1n, 1.0, NaN_])
    for (const op of ['<', '<=', '>', '>='] as const) assert.equal(comparison(op, NaN_, other), false, `NaN ${op} ${show(other)}`);
  for (const op of ['<', '<=', '>', '>='] as const) assert.equal(comparison(op, NaN_, 'a'), null);
});

test('lists compare lexicographically; the first unequal pair decides, incomparable pairs give null (Comparison2 [4])', () => {
  assert.equal(comparison('>=', [1n, 0n], [1n]), true);
  assert.equal(comparison('>=', [1n, null], [1n]), true);
  assert.equal(comparison('>=', [1n, 2n], [1n, null]), null);
  assert.equal(comparison('>=', [1n, 'a'], [1n, null]), null);
  assert.equal(comparison('>=', [1n, 2n], [3n, null]), false);
  assert.equal(comparison('<', [1n], [1n, 0n]), true);
  assert.equal(comparison('<', [], [null]), true);
});

test('strings compare by code point, booleans false < true, integers with floats exactly', () => {
  assert.equal(comparison('<', 'a', 'aa'), true);
  assert.equal(comparison('<', 'B', 'a'), true);
  // U+FFFF is below U+10000 by code point, above its first UTF-16 unit (0xD800).
  assert.equal(comparison('<', '\uffff', '\u{10000}'), true);
  assert.equal(comparison('<', false, true), true);
  assert.equal(comparison('>', true, false), true);
  assert.equal(compareValues(2n ** 53n + 1n, 2 ** 53), 1);
  assert.equal(compareValues(-1n, -0.5), -1);
  assert.equal(compareValues(0n, -0.5), 1);
  assert.equal(compareValues(I64_MAX, Infinity), -1);
  assert.equal(compareValues(I64_MIN, -Infinity), 1);
  assert.equal(comparison('=', 0n, -0.0), true);
});

test('nodes and relationships compare by identity, maps by keys then values, null-holding maps not at all (CIP2016-06-14)', () => {
  assert.equal(comparison('<', new NodeRef(1), new NodeRef(2)), true);
  assert.equal(comparison('>', new RelRef(3), new RelRef(2)), true);
  assert.equal(comparison('<=', map({ a: 1n }), map({ a: 1n })), true);
  assert.equal(comparison('<', map({ a: 1n }), map({ a: 2n })), true);
  assert.equal(comparison('<=', map({ a: 1n }), map({ a: 1n, b: null })), null);
});

test('ORDER BY orders types map < node < relationship < list < path < string < boolean < number < null, NaN last of numbers (ReturnOrderBy1 [11-12])', () => {
  const path = new PathValue([new NodeRef(1), new NodeRef(2)], [new RelRef(1)]);
  const ascending: CypherValue[] = [map({ a: 'map' }), new NodeRef(1), new RelRef(1), ['list'], path, 'text', false, 1.5, NaN_, null];
  const shuffled = [
    ascending[5]!,
    ascending[9]!,
    ascending[2]!,
    ascending[8]!,
    ascending[0]!,
    ascending[7]!,
    ascending[4]!,
    ascending[1]!,
    ascending[6]!,
    ascending[3]!,
  ];
  assert.deepEqual([...shuffled].sort(orderValues), ascending);
  assert.deepEqual(
    [...shuffled].sort((a, b) => orderValues(b, a)),
    [...ascending].reverse(),
  );
});

test('ORDER BY of lists orders items by the same total order (ReturnOrderBy1 [9]); of scalars within their type ([1-8])', () => {
  const lists: CypherValue[] = [[], ['a'], ['a', 1n], [1n], [1n, 'a'], [1n, null], [null, 1n], [null, 2n]];
  const mixed = [lists[6]!, lists[3]!, lists[0]!, lists[7]!, lists[4]!, lists[1]!, lists[5]!, lists[2]!];
  assert.deepEqual(mixed.sort(orderValues), lists);
  assert.deepEqual(['.*', '', ' ', 'one'].sort(orderValues), ['', ' ', '.*', 'one']);
  assert.deepEqual([true, false].sort(orderValues), [false, true]);
  assert.deepEqual([1.5, 1.3, 999.99, 2n, Infinity, -Infinity].sort(orderValues), [-Infinity, 1.3, 1.5, 2n, 999.99, Infinity]);
  assert.equal(orderValues(1n, 1.0), 0);
  assert.equal(orderValues(NaN_, NaN_), 0);
  assert.equal(orderValues(NaN_, Infinity), 1);
  assert.equal(orderValues(null, null), 0);
});

test('groupKey: equivalent values share a key; null with null, NaN with NaN, 1 with 1.0, nested too (CIP2016-06-14, Return5)', () => {
  const same: [CypherValue, CypherValue][] = [
    [null, null],
    [NaN_, 0 / 0],
    [1n, 1.0],
    [0n, -0.0],
    [[null], [null]],
    [map({ name: ['A', 'B'] }), map({ name: ['A', 'B'] })],
    [map({ a: 1n, b: [2.0] }), map({ b: [2n], a: 1.0 })],
    [new NodeRef(3), new NodeRef(3)],
    [new PathValue([new NodeRef(1), new NodeRef(2)], [new RelRef(7)]), new PathValue([new NodeRef(1), new NodeRef(2)], [new RelRef(7)])],
  ];
  for (const [a, b] of same) {
    assert.equal(groupKey(a), groupKey(b));
    assert.equal(orderValues(a, b), 0, 'equivalence and orderability agree');
  }
  const different: [CypherValue, CypherValue][] = [
    [null, NaN_],
    [1n, '1'],
    [1n, true],
    [0.5, '0.5'],
    [2n ** 53n + 1n, 2 ** 53],
    [['a,b'], ['a', 'b']],
    [map({ 'a:1': null }), map({ a: 1n })],
    [new NodeRef(1), new RelRef(1)],
    [[], map({})],
    [Infinity, -Infinity],
  ];
  for (const [a, b] of different) {
    assert.notEqual(groupKey(a), groupKey(b), `${show(a)} vs ${show(b)}`);
    assert.notEqual(orderValues(a, b), 0);
  }
});

test('integer arithmetic stays integer, truncates division, and reports overflow and division by zero', () => {
  assert.equal(arithmetic('+', 99n, 5n, AT), 104n); // Mathematical2 [1]
  assert.equal(arithmetic('*', arithmetic('/', 12n, 4n, AT), 3n, AT), 9n);
  assert.equal(arithmetic('/', 7n, 2n, AT), 3n);
  assert.equal(arithmetic('/', -7n, 2n, AT), -3n);
  assert.equal(arithmetic('%', -7n, 2n, AT), -1n);
  assert.equal(arithmetic('%', 4n, 3n, AT), 1n); // Precedence2 [1]: 4 % 2 + 3 % 2 = 1
  assert.equal(arithmetic('-', 4n, 2n * 3n, AT), -2n);
  assert.equal(arithmetic('+', I64_MAX - 1n, 1n, AT), I64_MAX);
  assertCypherError(() => arithmetic('+', I64_MAX, 1n, AT), 'arithmetic_error', 'IntegerOverflow');
  assertCypherError(() => arithmetic('-', I64_MIN, 1n, AT), 'arithmetic_error', 'IntegerOverflow');
  assertCypherError(() => arithmetic('*', I64_MAX, 2n, AT), 'arithmetic_error', 'IntegerOverflow');
  assertCypherError(() => arithmetic('/', I64_MIN, -1n, AT), 'arithmetic_error', 'IntegerOverflow');
  assertCypherError(() => arithmetic('/', 1n, 0n, AT), 'arithmetic_error', 'DivisionByZero');
  assertCypherError(() => arithmetic('%', 1n, 0n, AT), 'arithmetic_error', 'DivisionByZero');
});

test('a float operand makes a float; ^ is always a float; float division by zero is IEEE (Precedence2 [2-4])', () => {
  assert.equal(arithmetic('+', 1n, 0.5, AT), 1.5);
  assert.equal(arithmetic('*', 2.0, 3n, AT), 6);
  assert.equal(typeof arithmetic('*', 2.0, 3n, AT), 'number');
  assert.equal(arithmetic('^', 4n, 3n, AT), 64);
  assert.equal(typeof arithmetic('^', 4n, 3n, AT), 'number');
  assert.equal(arithmetic('^', arithmetic('^', 4n, 6n, AT), 3n, AT), 68719476736);
  assert.equal(arithmetic('^', -3n, 2n, AT), 9);
  assert.ok(Number.isNaN(arithmetic('/', 0.0, 0.0, AT)));
  assert.equal(arithmetic('/', 1n, 0.0, AT), Infinity);
  assert.equal(arithmetic('/', -1.0, 0n, AT), -Infinity);
  assert.ok(Number.isNaN(arithmetic('%', 1.0, 0n, AT)));
  assert.equal(arithmetic('%', -7.5, 2n, AT), -1.5);
});

test('+ concatenates lists with lists and items, and strings with scalars (List4, CIP2017-05-18)', () => {
  assert.deepEqual(arithmetic('+', [1n, 10n, 100n], [4n, 5n], AT), [1n, 10n, 100n, 4n, 5n]);
  assert.deepEqual(arithmetic('+', [false, true], false, AT), [false, true, false]);
  assert.deepEqual(arithmetic('+', 'foo', [false, 1n], AT), ['foo', false, 1n]);
  assert.deepEqual(arithmetic('+', [[], []], [[]], AT), [[], [], []]);
  assert.equal(arithmetic('+', 'nam', 'e', AT), 'name');
  assert.equal(arithmetic('+', 'foo', true, AT), 'footrue');
  assert.equal(arithmetic('+', arithmetic('+', 10n, 'foo', AT), 3n, AT), '10foo3');
  assert.equal(arithmetic('+', 'v', 2.0, AT), 'v2.0');
  assert.equal(arithmetic('+', null, 'x', AT), null);
  assert.equal(arithmetic('+', [1n], null, AT), null);
  assert.equal(arithmetic('*', null, 2n, AT), null);
});

test('operands of the wrong type are type_error InvalidArgumentType', () => {
  assertCypherError(() => arithmetic('-', 'a', 1n, AT), 'type_error', 'InvalidArgumentType');
  assertCypherError(() => arithmetic('*', 2n, [1n], AT), 'type_error', 'InvalidArgumentType');
  assertCypherError(() => arithmetic('+', 'a', map({}), AT), 'type_error', 'InvalidArgumentType');
  assertCypherError(() => arithmetic('+', true, 1n, AT), 'type_error', 'InvalidArgumentType');
  assertCypherError(() => arithmetic('+', new NodeRef(1), 'x', AT), 'type_error', 'InvalidArgumentType');
  assertCypherError(() => negate('1', AT), 'type_error', 'InvalidArgumentType');
  assertCypherError(() => checkNumber(true, AT), 'type_error', 'InvalidArgumentType');
});

test('unary minus and plus', () => {
  assert.equal(negate(3n, AT), -3n);
  assert.equal(negate(-2.5, AT), 2.5);
  assert.equal(negate(null, AT), null);
  assert.equal(negate(I64_MAX, AT), -I64_MAX);
  assertCypherError(() => negate(I64_MIN, AT), 'arithmetic_error', 'IntegerOverflow');
  assert.equal(checkNumber(1.5, AT), 1.5);
  assert.equal(checkNumber(null, AT), null);
});

test('STARTS WITH, ENDS WITH, CONTAINS: null for any non-string operand, the empty string matches all (String8-10)', () => {
  assert.equal(stringOp('startsWith', 'ABCDEF', 'ABC', AT), true);
  assert.equal(stringOp('startsWith', 'abcdef', 'ABC', AT), false);
  assert.equal(stringOp('endsWith', 'ABCDEF', 'DEF', AT), true);
  assert.equal(stringOp('contains', 'ABCDEF', 'CD', AT), true);
  assert.equal(stringOp('contains', 'Foo\nFoo', '\n', AT), true);
  for (const op of ['startsWith', 'endsWith', 'contains'] as const) {
    assert.equal(stringOp(op, '', '', AT), true);
    assert.equal(stringOp(op, 'ab', null, AT), null);
    const operands: CypherValue[] = [1n, 3.14, true, [], map({}), null];
    for (const a of operands) for (const b of operands) assert.equal(stringOp(op, a, b, AT), null);
  }
});

test('=~ matches the whole string with a Java-style pattern; inline flags become RegExp flags', () => {
  assert.equal(stringOp('regex', 'ABCDEF', 'AB.*', AT), true);
  assert.equal(stringOp('regex', 'xABCDEF', 'AB.*', AT), false, 'anchored at the start');
  assert.equal(stringOp('regex', 'ABCDEFx', 'ABCDEF', AT), false, 'anchored at the end');
  assert.equal(stringOp('regex', 'a|b', 'a\\|b', AT), true);
  assert.equal(stringOp('regex', 'b', 'a|b', AT), true, 'an alternation is anchored as a whole');
  assert.equal(stringOp('regex', 'abc', '(?i)ABC', AT), true);
  assert.equal(stringOp('regex', 'a\nb', '(?s)a.b', AT), true);
  assert.equal(stringOp('regex', '\u{1F600}', '.', AT), true, 'one code point, as Java matches');
  assert.equal(stringOp('regex', 'a-b', 'a\\-b', AT), true, 'an escape Java accepts and unicode mode does not');
  assert.equal(stringOp('regex', 'abc', null, AT), null);
  assert.equal(stringOp('regex', 12n, '1.*', AT), null);
  assertCypherError(() => stringOp('regex', 'abc', '(unclosed', AT), 'argument_error', 'InvalidArgumentValue');
});

test('IN is three-valued over equality (Null3 [4], List5)', () => {
  const cases: [CypherValue, CypherValue, boolean | null][] = [
    [null, null, null],
    [null, [1n, 2n, 3n], null],
    [null, [1n, 2n, 3n, null], null],
    [null, [], false],
    [1n, [1n, 2n, 3n, null], true],
    [1n, [null, 1n], true],
    [5n, [1n, 2n, 3n, null], null],
    [1n, ['1', 2n], false],
    [[1n, 2n], [1n, [1n, '2']], false],
    [[1n], [1n, 2n], false],
    [[1n], [1n, 2n, [1n]], true],
    [[1n, 2n], [1n, [2n, 1n]], false],
    [[1n, 2n], [1n, [[1n, 2n]]], false],
    [
      [
        [1n, 2n],
        [3n, 4n],
      ],
      [
        5n,
        [
          [1n, 2n],
          [3n, 4n],
        ],
      ],
      true,
    ],
    [[[1n]], [2n, [1n]], false],
    [null, [null], null],
    [[null], [[null]], null],
    [[null], [null], null],
    [[1n], [[1n, null]], false],
    [3n, [1n, null, 3n], true],
    [4n, [1n, null, 3n], null],
    [
      [1n, 2n],
      [
        [null, 'foo'],
        [1n, 2n],
      ],
      true,
    ],
    [[1n, 2n], [[null, 'foo']], false],
    [[1n, 2n], [[null, 2n]], null],
    [[1n, 2n, null], [1n, [1n, 2n, null]], null],
    [
      [1n, 2n],
      [
        [null, 2n],
        [1n, 3n],
      ],
      null,
    ],
    [[], [[]], true],
    [[], [], false],
    [[], [1n, 2n, null], null],
    [3n, [1n, 2n, 3n].slice(0, 1), false],
  ];
  for (const [v, list, want] of cases) assert.equal(inList(v, list, AT), want, `${show(v)} IN ${show(list)}`);
  for (const bad of [true, 123n, 123.4, 'foo', map({ x: [] })])
    assertCypherError(() => inList(1n, bad, AT), 'type_error', 'InvalidArgumentType');
});

test('boolean operands: booleans and null pass, anything else is InvalidArgumentType (Boolean1-4)', () => {
  assert.equal(logical(true, AT), true);
  assert.equal(logical(false, AT), false);
  assert.equal(logical(null, AT), null);
  for (const bad of [123n, 123.4, 'foo', [], [true], map({})])
    assertCypherError(() => logical(bad, AT), 'type_error', 'InvalidArgumentType');
});

test('property access: maps (missing key is null), nodes and relationships, null; deleted elements fail (Map1, Graph6, Return2 [15])', () => {
  const access = graph();
  const m = map({ existing: 42n, notMissing: null });
  assert.equal(propertyOf(m, 'existing', AT, access), 42n);
  assert.equal(propertyOf(m, 'notMissing', AT, access), null);
  assert.equal(propertyOf(m, 'missing', AT, access), null);
  assert.equal(propertyOf(m, 'toString', AT, access), null, 'no inherited keys');
  assert.equal(propertyOf(map({ name: 'Mats', Name: 'Pontus' }), 'Name', AT, access), 'Pontus');
  assert.equal(propertyOf(null, 'missing', AT, access), null);
  assert.equal(propertyOf(new NodeRef(1), 'name', AT, access), 'Popeye');
  assert.equal(propertyOf(new NodeRef(1), 'missing', AT, access), null);
  assert.equal(propertyOf(new NodeRef(1), '$internal', AT, access), null, 'internal properties stay hidden');
  assert.equal(propertyOf(new RelRef(10), 'since', AT, access), 1999n);
  assertCypherError(() => propertyOf(new NodeRef(3), 'num', AT, access), 'entity_not_found', 'DeletedEntityAccess');
  assertCypherError(() => propertyOf(new RelRef(11), 'num', AT, access), 'entity_not_found', 'DeletedEntityAccess');
  for (const bad of [123n, 42.45, true, 'string', [123n, true]])
    assertCypherError(() => propertyOf(bad, 'num', AT, access), 'type_error', 'InvalidArgumentType');
});

test('indexing lists by integer, maps and elements by string (List1, Map2, Graph7)', () => {
  const access = graph();
  assert.equal(indexValue([1n, 2n, 3n], 0n, AT, access), 1n);
  assert.equal(indexValue([1n, 2n, 3n], -1n, AT, access), 3n);
  assert.equal(indexValue([1n, 2n, 3n], 3n, AT, access), null);
  assert.equal(indexValue([1n, 2n, 3n], -4n, AT, access), null);
  assert.equal(indexValue([1n], 2n ** 62n, AT, access), null);
  assert.equal(indexValue([1n], null, AT, access), null);
  assert.equal(indexValue(null, 'x', AT, access), null);
  assert.equal(indexValue(map({ name: 'Mats' }), null, AT, access), null);
  assert.equal(indexValue(map({ null: 'Mats', NULL: 'Pontus' }), 'NULL', AT, access), 'Pontus');
  assert.equal(indexValue(map({ name: 'Mats' }), 'nAMe', AT, access), null);
  assert.equal(indexValue(new NodeRef(1), 'name', AT, access), 'Popeye');
  assert.equal(indexValue(new RelRef(10), 'since', AT, access), 1999n);
  for (const bad of [true, 4.7, '1', [1n], map({ x: 3n })])
    assertCypherError(() => indexValue([1n, 2n], bad, AT, access), 'type_error', 'InvalidArgumentType');
  for (const bad of [true, 123n, 4.7, '1']) assertCypherError(() => indexValue(bad, 0n, AT, access), 'type_error', 'InvalidArgumentType');
  assertCypherError(() => indexValue(map({ name: 'Apa' }), 0n, AT, access), 'type_error', 'MapElementAccessByNonString');
  assertCypherError(() => indexValue(map({ name: 'Apa' }), 12.3, AT, access), 'type_error', 'MapElementAccessByNonString');
  assertCypherError(() => indexValue(new NodeRef(1), 0n, AT, access), 'type_error', 'MapElementAccessByNonString');
});

test('slicing: omitted, negative, out-of-range and null bounds (List2)', () => {
  assert.deepEqual(sliceList([1n, 2n, 3n, 4n, 5n], 1n, 3n, AT), [2n, 3n]);
  assert.deepEqual(sliceList([1n, 2n, 3n], 1n, undefined, AT), [2n, 3n]);
  assert.deepEqual(sliceList([1n, 2n, 3n], undefined, 2n, AT), [1n, 2n]);
  assert.deepEqual(sliceList([1n, 2n, 3n], 0n, 1n, AT), [1n]);
  assert.deepEqual(sliceList([1n, 2n, 3n], 0n, 0n, AT), []);
  assert.deepEqual(sliceList([1n, 2n, 3n], -3n, -1n, AT), [1n, 2n]);
  assert.deepEqual(sliceList([1n, 2n, 3n], 3n, 1n, AT), []);
  assert.deepEqual(sliceList([1n, 2n, 3n], -5n, 5n, AT), [1n, 2n, 3n]);
  assert.deepEqual(sliceList([1n, 2n, 3n], undefined, undefined, AT), [1n, 2n, 3n]);
  for (const [from, to] of [
    [null, null],
    [1n, null],
    [null, 3n],
    [undefined, null],
    [null, undefined],
  ] as const)
    assert.equal(sliceList([1n, 2n, 3n], from, to, AT), null);
  assert.equal(sliceList(null, 0n, 1n, AT), null);
  assertCypherError(() => sliceList('abc', 0n, 1n, AT), 'type_error', 'InvalidArgumentType');
  assertCypherError(() => sliceList([1n], 0.5, 1n, AT), 'type_error', 'InvalidArgumentType');
});
