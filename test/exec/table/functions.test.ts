/**
 * The scalar Cypher functions (src/exec/table/functions.ts) against the openCypher TCK
 * (features/expressions/**), and the function table they implement (plan/functions.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NodeRef, PathValue, RelRef, type CypherValue } from '../../../src/core/cypher-value.js';
import { FUNCTION_SIGNATURES } from '../../../src/plan/functions.js';
import { FUNCTIONS } from '../../../src/exec/table/functions.js';
import { isAggregate } from '../../../src/exec/table/aggregates.js';
import { AT, assertCypherError, graph, map } from './values.js';

const access = graph();
const call = (name: string, ...args: CypherValue[]): CypherValue => FUNCTIONS[name]!.call(args, access, AT);
const path = new PathValue([new NodeRef(1), new NodeRef(2)], [new RelRef(10)]);
const ELEMENTS: CypherValue[] = [new NodeRef(1), new RelRef(10), path];

test('every function of the signature table has an implementation, and nothing else does', () => {
  for (const [name, sig] of Object.entries(FUNCTION_SIGNATURES)) {
    if (sig.aggregate) assert.ok(isAggregate(name), `aggregate ${name} has an aggregator`);
    else assert.ok(Object.hasOwn(FUNCTIONS, name), `function ${name} is implemented`);
  }
  for (const name of Object.keys(FUNCTIONS)) {
    assert.ok(Object.hasOwn(FUNCTION_SIGNATURES, name), `${name} is in the signature table`);
    assert.equal(FUNCTION_SIGNATURES[name]!.aggregate, false);
  }
});

test('a null argument gives null (Graph3 [7], Graph4 [3], Graph9 [3], Path1-2, List6 [4], Map3 [3])', () => {
  for (const [name, sig] of Object.entries(FUNCTION_SIGNATURES)) {
    if (sig.aggregate || sig.min === 0 || name === 'coalesce' || name === 'exists') continue;
    const args: CypherValue[] = [null, 1n, 1n].slice(0, sig.min);
    assert.equal(FUNCTIONS[name]!.call(args, access, AT), null, `${name}(null)`);
  }
  assert.equal(call('coalesce', null, null), null);
  assert.equal(call('exists', null), false);
});

test('element functions: id, type, labels, properties, keys, startNode, endNode', () => {
  assert.equal(call('id', new NodeRef(1)), 1n);
  assert.equal(call('id', new RelRef(10)), 10n);
  assert.equal(call('id', new NodeRef(3)), 3n, 'a deleted node keeps its id');
  assert.equal(call('type', new RelRef(10)), 'KNOWS');
  assert.deepEqual(call('labels', new NodeRef(1)), ['Person']);
  assert.deepEqual(call('labels', new NodeRef(2)), [], 'Graph3 [1]: a node without a label');
  assert.deepEqual(call('properties', new NodeRef(1)), map({ name: 'Popeye', level: 9001n }));
  assert.deepEqual(call('properties', new RelRef(10)), map({ since: 1999n }));
  const m = map({ name: 'Popeye', level: 9001n });
  assert.deepEqual(call('properties', m), m, 'Graph9 [4]');
  assert.notEqual(call('properties', m), m, 'a copy');
  assert.deepEqual(call('keys', new NodeRef(1)), ['name', 'level']);
  assert.deepEqual(call('keys', new NodeRef(2)), []);
  assert.deepEqual(call('keys', map({ k: null, l: 1n })), ['k', 'l'], 'Map3 [4]: null-valued keys count');
  assert.deepEqual(call('startnode', new RelRef(10)), new NodeRef(1));
  assert.deepEqual(call('endnode', new RelRef(10)), new NodeRef(2));
  assertCypherError(() => call('labels', new NodeRef(3)), 'entity_not_found', 'DeletedEntityAccess');
  assert.equal(call('type', new RelRef(11)), 'DELETED', 'Return2 [14]: type() of a relationship the statement deleted');
  assertCypherError(() => call('properties', new RelRef(11)), 'entity_not_found', 'DeletedEntityAccess');
});

test('element functions refuse other values with InvalidArgumentValue (Graph3 [9], Graph4 [6])', () => {
  for (const bad of [0n, 1.0, true, '', []]) assertCypherError(() => call('type', bad), 'type_error', 'InvalidArgumentValue');
  for (const bad of [1n, path, new RelRef(10)]) assertCypherError(() => call('labels', bad), 'type_error', 'InvalidArgumentValue');
  for (const bad of [1n, 'Cypher', [true, false]]) assertCypherError(() => call('properties', bad), 'type_error', 'InvalidArgumentValue');
  assertCypherError(() => call('keys', 'x'), 'type_error', 'InvalidArgumentValue');
  assertCypherError(() => call('id', map({})), 'type_error', 'InvalidArgumentValue');
  assertCypherError(() => call('startnode', new NodeRef(1)), 'type_error', 'InvalidArgumentValue');
  assertCypherError(() => call('length', new NodeRef(1)), 'type_error', 'InvalidArgumentValue');
  assertCypherError(() => call('nodes', [new NodeRef(1)]), 'type_error', 'InvalidArgumentValue');
});

test('paths: nodes, relationships, length (Path1-3); exists is not null', () => {
  assert.deepEqual(call('nodes', path), [new NodeRef(1), new NodeRef(2)]);
  assert.deepEqual(call('relationships', path), [new RelRef(10)]);
  assert.equal(call('length', path), 1n);
  assert.equal(call('length', new PathValue([new NodeRef(1)], [])), 0n, 'Path3 [1]');
  assert.equal(call('exists', 0n), true);
  assert.equal(call('exists', []), true);
});

test('list functions: size, head, last, tail, reverse, coalesce (List6, List9, String3, Conditional1)', () => {
  assert.equal(call('size', [1n, 2n, 3n]), 3n);
  assert.equal(call('size', 'héllo'), 5n);
  assert.equal(call('size', '\u{1F600}x'), 2n, 'code points, not UTF-16 units');
  assertCypherError(() => call('size', path), 'type_error', 'InvalidArgumentValue');
  assertCypherError(() => call('size', 12n), 'type_error', 'InvalidArgumentValue');
  assert.equal(call('head', [1n, 2n]), 1n);
  assert.equal(call('head', []), null);
  assert.equal(call('last', [1n, 2n]), 2n);
  assert.equal(call('last', []), null);
  assert.deepEqual(call('tail', call('tail', [1n, 2n, 3n, 4n, 5n])), [3n, 4n, 5n]);
  assert.deepEqual(call('tail', []), []);
  assert.equal(call('reverse', 'raksO'), 'Oskar');
  assert.equal(call('reverse', 'a\u{1F600}b'), 'b\u{1F600}a');
  assert.deepEqual(call('reverse', [1n, null, 'x']), ['x', null, 1n]);
  assertCypherError(() => call('head', 'abc'), 'type_error', 'InvalidArgumentValue');
  assert.equal(call('coalesce', null, 'Nobody', 'CEO'), 'Nobody');
  assert.equal(call('coalesce', 'CEO', 'Nobody'), 'CEO');
});

test('range: inclusive, any step direction, empty when the step points away (List11 [1-3])', () => {
  const cases: [bigint, bigint, bigint | undefined, bigint[]][] = [
    [-1236n, -1234n, undefined, [-1236n, -1235n, -1234n]],
    [0n, -123n, undefined, []],
    [0n, 0n, undefined, [0n]],
    [1381n, -3412n, -1298n, [1381n, 83n, -1215n, -2513n]],
    [0n, -2000n, -1298n, [0n, -1298n]],
    [10n, -10n, -3n, [10n, 7n, 4n, 1n, -2n, -5n, -8n]],
    [0n, 1n, -123n, []],
    [0n, 0n, -1n, [0n]],
    [0n, 1n, 2n, [0n]],
    [-10n, 10n, 3n, [-10n, -7n, -4n, -1n, 2n, 5n, 8n]],
    [-3412n, 1381n, 1298n, [-3412n, -2114n, -816n, 482n]],
  ];
  for (const [start, end, step, want] of cases)
    assert.deepEqual(
      step === undefined ? call('range', start, end) : call('range', start, end, step),
      want,
      `range(${start}, ${end}, ${step})`,
    );
  for (const stop of [1n, 2n, 500n, 1000n, 1500n])
    for (const step of [-1000n, -3n, -2n, -1n, 1n, 2n, 3n, 1000n])
      assert.equal((call('range', 0n, stop, step) as bigint[]).length === 0, step < 0n);
});

test('range fails on a zero step (NumberOutOfRange) and on non-integers (ArgumentError InvalidArgumentType) (List11 [4-5])', () => {
  for (const [start, end] of [
    [0n, 0n],
    [2n, 8n],
    [-2n, 8n],
    [2n, -8n],
  ])
    assertCypherError(() => call('range', start!, end!, 0n), 'argument_error', 'NumberOutOfRange');
  for (const bad of [true, -1.1, -0.0, 0.0, 1.1, 'xyz', [0n], map({ start: 0n })]) {
    assertCypherError(() => call('range', bad, 1n, 1n), 'argument_error', 'InvalidArgumentType');
    assertCypherError(() => call('range', 0n, bad, 1n), 'argument_error', 'InvalidArgumentType');
    assertCypherError(() => call('range', 0n, 1n, bad), 'argument_error', 'InvalidArgumentType');
  }
  assertCypherError(() => call('range', 0n, 10n ** 12n), 'resource_limit', 'ListTooLarge');
});

test('toBoolean: booleans, the strings true and false, integers; null for other strings (TypeConversion1 [1-4])', () => {
  assert.equal(call('toboolean', true), true);
  assert.equal(call('toboolean', 'true'), true);
  assert.equal(call('toboolean', 'false'), false);
  assert.equal(call('toboolean', 'TRUE'), true);
  for (const s of ['', ' tru ', 'f alse']) assert.equal(call('toboolean', s), null);
  assert.equal(call('toboolean', 0n), false);
  assert.equal(call('toboolean', 7n), true);
  for (const bad of [[], map({}), 1.0, ...ELEMENTS]) assertCypherError(() => call('toboolean', bad), 'type_error', 'InvalidArgumentValue');
});

test('toInteger: truncates floats, parses strings, null for non-numeric text (TypeConversion2)', () => {
  assert.equal(call('tointeger', 82.9), 82n);
  assert.equal(call('tointeger', -2.9), -2n);
  assert.equal(call('tointeger', 2n), 2n);
  assert.equal(call('tointeger', '1.7'), 1n);
  assert.equal(call('tointeger', '42'), 42n);
  assert.equal(call('tointeger', ' 42 '), 42n);
  assert.equal(call('tointeger', '9223372036854775807'), 9223372036854775807n, 'exact, not through a float');
  assert.equal(call('tointeger', '1e3'), 1000n);
  assert.equal(call('tointeger', true), 1n);
  for (const s of ['foo', '', '2.9.1', '0x1F', '9223372036854775808']) assert.equal(call('tointeger', s), null, s);
  for (const f of [NaN, Infinity, 1e19]) assert.equal(call('tointeger', f), null);
  for (const bad of [[], map({}), ...ELEMENTS]) assertCypherError(() => call('tointeger', bad), 'type_error', 'InvalidArgumentValue');
});

test('toFloat: integers, floats and numeric strings (TypeConversion3)', () => {
  assert.equal(call('tofloat', 3n), 3);
  assert.equal(typeof call('tofloat', 3n), 'number');
  assert.equal(call('tofloat', 3.4), 3.4);
  assert.equal(call('tofloat', '5'), 5);
  assert.equal(call('tofloat', '-1.5e3'), -1500);
  assert.equal(call('tofloat', 'foo'), null);
  assert.equal(call('tofloat', ''), null);
  assert.ok(Number.isNaN(call('tofloat', 'NaN')));
  for (const bad of [true, [], map({}), ...ELEMENTS]) assertCypherError(() => call('tofloat', bad), 'type_error', 'InvalidArgumentValue');
});

test('toString: any scalar; floats keep a fraction (TypeConversion4)', () => {
  assert.equal(call('tostring', 42n), '42');
  assert.equal(call('tostring', true), 'true');
  assert.equal(call('tostring', 2.3), '2.3');
  assert.equal(call('tostring', 3.0), '3.0');
  assert.equal(call('tostring', 'apa'), 'apa');
  assert.equal(call('tostring', NaN), 'NaN');
  assert.equal(call('tostring', -Infinity), '-Infinity');
  for (const bad of [[], map({}), ...ELEMENTS]) assertCypherError(() => call('tostring', bad), 'type_error', 'InvalidArgumentValue');
});

test('the OrNull and List conversions give null where the plain ones fail', () => {
  assert.equal(call('tostringornull', []), null);
  assert.equal(call('tointegerornull', map({})), null);
  assert.equal(call('tofloatornull', true), null);
  assert.equal(call('tobooleanornull', 1.0), null);
  assert.equal(call('tointegerornull', '7'), 7n);
  assert.deepEqual(call('tointegerlist', ['2', 2.9, 'foo', null, [1n]]), [2n, 2n, null, null, null]);
  assert.deepEqual(call('tofloatlist', ['1', 2n, 'foo']), [1, 2, null]);
  assert.deepEqual(call('tostringlist', [1n, 2.3, true, 'apa', map({})]), ['1', '2.3', 'true', 'apa', null]);
  assert.deepEqual(call('tobooleanlist', ['true', 0n, 1.5]), [true, false, null]);
  assertCypherError(() => call('tostringlist', 'abc'), 'type_error', 'InvalidArgumentValue');
});

test('substring, left, right count code points; negative counts are NumberOutOfRange (String1)', () => {
  assert.equal(call('substring', '0123456789', 1n), '123456789');
  assert.equal(call('substring', '0123456789', 1n, 3n), '123');
  assert.equal(call('substring', '0123', 10n), '');
  assert.equal(call('substring', 'a\u{1F600}bc', 1n, 2n), '\u{1F600}b');
  assert.equal(call('left', 'hello', 2n), 'he');
  assert.equal(call('left', 'hello', 20n), 'hello');
  assert.equal(call('right', 'hello', 2n), 'lo');
  assert.equal(call('right', 'hello', 20n), 'hello');
  assertCypherError(() => call('substring', 'abc', -1n), 'argument_error', 'NumberOutOfRange');
  assertCypherError(() => call('substring', 'abc', 0n, -1n), 'argument_error', 'NumberOutOfRange');
  assertCypherError(() => call('left', 'abc', -1n), 'argument_error', 'NumberOutOfRange');
  assertCypherError(() => call('substring', 'abc', 1.5), 'type_error', 'InvalidArgumentValue');
  assertCypherError(() => call('left', 12n, 1n), 'type_error', 'InvalidArgumentValue');
});

test('trimming, case, replace and split (String2, String4, String5, String12)', () => {
  assert.equal(call('trim', '  a b \t'), 'a b');
  assert.equal(call('ltrim', '  ab  '), 'ab  ');
  assert.equal(call('rtrim', '  ab  '), '  ab');
  assert.equal(call('tolower', 'ABc'), 'abc');
  assert.equal(call('toupper', 'abC'), 'ABC');
  assert.equal(call('replace', 'hello', 'l', 'w'), 'hewwo');
  assert.equal(call('replace', 'a.b', '.', '$&'), 'a$&b', 'the search and the replacement are literal');
  assert.equal(call('replace', 'abc', '', 'x'), 'xaxbxcx');
  assert.deepEqual(call('split', 'one1two', '1'), ['one', 'two']);
  assert.deepEqual(call('split', 'a,b,', ','), ['a', 'b', '']);
  assert.deepEqual(call('split', 'ab', ''), ['a', 'b']);
  assert.equal(call('replace', 'a', null, 'b'), null);
  assertCypherError(() => call('tolower', 1n), 'type_error', 'InvalidArgumentValue');
  assertCypherError(() => call('split', 'a', 1n), 'type_error', 'InvalidArgumentValue');
});

test('abs keeps the type; ceil, floor, sqrt and trigonometry give floats; sign gives an integer (Mathematical11-17)', () => {
  assert.equal(call('abs', -1n), 1n);
  assert.equal(call('abs', -1.5), 1.5);
  assertCypherError(() => call('abs', -9223372036854775808n), 'arithmetic_error', 'IntegerOverflow');
  assert.equal(call('sqrt', 12.96), 3.6);
  assert.equal(call('ceil', 1.2), 2);
  assert.equal(call('floor', -1.2), -2);
  assert.equal(typeof call('ceil', 1n), 'number');
  assert.equal(call('sign', -5n), -1n);
  assert.equal(call('sign', 0.0), 0n);
  assert.equal(call('sign', 2.5), 1n);
  assert.equal(call('exp', 0n), 1);
  assert.equal(call('log', Math.E), 1);
  assert.equal(call('log10', 1000n), 3);
  assert.equal(call('log', 0n), -Infinity);
  assert.ok(Number.isNaN(call('sqrt', -1n)));
  assert.equal(call('sin', 0n), 0);
  assert.equal(call('cos', 0n), 1);
  assert.equal(call('cot', 0n), Infinity);
  assert.equal(call('atan2', 1n, 1n), Math.PI / 4);
  assert.equal(call('degrees', Math.PI), 180);
  assert.equal(call('radians', 180n), Math.PI);
  assert.equal(call('haversin', 0n), 0);
  assert.equal(call('pi'), Math.PI);
  assert.equal(call('e'), Math.E);
  assert.equal(call('isnan', 0 / 0), true);
  assert.equal(call('isnan', 1n), false);
  const r = call('rand') as number;
  assert.ok(r >= 0 && r < 1);
  for (const name of ['abs', 'ceil', 'sqrt', 'sin', 'sign', 'isnan'])
    assertCypherError(() => call(name, 'x'), 'type_error', 'InvalidArgumentValue');
});

test('round: half up to an integer, or to a precision with a rounding mode on the decimal digits', () => {
  assert.equal(call('round', 3.141592), 3);
  assert.equal(call('round', 2.5), 3);
  assert.equal(call('round', -2.5), -2);
  assert.ok(Object.is(call('round', -0.4), 0));
  assert.equal(typeof call('round', 3n), 'number');
  assert.equal(call('round', 3.141592, 3n), 3.142);
  assert.equal(call('round', 2.675, 2n), 2.68);
  assert.equal(call('round', -2.5, 0n), -3);
  assert.equal(call('round', 1234.5, -2n), 1200);
  assert.equal(call('round', 1.5e-7, 2n), 0);
  assert.equal(call('round', 1.25, 1n, 'HALF_EVEN'), 1.2);
  assert.equal(call('round', 1.35, 1n, 'HALF_EVEN'), 1.4);
  assert.equal(call('round', 1.25, 1n, 'HALF_DOWN'), 1.2);
  assert.equal(call('round', 1.21, 1n, 'UP'), 1.3);
  assert.equal(call('round', -1.21, 1n, 'UP'), -1.3);
  assert.equal(call('round', -1.29, 1n, 'DOWN'), -1.2);
  assert.equal(call('round', -1.21, 1n, 'CEILING'), -1.2);
  assert.equal(call('round', -1.21, 1n, 'floor'), -1.3);
  assert.equal(call('round', 1.5, 5n), 1.5);
  assertCypherError(() => call('round', 1.5, 0n, 'NEAREST'), 'argument_error', 'InvalidArgumentValue');
  assertCypherError(() => call('round', 1.5, 0.5), 'type_error', 'InvalidArgumentValue');
});

test('messages name the function and the refused type', () => {
  assert.throws(() => call('labels', 1n), /labels\(\) cannot take a Integer/);
  assert.throws(() => call('startnode', 'x'), /startNode\(\) cannot take a String/);
});
