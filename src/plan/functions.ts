/**
 * The Cypher functions this server knows: name (lower case: Cypher function names are
 * case-insensitive), argument count and whether it aggregates. Semantic analysis
 * (src/cypher) checks calls against this table (UnknownFunction, InvalidNumberOfArguments);
 * the implementations are in src/exec/table/functions.ts and aggregates.ts, and a test
 * checks that every name here has one.
 */
export interface FunctionSignature {
  readonly min: number;
  /** null: any number. */
  readonly max: number | null;
  readonly aggregate: boolean;
}

const fixed = (n: number): FunctionSignature => ({ min: n, max: n, aggregate: false });
const between = (min: number, max: number | null): FunctionSignature => ({ min, max, aggregate: false });
const aggregate = (min: number, max: number): FunctionSignature => ({ min, max, aggregate: true });

export const FUNCTION_SIGNATURES: { readonly [name: string]: FunctionSignature } = {
  // elements and paths
  id: fixed(1),
  type: fixed(1),
  labels: fixed(1),
  properties: fixed(1),
  keys: fixed(1),
  startnode: fixed(1),
  endnode: fixed(1),
  nodes: fixed(1),
  relationships: fixed(1),
  length: fixed(1),
  exists: fixed(1),
  // lists
  size: fixed(1),
  head: fixed(1),
  last: fixed(1),
  tail: fixed(1),
  range: between(2, 3),
  reverse: fixed(1),
  coalesce: between(1, null),
  // conversion
  tostring: fixed(1),
  tointeger: fixed(1),
  tofloat: fixed(1),
  toboolean: fixed(1),
  tostringornull: fixed(1),
  tointegerornull: fixed(1),
  tofloatornull: fixed(1),
  tobooleanornull: fixed(1),
  tobooleanlist: fixed(1),
  tointegerlist: fixed(1),
  tofloatlist: fixed(1),
  tostringlist: fixed(1),
  // strings
  substring: between(2, 3),
  left: fixed(2),
  right: fixed(2),
  trim: fixed(1),
  ltrim: fixed(1),
  rtrim: fixed(1),
  tolower: fixed(1),
  toupper: fixed(1),
  replace: fixed(3),
  split: fixed(2),
  // numbers
  abs: fixed(1),
  ceil: fixed(1),
  floor: fixed(1),
  round: between(1, 3),
  sign: fixed(1),
  rand: fixed(0),
  sqrt: fixed(1),
  exp: fixed(1),
  log: fixed(1),
  log10: fixed(1),
  e: fixed(0),
  pi: fixed(0),
  sin: fixed(1),
  cos: fixed(1),
  tan: fixed(1),
  cot: fixed(1),
  asin: fixed(1),
  acos: fixed(1),
  atan: fixed(1),
  atan2: fixed(2),
  degrees: fixed(1),
  radians: fixed(1),
  haversin: fixed(1),
  isnan: fixed(1),
  // aggregates
  count: aggregate(1, 1),
  sum: aggregate(1, 1),
  avg: aggregate(1, 1),
  min: aggregate(1, 1),
  max: aggregate(1, 1),
  collect: aggregate(1, 1),
  stdev: aggregate(1, 1),
  stdevp: aggregate(1, 1),
  percentilecont: aggregate(2, 2),
  percentiledisc: aggregate(2, 2),
};

export function functionSignature(name: string): FunctionSignature | undefined {
  const key = name.toLowerCase();
  return Object.hasOwn(FUNCTION_SIGNATURES, key) ? FUNCTION_SIGNATURES[key] : undefined;
}
