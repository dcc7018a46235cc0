/** Cells to values by type (src/bulk-io/cells.ts), header fields, id spaces and progress lines, one by one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CellError, fromNative, fromText, parseTagged } from '../../src/bulk-io/cells.js';
import { HeaderError, parseField, parseHeader, parseValueType } from '../../src/bulk-io/header.js';
import { IdSpace } from '../../src/bulk-io/id-spaces.js';
import { progressReport } from '../../src/bulk-io/progress.js';
import { DateTime } from '../../src/core/value.js';

const t = (scalar: string, array = false) => parseValueType(array ? `${scalar}[]` : scalar)!;
const fails = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (err: unknown) => err instanceof CellError && message.test(err.message));

test('text cells: integers in their ranges, floats by name, booleans, dates, date-times, chars, json, arrays', () => {
  assert.equal(fromText(' 42 ', t('int'), ';'), 42n);
  assert.equal(fromText('-9223372036854775808', t('long'), ';'), -(2n ** 63n));
  assert.equal(fromText('9007199254740993', t('long'), ';'), 9007199254740993n);
  fails(() => fromText('9223372036854775808', t('long'), ';'), /outside the range of long/);
  fails(() => fromText('40000', t('short'), ';'), /outside the range of short/);
  fails(() => fromText('1.5', t('int'), ';'), /"1.5" is not an integer \(type int\)/);
  assert.ok(Object.is(fromText('-0.0', t('double'), ';'), -0));
  assert.equal(fromText('-inf', t('double'), ';'), -Infinity);
  assert.ok(Number.isNaN(fromText('nan', t('double'), ';') as number));
  assert.equal(fromText('1e-3', t('double'), ';'), 0.001);
  fails(() => fromText('0x10', t('double'), ';'), /is not a number/);
  assert.equal(fromText('0.1', t('float'), ';'), Math.fround(0.1));
  fails(() => fromText('1e39', t('float'), ';'), /outside the range of float/);
  assert.equal(fromText('TRUE', t('boolean'), ';'), true);
  fails(() => fromText('yes', t('boolean'), ';'), /not a boolean/);
  assert.deepEqual(fromText('2024-02-29', t('date'), ';'), new DateTime(Date.UTC(2024, 1, 29)));
  fails(() => fromText('2023-02-29', t('date'), ';'), /not a date/);
  assert.deepEqual(fromText('2024-01-02 03:04:05', t('localdatetime'), ';'), new DateTime(Date.UTC(2024, 0, 2, 3, 4, 5)));
  assert.deepEqual(fromText('2024-01-02T03:04:05+01:00', t('datetime'), ';'), new DateTime(Date.UTC(2024, 0, 2, 2, 4, 5)));
  assert.deepEqual(fromText('2024-01-02', t('datetime'), ';'), new DateTime(Date.UTC(2024, 0, 2)));
  fails(() => fromText('yesterday', t('datetime'), ';'), /not a date-time/);
  assert.equal(fromText('😀', t('char'), ';'), '😀');
  fails(() => fromText('ab', t('char'), ';'), /not one character/);
  assert.deepEqual(fromText('{"i64_array": [1, 2]}', t('json'), ';'), BigInt64Array.from([1n, 2n]));
  fails(() => parseTagged('{"i64": '), /is not JSON/);
  fails(() => parseTagged('{"nope": 1}'), /not a tagged value/);
  assert.deepEqual(fromText('1;2', t('double', true), ';'), Float64Array.from([1, 2]));
  assert.deepEqual(fromText('true|false', t('boolean', true), '|'), [true, false]);
  assert.deepEqual(fromText('', t('long', true), ';'), new BigInt64Array(0));
});

test('values from JSON and Parquet: by type, or a clear reason', () => {
  assert.equal(fromNative(7, t('byte')), 7n);
  assert.equal(fromNative(7n, t('long')), 7n);
  assert.equal(fromNative('7', t('long')), 7n);
  fails(() => fromNative(1.5, t('long')), /the number 1\.5 is not a long|number 1.5 is not a long/);
  assert.equal(fromNative(3n, t('double')), 3);
  assert.equal(fromNative(0.1, t('float')), Math.fround(0.1));
  fails(() => fromNative(1e39, t('float')), /outside the range of float/);
  fails(() => fromNative(true, t('double')), /boolean true is not a double/);
  assert.equal(fromNative(false, t('boolean')), false);
  fails(() => fromNative(1, t('boolean')), /is not a boolean/);
  assert.deepEqual(fromNative(new Date(5), t('datetime')), new DateTime(5));
  assert.deepEqual(fromNative(86_400_000n, t('date')), new DateTime(86_400_000));
  fails(() => fromNative(new Date(NaN), t('datetime')), /a timestamp is not a datetime/);
  fails(() => fromNative(1.5, t('datetime')), /is not a datetime/);
  assert.equal(fromNative('null', t('json')), null);
  assert.deepEqual(fromNative({ object: { k: { bool: true } } }, t('json')), { k: true });
  fails(() => fromNative({ what: 1 }, t('json')), /not a tagged value/);
  fails(() => fromNative(null, t('string')), /null is not a string/);
  fails(() => fromNative([1], t('string')), /an array is not a string/);
  fails(() => fromNative({}, t('string')), /an object is not a string/);
  assert.deepEqual(fromNative(Float64Array.from([1, 2]), t('float', true)), Float32Array.from([1, 2]));
  assert.deepEqual(fromNative('a;b', t('string', true)), ['a', 'b']);
  fails(() => fromNative(5, t('long', true)), /is not an array \(type long\[\]\)/);
});

test('header fields: roles where they belong, a name for every property, one ID, one START_ID and END_ID', () => {
  assert.deepEqual(parseField('since:long', 'edge', 'string'), { role: 'property', name: 'since', type: t('long') });
  assert.deepEqual(parseField('name', 'node', 'string'), { role: 'property', name: 'name', type: t('string') });
  assert.deepEqual(parseField(':id', 'node', 'integer'), { role: 'id', name: '', space: '', type: t('long') });
  const bad = (text: string, element: 'node' | 'edge', message: RegExp) =>
    assert.throws(
      () => parseField(text, element, 'string'),
      (err: unknown) => err instanceof HeaderError && message.test(err.message),
    );
  bad(':ID', 'edge', /ID belongs in a node file/);
  bad(':START_ID', 'node', /START_ID belongs in an edge file/);
  bad(':LABEL', 'edge', /LABEL belongs in a node file/);
  bad(':TYPE', 'node', /TYPE belongs in an edge file/);
  bad(':long', 'node', /a property needs a name before the colon/);
  bad('', 'node', /a property needs a name/);
  bad('x:duration', 'node', /Trellis has no duration type/);
  bad('x:varchar', 'node', /unknown type "varchar"/);
  const header = (fields: string[], element: 'node' | 'edge', message: RegExp) =>
    assert.throws(
      () => parseHeader(fields, element, 'string'),
      (err: unknown) => err instanceof HeaderError && message.test(err.message),
    );
  header(['a:ID', 'b:ID'], 'node', /2 :ID fields; at most one/);
  header([':START_ID', 'x'], 'edge', /exactly one :END_ID field, this one has 0/);
  header(['a', 'a:int'], 'node', /names property "a" twice/);
  assert.deepEqual(parseHeader([':IGNORE', 'k:ID(S)'], 'node', 'string')[1], { role: 'id', name: 'k', space: 'S', type: t('string') });
});

test('id spaces: dense integer keys in an array, sparse and text keys in a map, each key once', () => {
  const space = new IdSpace();
  assert.equal(space.add(3, 30), true);
  assert.equal(space.add(3, 31), false);
  assert.equal(space.add(2 ** 40, 1), true, 'a sparse key');
  assert.equal(space.add(BigInt(2 ** 40), 2), false, 'the same key as a bigint');
  assert.equal(space.add(2n ** 60n, 3), true);
  assert.equal(space.add('3', 4), true, 'text is not the integer');
  assert.equal(space.add(-5, 5), true);
  for (let k = 0; k < 5000; k++) space.add(1000 + k, k);
  assert.equal(space.get(3), 30);
  assert.equal(space.get(3n), 30);
  assert.equal(space.get(2 ** 40), 1);
  assert.equal(space.get(2n ** 60n), 3);
  assert.equal(space.get('3'), 4);
  assert.equal(space.get(-5), 5);
  assert.equal(space.get(5999), 4999);
  assert.equal(space.get(7), undefined);
});

test('id spaces: a key added before its id is known (NaN) counts as taken, and set gives it its id', () => {
  const space = new IdSpace();
  for (const key of [4, 2 ** 40, 'k', 2n ** 60n]) {
    assert.equal(space.add(key, NaN), true);
    assert.equal(space.add(key, 1), false, `${String(key)} is a duplicate while its id is still to come`);
  }
  space.set(4, 40);
  space.set(2 ** 40, 41);
  space.set('k', 42);
  space.set(2n ** 60n, 43);
  assert.deepEqual([space.get(4), space.get(2 ** 40), space.get('k'), space.get(2n ** 60n)], [40, 41, 42, 43]);
});

test('progress lines: the rows, bytes, share, rate and time left of a phase, then its total', () => {
  const written: string[] = [];
  const out = { isTTY: false, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
  const progress = progressReport('auto', out, 0);
  progress.phase('nodes A', 4 * 2 ** 20);
  progress.advance(2 ** 20, 1500);
  progress.phase('edges', 0);
  progress.advance(10, 2);
  progress.done();
  progress.done();
  assert.match(written[0]!, /^nodes A: 1,500 rows, 1\.0 MiB of 4\.0 MiB \(25%\), [\d,]+ rows\/s, ETA \d+ s\n$/);
  assert.match(written[1]!, /^nodes A: 1,500 rows in [\d.]+ s\n$/);
  assert.match(written[2]!, /^edges: 2 rows, 0\.0 MiB, [\d,]+ rows\/s\n$/);
  assert.equal(written.length, 4);
  const none = progressReport('none', out);
  none.phase('x', 1);
  none.advance(1, 1);
  none.done();
  assert.equal(written.length, 4);
});
