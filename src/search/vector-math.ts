/**
 * Vector distances and the checks a vector passes before it is stored or searched with.
 *
 * HelixDB computes every distance in f32 and widens the result to f64. The order of its
 * f32 sums (SIMD lanes) is not something we can reproduce, so the sums here run in f64
 * and the result is rounded once to f32: within half an f32 ulp of the exact value, at
 * least as close to any f32 summation as two summation orders are to each other, and,
 * like HelixDB's, always an f32 value (it prints the same way). Euclidean is the SQUARED
 * L2 distance, manhattan L1, cosine (1 - cos) / 2 clamped to [0, 1], and inner product (a
 * Trellis extension) the negated dot product, so that nearer is smaller as for the others.
 *
 * Plain counted loops over Float32Arrays, no allocation, sums in four lanes: V8 does not
 * vectorise, but independent additions overlap in the CPU (a 128-d distance took about 25%
 * less time than with one sum). A distance is the innermost step of every index operation.
 */
import { F32_MAX } from '../core/value.js';

export type Metric = 'cosine' | 'euclidean' | 'manhattan' | 'inner_product';

/** Every metric, in the order the store numbers them (vector-index.ts keeps the number). */
export const METRICS: readonly Metric[] = ['cosine', 'euclidean', 'manhattan', 'inner_product'];

/** Squared L2 norm, summed in f64 (the cosine forms below take it precomputed). */
export function squaredNorm(v: Float32Array): number {
  return dot(v, v);
}

export function squaredEuclidean(a: Float32Array, b: Float32Array): number {
  const n = a.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const d0 = a[i]! - b[i]!;
    const d1 = a[i + 1]! - b[i + 1]!;
    const d2 = a[i + 2]! - b[i + 2]!;
    const d3 = a[i + 3]! - b[i + 3]!;
    s0 += d0 * d0;
    s1 += d1 * d1;
    s2 += d2 * d2;
    s3 += d3 * d3;
  }
  for (; i < n; i++) {
    const d = a[i]! - b[i]!;
    s0 += d * d;
  }
  return Math.fround(s0 + s1 + (s2 + s3));
}

export function manhattan(a: Float32Array, b: Float32Array): number {
  const n = a.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += Math.abs(a[i]! - b[i]!);
    s1 += Math.abs(a[i + 1]! - b[i + 1]!);
    s2 += Math.abs(a[i + 2]! - b[i + 2]!);
    s3 += Math.abs(a[i + 3]! - b[i + 3]!);
  }
  for (; i < n; i++) s0 += Math.abs(a[i]! - b[i]!);
  return Math.fround(s0 + s1 + (s2 + s3));
}

/**
 * (1 - cos) / 2 from the dot product and both squared norms. sqrt(na * nb) rather than
 * sqrt(na) * sqrt(nb): sqrt(x * x) is exactly x, so a vector is at distance 0 from
 * itself. Squares of f32 components neither overflow nor underflow an f64 product.
 */
function cosineOf(dot: number, na: number, nb: number): number {
  const d = (1 - dot / Math.sqrt(na * nb)) / 2;
  return Math.fround(d < 0 ? 0 : d > 1 ? 1 : d);
}

/** Dot product, summed in four lanes (independent additions run in parallel on the CPU). */
function dot(a: Float32Array, b: Float32Array): number {
  const n = a.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < n; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + (s2 + s3);
}

export function cosine(a: Float32Array, b: Float32Array): number {
  return cosineOf(dot(a, b), squaredNorm(a), squaredNorm(b));
}

/** Cosine distance with `a`'s squared norm known (a query against many stored vectors). */
export function cosineWithNorm(a: Float32Array, aSquaredNorm: number, b: Float32Array): number {
  const n = a.length;
  let d0 = 0;
  let d1 = 0;
  let d2 = 0;
  let d3 = 0;
  let n0 = 0;
  let n1 = 0;
  let n2 = 0;
  let n3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const y0 = b[i]!;
    const y1 = b[i + 1]!;
    const y2 = b[i + 2]!;
    const y3 = b[i + 3]!;
    d0 += a[i]! * y0;
    d1 += a[i + 1]! * y1;
    d2 += a[i + 2]! * y2;
    d3 += a[i + 3]! * y3;
    n0 += y0 * y0;
    n1 += y1 * y1;
    n2 += y2 * y2;
    n3 += y3 * y3;
  }
  for (; i < n; i++) {
    const y = b[i]!;
    d0 += a[i]! * y;
    n0 += y * y;
  }
  return cosineOf(d0 + d1 + (d2 + d3), aSquaredNorm, n0 + n1 + (n2 + n3));
}

/** Both squared norms known. */
export function cosineWithNorms(a: Float32Array, aSquaredNorm: number, b: Float32Array, bSquaredNorm: number): number {
  return cosineOf(dot(a, b), aSquaredNorm, bSquaredNorm);
}

/** The negated dot product: -(a . b), summed in f64 and rounded once to f32. */
export function negatedDot(a: Float32Array, b: Float32Array): number {
  return Math.fround(-dot(a, b));
}

export type Distance = (a: Float32Array, b: Float32Array) => number;

const DISTANCES: Record<Metric, Distance> = { cosine, euclidean: squaredEuclidean, manhattan, inner_product: negatedDot };

/** The distance function of a metric, for callers that compute many. */
export const distanceOf = (metric: Metric): Distance => DISTANCES[metric];

export function distance(metric: Metric, a: Float32Array, b: Float32Array): number {
  return DISTANCES[metric](a, b);
}

/** Distances from one fixed vector (a query): for cosine its norm is computed once. */
export function distanceFrom(metric: Metric, from: Float32Array): (to: Float32Array) => number {
  if (metric === 'cosine') {
    const n = squaredNorm(from);
    return (to) => cosineWithNorm(from, n, to);
  }
  const d = DISTANCES[metric];
  return (to) => d(from, to);
}

// ---- checks -------------------------------------------------------------------------

export type VectorCheckCode =
  'invalid_vector_dimension' | 'invalid_vector_component' | 'vector_component_magnitude_exceeded' | 'zero_norm_cosine_vector';

export interface VectorProblem {
  readonly code: VectorCheckCode;
  readonly msg: string;
}

const F32_BITS = new Float32Array(1);
const U32_BITS = new Uint32Array(F32_BITS.buffer);

/** The greatest f32 not above a positive finite `x`. */
function f32AtMost(x: number): number {
  const r = Math.fround(x);
  if (r <= x) return r;
  F32_BITS[0] = r;
  U32_BITS[0]! -= 1;
  return F32_BITS[0]!;
}

/**
 * The greatest component magnitude a stored or query vector may have (inclusive), or
 * undefined when the metric has none. HelixDB's bound, which keeps every f32 distance
 * between two accepted vectors of `dimension` components finite with room to spare:
 *
 *   euclidean  sqrt(F32_MAX / (8 * dimension))  each |a_i - b_i| <= 2 * limit, so each
 *              square <= F32_MAX / (2 * dimension) and the sum <= F32_MAX / 2;
 *   manhattan  F32_MAX / (4 * dimension)         each |a_i - b_i| <= F32_MAX / (2 * dimension);
 *   inner_product  sqrt(F32_MAX / (2 * dimension))  each |a_i * b_i| <= F32_MAX / (2 * dimension),
 *              so the sum's magnitude <= F32_MAX / 2 (a Trellis metric; the same margin);
 *   cosine     none: the norms normalise the magnitudes away (only zero vectors are refused).
 *
 * computed in f64 and rounded down to an f32.
 */
export function magnitudeLimit(metric: Metric, dimension: number): number | undefined {
  if (metric === 'cosine') return undefined;
  const exact =
    metric === 'euclidean'
      ? Math.sqrt(F32_MAX / (8 * dimension))
      : metric === 'inner_product'
        ? Math.sqrt(F32_MAX / (2 * dimension))
        : F32_MAX / (4 * dimension);
  return f32AtMost(exact);
}

function describe(v: unknown): string {
  if (typeof v !== 'number') return `not a number (${typeof v})`;
  return Number.isNaN(v) ? 'NaN' : String(v);
}

/**
 * Why `values` cannot be a vector of this index, or null. Components are checked as the
 * f32 values they are stored as (a finite double beyond the f32 range is refused), in
 * order: the dimension, then each component (finite, then within the metric's magnitude
 * limit), then a cosine vector's norm.
 */
export function checkVector(metric: Metric, dimension: number, values: ArrayLike<number>): VectorProblem | null {
  if (values.length !== dimension) {
    return { code: 'invalid_vector_dimension', msg: `expected a vector of dimension ${dimension}, got ${values.length} components` };
  }
  const limit = magnitudeLimit(metric, dimension);
  let nonZero = false;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as unknown;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      return { code: 'invalid_vector_component', msg: `component ${i} is ${describe(v)}; vector components must be finite numbers` };
    }
    const f = Math.fround(v);
    if (!Number.isFinite(f)) {
      return { code: 'invalid_vector_component', msg: `component ${i} is ${v}, beyond the 32-bit float range (±${F32_MAX})` };
    }
    if (limit !== undefined && Math.abs(f) > limit) {
      return {
        code: 'vector_component_magnitude_exceeded',
        msg: `component ${i} has magnitude ${Math.abs(f)}, above ${limit}, the largest a ${metric} vector of dimension ${dimension} may have`,
      };
    }
    if (f !== 0) nonZero = true;
  }
  if (metric === 'cosine' && !nonZero) {
    return { code: 'zero_norm_cosine_vector', msg: 'a cosine vector must have a non-zero norm; this one is all zeros' };
  }
  return null;
}
