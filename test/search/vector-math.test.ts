/**
 * Vector distances (src/search/vector-math.ts): each metric on vectors with known answers,
 * results that are f32 values, and every check code with the position it names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { F32_MAX } from '../../src/core/value.js';
import {
  checkVector,
  cosine,
  cosineWithNorms,
  distance,
  distanceFrom,
  magnitudeLimit,
  manhattan,
  METRICS,
  squaredEuclidean,
  squaredNorm,
} from '../../src/search/vector-math.js';

const v = (...xs: number[]) => new Float32Array(xs);

test('cosine distance is (1 - cos) / 2: 0 for the same direction, 0.5 orthogonal, 1 opposite', () => {
  assert.equal(distance('cosine', v(1, 0), v(0, 1)), 0.5);
  assert.equal(distance('cosine', v(1, 0), v(-3, 0)), 1);
  assert.equal(distance('cosine', v(1, 2, 3), v(2, 4, 6)), 0);
  assert.equal(distance('cosine', v(0.1, 0.7, -0.3), v(0.1, 0.7, -0.3)), 0, 'a vector is at distance 0 from itself');
  assert.equal(distance('cosine', v(1, 0), v(1, 1)), Math.fround((1 - Math.SQRT1_2) / 2));
  assert.equal(distance('cosine', v(3, 4), v(4, 3)), Math.fround((1 - 24 / 25) / 2));
});

test('euclidean is the squared L2 distance, manhattan L1', () => {
  assert.equal(distance('euclidean', v(1, 2, 3), v(4, 6, 3)), 25);
  assert.equal(distance('manhattan', v(1, 2, 3), v(4, 6, 3)), 7);
  assert.equal(distance('manhattan', v(-1, -2), v(1, 2)), 6);
  assert.equal(distance('euclidean', v(0, 0), v(0, 0)), 0);
});

test('results are f32 values: the sum rounded once to f32', () => {
  const a = v(0.1, 0.2, 0.3);
  const b = v(0.4, -0.5, 0.6);
  let sq = 0;
  let l1 = 0;
  for (let i = 0; i < 3; i++) {
    sq += (a[i]! - b[i]!) ** 2;
    l1 += Math.abs(a[i]! - b[i]!);
  }
  assert.equal(squaredEuclidean(a, b), Math.fround(sq));
  assert.equal(manhattan(a, b), Math.fround(l1));
  for (const metric of METRICS) {
    const d = distance(metric, a, b);
    assert.equal(Math.fround(d), d, `${metric} gives an f32 value`);
  }
  // 0.1 is not an f32: the stored component is fround(0.1), and the distance follows it.
  assert.equal(distance('euclidean', v(0.1), v(0)), Math.fround(Math.fround(0.1) ** 2));
});

test('the cosine forms with known norms and from a fixed vector agree with the plain one', () => {
  const a = v(0.3, -1.2, 4.5, 0.01);
  const b = v(-2, 0.5, 1.5, 7);
  const plain = cosine(a, b);
  assert.equal(cosineWithNorms(a, squaredNorm(a), b, squaredNorm(b)), plain);
  assert.equal(distanceFrom('cosine', a)(b), plain);
  for (const metric of METRICS) assert.equal(distanceFrom(metric, a)(b), distance(metric, a, b));
});

test('cosine stays in [0, 1] and finite for components at the ends of the f32 range', () => {
  const big = v(F32_MAX, F32_MAX, -F32_MAX);
  assert.equal(distance('cosine', big, big), 0);
  assert.equal(distance('cosine', big, v(-F32_MAX, -F32_MAX, F32_MAX)), 1);
  const tiny = v(1e-45, 0, 0);
  assert.equal(distance('cosine', tiny, v(1, 0, 0)), 0);
});

test('the magnitude limit is HelixDB`s: sqrt(F32_MAX / 8d) euclidean, F32_MAX / 4d manhattan, none for cosine, rounded down to an f32', () => {
  assert.equal(magnitudeLimit('cosine', 128), undefined);
  for (const dim of [1, 2, 3, 128, 1536]) {
    const exact = { euclidean: Math.sqrt(F32_MAX / (8 * dim)), manhattan: F32_MAX / (4 * dim) };
    for (const metric of ['euclidean', 'manhattan'] as const) {
      const limit = magnitudeLimit(metric, dim)!;
      assert.equal(Math.fround(limit), limit);
      assert.ok(limit <= exact[metric], `${metric} ${dim}: ${limit} is not above the exact bound`);
      assert.ok(Math.fround(exact[metric] * (1 + 2 ** -23)) > exact[metric]);
      // Two vectors at opposite ends of the allowed range are still at a finite distance.
      const a = new Float32Array(dim).fill(limit);
      const b = new Float32Array(dim).fill(-limit);
      assert.ok(Number.isFinite(distance(metric, a, b)), `${metric} ${dim}: the distance is finite`);
    }
  }
});

test('checkVector: dimension, then each component in order, then a cosine vector`s norm', () => {
  assert.equal(checkVector('cosine', 3, [1, 2, 3]), null);
  assert.equal(checkVector('euclidean', 2, [0, 0]), null, 'a zero vector is fine for euclidean');
  assert.equal(checkVector('manhattan', 2, new Float32Array([0, -1])), null);

  const dim = checkVector('cosine', 3, [1, 2]);
  assert.equal(dim?.code, 'invalid_vector_dimension');
  assert.match(dim!.msg, /dimension 3/);
  assert.match(dim!.msg, /got 2/);

  assert.deepEqual(checkVector('euclidean', 4, [0, 1, 2, NaN]), {
    code: 'invalid_vector_component',
    msg: 'component 3 is NaN; vector components must be finite numbers',
  });
  assert.match(checkVector('cosine', 2, [Infinity, 1])!.msg, /^component 0 is Infinity/);
  assert.match(checkVector('cosine', 2, [1, -Infinity])!.msg, /^component 1 is -Infinity/);
  assert.match(checkVector('cosine', 2, [1, 'x' as unknown as number])!.msg, /^component 1 is not a number/);
  const beyond = checkVector('cosine', 2, [1, 1e39]);
  assert.equal(beyond?.code, 'invalid_vector_component', 'a double beyond the f32 range becomes infinite when stored');
  assert.match(beyond!.msg, /^component 1 is 1e\+39, beyond the 32-bit float range/);

  assert.equal(checkVector('cosine', 2, [0, 0])?.code, 'zero_norm_cosine_vector');
  assert.equal(checkVector('cosine', 2, [1e-50, 0])?.code, 'zero_norm_cosine_vector', 'rounds to zero as an f32');
  assert.equal(checkVector('cosine', 2, [3e38, -3e38]), null, 'cosine has no magnitude limit');
});

test('checkVector: a component above the metric`s limit, with its position; the limit itself is accepted', () => {
  for (const metric of ['euclidean', 'manhattan'] as const) {
    const limit = magnitudeLimit(metric, 3)!;
    assert.equal(checkVector(metric, 3, [limit, -limit, 0]), null);
    const above = new Float32Array([limit * (1 + 2 ** -22)])[0]!;
    assert.ok(above > limit);
    const problem = checkVector(metric, 3, [0, 1, -above]);
    assert.equal(problem?.code, 'vector_component_magnitude_exceeded');
    assert.match(problem!.msg, /^component 2 has magnitude /);
    assert.ok(problem!.msg.includes(String(limit)), problem!.msg);
    assert.ok(problem!.msg.includes(`${metric} vector of dimension 3`), problem!.msg);
  }
  // Components are checked in order: a NaN after an oversized one is not the one named.
  assert.match(checkVector('manhattan', 2, [1e38, NaN])!.msg, /^component 0 has magnitude/);
});
