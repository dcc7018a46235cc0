/**
 * The thread codec (src/protocol/codec.ts) and markNegativeZeros: -0.0 crosses as the
 * msgpack float64 -0.0 at any depth, and values without one are passed on untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Packr } from 'msgpackr';
import { decodeMessage, encodeMessage } from '../../src/protocol/codec.js';
import { markNegativeZeros } from '../../src/core/value-msgpack.js';
import { DateTime } from '../../src/core/value.js';

test('-0.0 crosses a thread message with its sign, alone and inside lists and maps', () => {
  const message = { x: -0, zero: 0, list: [1, -0, [-0]], map: { deep: { z: -0 } }, f64s: new Float64Array([-0, 2]) };
  const back = decodeMessage<typeof message>(encodeMessage(message));
  assert.deepStrictEqual(back, message);
  assert.ok(Object.is(back.x, -0) && Object.is(back.zero, 0));
});

test('the marker is written as a plain msgpack float64, which any msgpack reader reads as -0', () => {
  const bytes = encodeMessage([-0]);
  assert.deepEqual([...bytes], [0x91, 0xcb, 0x80, 0, 0, 0, 0, 0, 0, 0]);
  assert.ok(Object.is((new Packr().unpack(bytes) as number[])[0], -0));
});

test('markNegativeZeros copies only the way to a -0 and never changes its input', () => {
  const plain = { a: [1, 'x', { b: 0 }], when: new DateTime(5), bytes: new Uint8Array([1]) };
  assert.equal(markNegativeZeros(plain), plain, 'nothing to mark: the value itself');
  const withNaN = { l: [1, Number.NaN, [Number.NaN]], n: Number.NaN };
  assert.equal(markNegativeZeros(withNaN), withNaN, 'NaN is no -0: nothing copied');
  const shared = { untouched: [1, 2] };
  const input = { keep: shared, list: [0, -0], ['__proto__']: -0 } as Record<string, unknown>;
  Object.defineProperty(input, '__proto__', { value: -0, enumerable: true, writable: true, configurable: true });
  const marked = markNegativeZeros(input);
  assert.notEqual(marked, input);
  assert.equal(marked['keep'], shared, 'a branch without -0 is shared, not copied');
  assert.ok(Object.is((input['list'] as number[])[1], -0), 'the input still holds -0');
  assert.ok(Object.hasOwn(marked, '__proto__'), 'a "__proto__" key stays an own key');
  assert.equal(Object.getPrototypeOf(marked), Object.prototype);
});
