/**
 * A scalar value as text. Every output that prints values (JSON responses, Cypher's
 * toString and explain, group keys, the query language's printer) writes booleans and
 * integers the same way and differs in how it writes strings and floats: the style says
 * how.
 */
export type Scalar = string | number | bigint | boolean;

export interface ScalarStyle {
  readonly string: (s: string) => string;
  readonly number: (n: number) => string;
}

export function isScalar(v: unknown): v is Scalar {
  const t = typeof v;
  return t === 'string' || t === 'number' || t === 'bigint' || t === 'boolean';
}

export function scalarText(v: Scalar, style: ScalarStyle): string {
  switch (typeof v) {
    case 'string':
      return style.string(v);
    case 'number':
      return style.number(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
  }
}

/** A float's name when it has no digits: NaN, Infinity, -Infinity (Cypher's toString and explain). */
export function nonFiniteName(n: number): string {
  return Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
}
