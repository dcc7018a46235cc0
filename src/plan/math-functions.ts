/**
 * The math functions of expressions (`{"math": {"function": "pow", "args": [...]}}`, a
 * Trellis extension; the query language's POW, SQRT, LN... lower to it): each name and
 * how many arguments it takes. Every result is a float; `sum`, `avg` and `count` take a
 * list (a traversal expression's values) or a number.
 */
export const MATH_FUNCTIONS = {
  pi: 0,
  e: 0,
  abs: 1,
  sqrt: 1,
  ln: 1,
  log10: 1,
  exp: 1,
  ceil: 1,
  floor: 1,
  round: 1,
  sin: 1,
  cos: 1,
  tan: 1,
  asin: 1,
  acos: 1,
  atan: 1,
  sum: 1,
  avg: 1,
  count: 1,
  pow: 2,
  log: 2,
  atan2: 2,
  min: 2,
  max: 2,
} as const;

export type MathFunction = keyof typeof MATH_FUNCTIONS;

export function isMathFunction(name: string): name is MathFunction {
  return Object.hasOwn(MATH_FUNCTIONS, name);
}
