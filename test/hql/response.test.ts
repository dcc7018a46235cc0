/**
 * A named query's response shaping (src/hql/response.ts) for literal returns: a float
 * literal is JSON that reads as a float whatever its size or sign.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shapeResponse } from '../../src/hql/response.js';
import type { ReturnShape } from '../../src/hql/types.js';

const literal = (value: number): ReturnShape[] => [
  { key: 'data', source: null, literal: value, unwrap: 'one', pluck: null, nested: null, element: null, group: null },
];

test('RETURN of a float literal: 3.0, 2.5, exponents and -0.0 stay JSON floats', () => {
  const shown = [3, 2.5, 1.5e300, 1e21, -0].map((v) => shapeResponse(literal(v), '{}'));
  assert.deepEqual(shown, ['{"data":3.0}', '{"data":2.5}', '{"data":1.5e+300}', '{"data":1e+21}', '{"data":-0.0}']);
  for (const text of shown) assert.equal(typeof JSON.parse(text).data, 'number');
});
