/**
 * Conformance: every predicate form (reference §4.4) with exact results, including the
 * typed-equality, ordering and null rules, and the static incompatible_comparison rule.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { atPath, ci, cs, f, i, idRows, ids, openTestDb, prop, q, rejects400, s, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

const dt = (ms: number) => ({ value: { date_time: ms } });
const cdt = (ms: number) => ({ constant: { date_time: ms } });
const cf = (v: number) => ({ constant: { f64: v } });
const cnull = { constant: 'null' };

/*
 * Nodes (label W), in id order:
 *   0 {name a0, s "apple pie", n 1,     f 1.5,   dt 1000ms, nul null, arr ["apple","pie"], obj {k: 1, inner: {z: null}}}
 *   1 {name a1, s "banana",    n 2,     f 2.0,   dt 2000ms}
 *   2 {name a2, s "Apple",     n 1.0,            dt 3000ms, nul 0}
 *   3 {name a3, s "pineapple", n 10,    f "1.5", dt "1970-01-01T00:00:02.000Z" (a string)}
 *   4 {name a4, s "\uFFFD",    n true}
 *   5 {name a5, s "😀",        n null}
 *   6 {name a6}
 * "\uFFFD" (UTF-8 EF BF BD) sorts before "😀" (F0 9F 98 80) in byte order, after it in UTF-16 order.
 */
before(async () => {
  t = await openTestDb();
  const w = (props: [string, unknown][]) => q(null, { add_n: { label: 'W', properties: props } });
  await t.write(
    [
      w([
        ['name', s('a0')],
        ['s', s('apple pie')],
        ['n', i(1)],
        ['f', f(1.5)],
        ['dt', dt(1000)],
        ['nul', { value: 'null' }],
        ['arr', { value: { string_array: ['apple', 'pie'] } }],
        ['obj', { value: { object: { k: { i64: 1 }, inner: { object: { z: 'null' } } } } }],
      ]),
      w([
        ['name', s('a1')],
        ['s', s('banana')],
        ['n', i(2)],
        ['f', f(2)],
        ['dt', dt(2000)],
      ]),
      w([
        ['name', s('a2')],
        ['s', s('Apple')],
        ['n', f(1)],
        ['dt', dt(3000)],
        ['nul', i(0)],
      ]),
      w([
        ['name', s('a3')],
        ['s', s('pineapple')],
        ['n', i(10)],
        ['f', s('1.5')],
        ['dt', s('1970-01-01T00:00:02.000Z')],
      ]),
      w([
        ['name', s('a4')],
        ['s', s('\uFFFD')],
        ['n', { value: { bool: true } }],
      ]),
      w([
        ['name', s('a5')],
        ['s', s('😀')],
        ['n', { value: 'null' }],
      ]),
      w([['name', s('a6')]]),
    ],
    [],
  );
  assert.deepEqual(await t.read([q('r', { nodes: { reference: 'all' } })], ['r']), { r: idRows(0, 1, 2, 3, 4, 5, 6) });
});
after(() => t.close());

const all = { nodes: { reference: 'all' } };
/** The ids of the W nodes for which the predicate holds, in id order. */
const keep = async (predicate: unknown, parameters?: Record<string, unknown>) =>
  (await t.read([q('r', { id: { input: { where: { input: all, predicate } } } })], ['r'], parameters)).r;
const ALL = [0, 1, 2, 3, 4, 5, 6];

// compare and the named comparison forms

test('compare with each op gives the same rows as the named form (n against 2)', async () => {
  const expected: Record<string, number[]> = {
    eq: [1],
    neq: [0, 2, 3, 4, 5, 6],
    gt: [3],
    gte: [1, 3],
    lt: [0, 2],
    lte: [0, 1, 2],
  };
  for (const [op, rows] of Object.entries(expected)) {
    assert.deepEqual(await keep({ compare: { left: prop('n'), op, right: ci(2) } }), rows, `compare ${op} i64 2`);
    assert.deepEqual(await keep({ [op]: { left: prop('n'), right: ci(2) } }), rows, `${op} i64 2`);
    assert.deepEqual(await keep({ compare: { left: prop('n'), op, right: cf(2) } }), rows, `compare ${op} f64 2.0`);
  }
});

test('compare with the constant on the left and the property on the right', async () => {
  assert.deepEqual(await keep({ compare: { left: ci(2), op: 'gt', right: prop('n') } }), [0, 2]);
  assert.deepEqual(await keep({ compare: { left: ci(2), op: 'lte', right: prop('n') } }), [1, 3]);
  assert.deepEqual(await keep({ compare: { left: cs('banana'), op: 'eq', right: prop('s') } }), [1]);
  assert.deepEqual(await keep({ compare: { left: ci(1), op: 'neq', right: prop('n') } }), [1, 3, 4, 5, 6]);
});

test('eq compares numbers by value across i64 and f64 (1 == 1.0); other kinds by kind and value', async () => {
  assert.deepEqual(await keep({ eq: { left: prop('n'), right: ci(1) } }), [0, 2]);
  assert.deepEqual(await keep({ eq: { left: prop('n'), right: cf(1) } }), [0, 2]);
  assert.deepEqual(await keep({ eq: { left: prop('n'), right: { constant: { f32: 1 } } } }), [0, 2]);
  assert.deepEqual(await keep({ eq: { left: prop('f'), right: ci(2) } }), [1], 'stored f64 2.0 equals i64 2');
  assert.deepEqual(await keep({ eq: { left: prop('f'), right: cf(1.5) } }), [0], 'the string "1.5" is not the number 1.5');
  assert.deepEqual(await keep({ eq: { left: prop('f'), right: cs('1.5') } }), [3]);
  assert.deepEqual(await keep({ eq: { left: prop('n'), right: { constant: { bool: true } } } }), [4]);
  assert.deepEqual(await keep({ eq: { left: prop('n'), right: cs('1') } }), []);
  assert.deepEqual(await keep({ eq: { left: prop('dt'), right: ci(2000) } }), [], 'a date_time is not its epoch number');
  assert.deepEqual(await keep({ eq: { left: prop('dt'), right: cs('1970-01-01T00:00:02.000Z') } }), [3], 'nor its RFC 3339 text');
  // A missing property is null: eq null matches stored null and missing.
  assert.deepEqual(await keep({ eq: { left: prop('n'), right: cnull } }), [5, 6]);
  assert.deepEqual(await keep({ eq: { left: prop('nul'), right: cnull } }), [0, 1, 3, 4, 5, 6]);
  // Equality of compound values: same kind, same elements.
  assert.deepEqual(await keep({ eq: { left: prop('arr'), right: { constant: { string_array: ['apple', 'pie'] } } } }), [0]);
  assert.deepEqual(await keep({ eq: { left: prop('arr'), right: { constant: { string_array: ['pie', 'apple'] } } } }), []);
  assert.deepEqual(
    await keep({ eq: { left: prop('obj'), right: { constant: { object: { inner: { object: { z: 'null' } }, k: { i64: 1 } } } } } }),
    [0],
  );
});

test('neq is the negation of eq: true on missing properties unless compared with null', async () => {
  assert.deepEqual(await keep({ neq: { left: prop('f'), right: ci(2) } }), [0, 2, 3, 4, 5, 6]);
  assert.deepEqual(await keep({ neq: { left: prop('missing'), right: cs('x') } }), ALL);
  assert.deepEqual(await keep({ neq: { left: prop('f'), right: cnull } }), [0, 1, 3]);
  assert.deepEqual(await keep({ neq: { left: prop('n'), right: cf(1) } }), [1, 3, 4, 5, 6]);
});

test('gt/gte/lt/lte on strings use UTF-8 byte order (case-sensitive; U+FFFD before emoji)', async () => {
  assert.deepEqual(await keep({ gt: { left: prop('s'), right: cs('apple') } }), [0, 1, 3, 4, 5]);
  assert.deepEqual(await keep({ lt: { left: prop('s'), right: cs('a') } }), [2]);
  assert.deepEqual(await keep({ lte: { left: prop('s'), right: cs('Apple') } }), [2]);
  assert.deepEqual(await keep({ gte: { left: prop('s'), right: cs('pineapple') } }), [3, 4, 5]);
  assert.deepEqual(await keep({ lt: { left: prop('s'), right: cs('😀') } }), [0, 1, 2, 3, 4]);
  assert.deepEqual(await keep({ gt: { left: prop('s'), right: cs('\uFFFD') } }), [5]);
  // Strings never order against numbers: false, not an error.
  assert.deepEqual(await keep({ gt: { left: prop('s'), right: ci(0) } }), []);
  assert.deepEqual(await keep({ lt: { left: prop('n'), right: cs('z') } }), []);
});

test('date_time comparisons: only against date_times, never numbers or RFC 3339 strings', async () => {
  assert.deepEqual(await keep({ gt: { left: prop('dt'), right: cdt(1500) } }), [1, 2]);
  assert.deepEqual(await keep({ gte: { left: prop('dt'), right: cdt(2000) } }), [1, 2]);
  assert.deepEqual(await keep({ lt: { left: prop('dt'), right: cdt(2000) } }), [0]);
  assert.deepEqual(await keep({ lte: { left: prop('dt'), right: cdt(2000) } }), [0, 1]);
  assert.deepEqual(await keep({ eq: { left: prop('dt'), right: cdt(2000) } }), [1]);
  assert.deepEqual(await keep({ neq: { left: prop('dt'), right: cdt(2000) } }), [0, 2, 3, 4, 5, 6]);
  assert.deepEqual(await keep({ gt: { left: prop('dt'), right: ci(0) } }), []);
  assert.deepEqual(await keep({ gt: { left: prop('dt'), right: cs('1970') } }), [3], 'only the stored string compares with a string');
  assert.deepEqual(await keep({ lt: { left: prop('dt'), right: 'date_time_now' } }), [0, 1, 2], 'all stored date_times are in the past');
});

test('a typed date_time parameter compares with stored date_times (D7)', async () => {
  const res = await t.db.query({
    request_type: 'read',
    query: {
      read: {
        entries: [
          q('gt', { id: { input: { where: { input: all, predicate: { gt: { left: prop('dt'), right: { param: 'd' } } } } } } }),
          q('eq', { id: { input: { where: { input: all, predicate: { eq: { left: prop('dt'), right: { param: 'e' } } } } } } }),
        ],
        returns: ['gt', 'eq'],
      },
    },
    parameters: { d: '1970-01-01T00:00:01.500Z', e: '1970-01-01T01:00:02+01:00' },
    parameter_types: { d: 'date_time', e: 'date_time' },
  });
  assert.deepEqual(res, { gt: [1, 2], eq: [1] });
  // Untyped, the same text is a string and only meets the stored string.
  assert.deepEqual(await keep({ eq: { left: prop('dt'), right: { param: 'e' } } }, { e: '1970-01-01T00:00:02.000Z' }), [3]);
});

// String predicates

test('contains: substring of a string only, never array membership', async () => {
  assert.deepEqual(await keep({ contains: { value: prop('s'), substring: cs('apple') } }), [0, 3]);
  assert.deepEqual(await keep({ contains: { value: prop('s'), substring: cs('pple') } }), [0, 2, 3]);
  assert.deepEqual(await keep({ contains: { value: prop('s'), substring: cs('') } }), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(
    await keep({ contains: { value: prop('arr'), substring: cs('apple') } }),
    [],
    'a string_array does not "contain" its element',
  );
  assert.deepEqual(await keep({ contains: { value: prop('n'), substring: cs('1') } }), [], 'numbers are not strings');
  assert.deepEqual(await keep({ contains: { value: prop('s'), substring: { param: 'x' } } }, { x: 'nan' }), [1]);
  assert.deepEqual(await keep({ contains: { value: cs('xx banana xx'), substring: prop('s') } }), [1]);
});

test('starts_with and ends_with: case-sensitive prefix and suffix of strings', async () => {
  assert.deepEqual(await keep({ starts_with: { value: prop('s'), prefix: cs('A') } }), [2]);
  assert.deepEqual(await keep({ starts_with: { value: prop('s'), prefix: cs('a') } }), [0]);
  assert.deepEqual(await keep({ starts_with: { value: prop('s'), prefix: cs('pi') } }), [3]);
  assert.deepEqual(await keep({ starts_with: { value: prop('s'), prefix: cs('APPLE') } }), []);
  assert.deepEqual(await keep({ starts_with: { value: prop('s'), prefix: cs('') } }), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(await keep({ starts_with: { value: cs('apple pie and more'), prefix: prop('s') } }), [0]);
  assert.deepEqual(await keep({ ends_with: { value: prop('s'), suffix: cs('apple') } }), [3]);
  assert.deepEqual(await keep({ ends_with: { value: prop('s'), suffix: cs('pple') } }), [2, 3]);
  assert.deepEqual(await keep({ ends_with: { value: prop('s'), suffix: cs('pie') } }), [0]);
  assert.deepEqual(await keep({ ends_with: { value: prop('s'), suffix: cs('') } }), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(await keep({ ends_with: { value: prop('arr'), suffix: cs('pie') } }), []);
  assert.deepEqual(await keep({ ends_with: { value: prop('name'), suffix: { param: 'x' } } }, { x: '6' }), [6]);
});

// Null and key predicates

test('is_null and is_not_null: missing and stored null are both null', async () => {
  assert.deepEqual(await keep({ is_null: { property: 'nul' } }), [0, 1, 3, 4, 5, 6]);
  assert.deepEqual(await keep({ is_not_null: { property: 'nul' } }), [2], 'the stored i64 0 is not null');
  assert.deepEqual(await keep({ is_null: { property: 'n' } }), [5, 6]);
  assert.deepEqual(await keep({ is_not_null: { property: 'n' } }), [0, 1, 2, 3, 4]);
  assert.deepEqual(await keep({ is_not_null: { property: '$id' } }), ALL);
  assert.deepEqual(await keep({ is_null: { property: 'obj.inner.z' } }), ALL);
  assert.deepEqual(await keep({ is_not_null: { property: 'obj.k' } }), [0]);
});

test('has_key: a stored null counts, a missing property does not; $id and $label always', async () => {
  assert.deepEqual(await keep({ has_key: { property: 'nul' } }), [0, 2]);
  assert.deepEqual(await keep({ has_key: { property: 'n' } }), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(await keep({ has_key: { property: 'missing' } }), []);
  assert.deepEqual(await keep({ has_key: { property: '$id' } }), ALL);
  assert.deepEqual(await keep({ has_key: { property: '$label' } }), ALL);
  assert.deepEqual(await keep({ has_key: { property: 'obj.inner.z' } }), [0], 'a null inside an object resolves');
  assert.deepEqual(await keep({ has_key: { property: 'obj.inner.nope' } }), []);
  // The has_key step is the same predicate.
  assert.deepEqual((await t.read([q('r', { id: { input: { has_key: { input: all, property: 'nul' } } } })], ['r'])).r, [0, 2]);
});

// is_in

test('is_in with an array literal and typed array literals', async () => {
  const arr = { constant: { array: [{ i64: 1 }, { string: 'banana' }] } };
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: arr } }), [0, 2]);
  assert.deepEqual(await keep({ is_in: { value: prop('s'), values: arr } }), [1]);
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: { constant: { i64_array: [2, 10] } } } }), [1, 3]);
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: { constant: { f64_array: [1, 2.5] } } } }), [0, 2]);
  assert.deepEqual(await keep({ is_in: { value: prop('f'), values: { constant: { f32_array: [1.5] } } } }), [0]);
  assert.deepEqual(
    await keep({ is_in: { value: prop('s'), values: { constant: { string_array: ['Apple', 'banana', 'nope'] } } } }),
    [1, 2],
  );
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: { constant: { string_array: ['1', '2'] } } } }), []);
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: { constant: { array: [] } } } }), []);
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: { constant: { array: ['null'] } } } }), [5, 6]);
  // Elements are compared whole: an array is in an array of arrays, a string is not "in" a string_array value.
  assert.deepEqual(
    await keep({ is_in: { value: prop('arr'), values: { constant: { array: [{ string_array: ['apple', 'pie'] }] } } } }),
    [0],
  );
  assert.deepEqual(await keep({ is_in: { value: cs('apple'), values: prop('arr') } }), [0], 'the values may be a stored array');
});

test('is_in with a parameter holding a JSON array', async () => {
  assert.deepEqual(await keep({ is_in: { value: prop('name'), values: { param: 'xs' } } }, { xs: ['a1', 'a3', 'zzz'] }), [1, 3]);
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: { param: 'xs' } } }, { xs: [2, 'a4'] }), [1]);
  assert.deepEqual(await keep({ is_in: { value: prop('name'), values: { param: 'xs' } } }, { xs: [2, 'a4'] }), [4]);
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: { param: 'xs' } } }, { xs: [] }), []);
});

test('is_in with a non-array values falls back to plain equality (never substring)', async () => {
  assert.deepEqual(await keep({ is_in: { value: prop('s'), values: cs('banana') } }), [1]);
  assert.deepEqual(await keep({ is_in: { value: prop('s'), values: cs('apple') } }), [], '"apple" is not "apple pie"');
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: ci(2) } }), [1]);
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: cf(1) } }), [0, 2]);
  assert.deepEqual(await keep({ is_in: { value: prop('n'), values: cnull } }), [5, 6]);
  assert.deepEqual(await keep({ is_in: { value: prop('name'), values: { param: 'x' } } }, { x: 'a4' }), [4]);
});

// between

test('between is inclusive at both ends and uses the comparison rules', async () => {
  assert.deepEqual(await keep({ between: { value: prop('n'), min: ci(1), max: ci(2) } }), [0, 1, 2]);
  assert.deepEqual(await keep({ between: { value: prop('n'), min: cf(1.5), max: ci(10) } }), [1, 3]);
  assert.deepEqual(await keep({ between: { value: prop('n'), min: ci(2), max: ci(2) } }), [1]);
  assert.deepEqual(await keep({ between: { value: prop('n'), min: ci(2), max: ci(1) } }), [], 'min above max matches nothing');
  assert.deepEqual(await keep({ between: { value: prop('s'), min: cs('b'), max: cs('pineapple') } }), [1, 3]);
  assert.deepEqual(await keep({ between: { value: prop('dt'), min: cdt(1000), max: cdt(2000) } }), [0, 1]);
  assert.deepEqual(await keep({ between: { value: ci(5), min: prop('n'), max: ci(10) } }), [0, 1, 2]);
});

test('between over stored values of another kind is false; known ends of two different kinds are a 400', async () => {
  assert.deepEqual(await keep({ between: { value: prop('dt'), min: ci(0), max: ci(5000) } }), []);
  assert.deepEqual(await keep({ between: { value: prop('s'), min: ci(0), max: ci(5) } }), []);
  assert.deepEqual(await keep({ between: { value: prop('missing'), min: ci(0), max: ci(5) } }), []);
  assert.deepEqual(await keep({ not: { predicate: { between: { value: prop('s'), min: ci(0), max: ci(5) } } } }), ALL);
  // min "a" and max 5 can never both hold: the request has a bug, said before anything runs.
  for (const [min, max] of [
    [cs('a'), ci(5)],
    [ci(0), cs('z')],
  ]) {
    await rejects400(
      t.read([q('r', { where: { input: all, predicate: { between: { value: prop('n'), min, max } } } })], ['r']),
      'incompatible_comparison',
      atPath('.where.predicate.between'),
    );
  }
});

// Static rule: comparisons with a constant that can never be ordered (lead's decision)

test('gt/gte/lt/lte/between with a constant of an unorderable kind is a static 400 incompatible_comparison', async () => {
  const W = '.where.predicate';
  const none = ids(); // no rows: the rule is static, it does not depend on data
  const bad = (predicate: unknown, place: string) =>
    rejects400(t.read([q('r', { where: { input: none, predicate } })], ['r']), 'incompatible_comparison', atPath(W + place));
  await bad({ gt: { left: prop('n'), right: { constant: { bool: true } } } }, '.gt');
  await bad({ gte: { left: prop('n'), right: { constant: { bytes: [1] } } } }, '.gte');
  await bad({ lt: { left: prop('arr'), right: { constant: { string_array: ['a'] } } } }, '.lt');
  await bad({ lte: { left: prop('n'), right: cnull } }, '.lte');
  await bad({ gt: { left: { constant: { bool: false } }, right: prop('n') } }, '.gt');
  await bad({ lt: { left: prop('n'), right: { constant: { i64_array: [1] } } } }, '.lt');
  await bad({ gte: { left: prop('n'), right: { constant: { array: [] } } } }, '.gte');
  await bad({ lte: { left: prop('obj'), right: { constant: { object: {} } } } }, '.lte');
  await bad({ between: { value: prop('n'), min: ci(0), max: { constant: { object: {} } } } }, '.between');
  await bad({ between: { value: prop('n'), min: cnull, max: ci(5) } }, '.between');
  await bad({ compare: { left: prop('n'), op: 'gt', right: { constant: { f64_array: [1] } } } }, '.compare');
  await bad(
    { and: { predicates: [{ eq: { left: prop('n'), right: ci(1) } }, { lt: { left: prop('n'), right: { constant: { bool: true } } } }] } },
    '.and',
  );
  // Also in a source predicate.
  await rejects400(
    t.read([q('r', { nodes_where: { predicate: { gt: { left: prop('n'), right: { constant: { bool: true } } } } } })], ['r']),
    'incompatible_comparison',
    atPath('.nodes_where.predicate.gt'),
  );
});

test('starts_with/ends_with/contains with a non-string constant is a static 400 incompatible_comparison', async () => {
  const W = '.where.predicate';
  const bad = (predicate: unknown, place: string) =>
    rejects400(t.read([q('r', { where: { input: ids(), predicate } })], ['r']), 'incompatible_comparison', atPath(W + place));
  await bad({ starts_with: { value: prop('s'), prefix: ci(1) } }, '.starts_with');
  await bad({ ends_with: { value: prop('s'), suffix: { constant: { bool: true } } } }, '.ends_with');
  await bad({ contains: { value: prop('s'), substring: cnull } }, '.contains');
  await bad({ contains: { value: { constant: { string_array: ['apple'] } }, substring: cs('apple') } }, '.contains');
  await bad({ starts_with: { value: { constant: { i64: 12 } }, prefix: cs('1') } }, '.starts_with');
});

test('comparisons with a constant of an orderable kind stay legal: false on rows of another kind', async () => {
  assert.deepEqual(await keep({ gt: { left: prop('n'), right: cs('a') } }), []);
  assert.deepEqual(await keep({ lt: { left: prop('s'), right: cdt(0) } }), []);
  assert.deepEqual(await keep({ gte: { left: prop('nul'), right: ci(0) } }), [2], 'only the i64 0 compares; the stored null is false');
  assert.deepEqual(await keep({ eq: { left: prop('n'), right: { constant: { bool: true } } } }), [4], 'eq with any constant is legal');
  assert.deepEqual(await keep({ neq: { left: prop('nul'), right: cnull } }), [2]);
  assert.deepEqual(await keep({ starts_with: { value: prop('n'), prefix: cs('1') } }), [], 'a string constant against a number is false');
  // Parameter values are known before execution too, so they are checked like constants.
  assert.deepEqual(await keep({ gt: { left: prop('n'), right: { param: 'p' } } }, { p: 1 }), [1, 3]);
  const where = (predicate: unknown, p: unknown) => t.read([q('r', { where: { input: all, predicate } })], ['r'], { p });
  await rejects400(
    where({ gt: { left: prop('n'), right: { param: 'p' } } }, true),
    'incompatible_comparison',
    atPath('.where.predicate.gt.right.param'),
  );
  await rejects400(
    where({ contains: { value: prop('s'), substring: { param: 'p' } } }, 1),
    'incompatible_comparison',
    atPath('.where.predicate.contains.substring.param'),
  );
  await rejects400(
    where({ between: { value: prop('n'), min: { param: 'p' }, max: ci(5) } }, null),
    'incompatible_comparison',
    atPath('.where.predicate.between.min.param'),
  );
});
