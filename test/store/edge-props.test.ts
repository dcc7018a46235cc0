/**
 * Edge properties: the fast msgpack writer for flat scalar maps and the general encoder
 * must read back as the same values, kinds included (i64 vs f64).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { storePackr } from '../../src/store/codec.js';
import { encodeProps } from '../../src/store/edge-blocks.js';
import { DateTime, type ValueObject } from '../../src/core/value.js';

const roundTrip = (v: ValueObject) => {
  const bytes = encodeProps(v);
  return bytes.byteLength === 0 ? {} : storePackr.unpack(bytes);
};

test('flat maps and anything else read back exactly', () => {
  const cases: ValueObject[] = [
    {},
    { since: 2015n },
    { a: -9223372036854775808n, z: 9223372036854775807n },
    { f: 3, g: -0, h: Number.NaN, i: Number.POSITIVE_INFINITY },
    { s: '', t: 'x'.repeat(31), u: 'x'.repeat(32), v: 'é'.repeat(200), w: 'y'.repeat(70000) },
    { n: null, t: true, f: false },
    { nested: { x: 1n }, list: [1n, 'a'], when: new DateTime(5), bytes: new Uint8Array([1, 2]) },
  ];
  for (const v of cases) assert.deepEqual(roundTrip(v), v);
  assert.equal(typeof (roundTrip({ k: 3 }) as ValueObject).k, 'number');
  assert.equal(typeof (roundTrip({ k: 3n }) as ValueObject).k, 'bigint');
});

test('property: random flat maps round-trip', () => {
  const scalar = fc.oneof(
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.double(),
    fc.string({ maxLength: 300 }),
    fc.boolean(),
    fc.constant(null),
  );
  fc.assert(
    fc.property(
      fc.dictionary(
        fc.string({ minLength: 1, maxLength: 40 }).filter((k) => k !== '__proto__'),
        scalar,
        { maxKeys: 20 },
      ),
      (v) => {
        const plain = { ...v } as ValueObject;
        assert.deepEqual(roundTrip(plain), plain);
      },
    ),
  );
});
