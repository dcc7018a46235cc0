import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeResponse, encodeValue } from '../../src/exec/encode.js';
import { GraphError } from '../../src/core/errors.js';
import { LIMITS } from '../../src/plan/limits.js';
import { DateTime } from '../../src/core/value.js';

test('values print untagged: i64 digits, f64 with a fraction, date_time as RFC 3339 UTC', () => {
  assert.equal(encodeValue(9223372036854775807n), '9223372036854775807');
  assert.equal(encodeValue(3), '3.0');
  assert.equal(encodeValue(-0), '-0.0');
  assert.equal(encodeValue(2.5), '2.5');
  assert.equal(encodeValue(1e21), '1e+21');
  assert.equal(encodeValue(Number.NaN), 'null');
  assert.equal(encodeValue(Math.fround(0.1)), '0.10000000149011612');
  assert.equal(encodeValue(new DateTime(-1)), '"1969-12-31T23:59:59.999Z"');
  assert.equal(encodeValue(new Uint8Array([1, 255])), '[1,255]');
  assert.equal(encodeValue(new Float32Array([1, 0.5])), '[1.0,0.5]');
  assert.equal(encodeValue({ a: [null, true, 'x'], b: {} }), '{"a":[null,true,"x"],"b":{}}');
});

test('a response past the documented size limit is limit_exceeded, not a crash', () => {
  const mib = 'x'.repeat(1024 * 1024);
  const items = Array.from({ length: LIMITS.maxResponseChars / mib.length + 1 }, () => mib);
  assert.throws(
    () => encodeResponse(['r'], () => ({ t: 'values', items })),
    (err: unknown) => err instanceof GraphError && err.code === 'limit_exceeded' && /exceed 268435456 characters/.test(err.msg),
  );
  assert.equal(encodeResponse(['r'], () => ({ t: 'values', items: [mib] })).length, mib.length + 10);
});
