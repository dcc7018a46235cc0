/**
 * The static types semantic analysis infers for expressions: enough to reject at compile time
 * what the TCK rejects at compile time (`RETURN 123 AND true`, `MATCH (r) ... type(r)`,
 * `WITH 123 AS x RETURN x.num`, `MATCH (n) WHERE (n)`...), and never more. 'any' is every type
 * not known before running (properties, parameters, most function results); a check fails
 * only when a type is known and wrong.
 */

export type ScalarTy =
  | 'any'
  | 'null'
  | 'boolean'
  | 'integer'
  | 'float'
  /** An integer or a float, not known which. */
  | 'number'
  | 'string'
  | 'map'
  | 'node'
  | 'relationship'
  | 'path';

export interface ListTy {
  readonly list: Ty;
}

export type Ty = ScalarTy | ListTy;

export const ANY: Ty = 'any';

export const listOf = (of: Ty): ListTy => ({ list: of });

export function isList(ty: Ty): ty is ListTy {
  return typeof ty === 'object';
}

/** The element type of a list type; 'any' for anything else (a parameter, a property). */
export function elementOf(ty: Ty): Ty {
  return isList(ty) ? ty.list : ty === 'null' ? 'null' : 'any';
}

const NUMERIC = new Set<Ty>(['integer', 'float', 'number']);

export const isNumeric = (ty: Ty): boolean => NUMERIC.has(ty);

/** The type of a value that is either an `a` or a `b` (list items, CASE branches). */
export function join(a: Ty, b: Ty): Ty {
  if (a === 'null') return b;
  if (b === 'null') return a;
  if (isList(a) && isList(b)) return listOf(join(a.list, b.list));
  if (a === b) return a;
  if (isNumeric(a) && isNumeric(b)) return 'number';
  return 'any';
}

/** Whether a value of type `ty` may be one of `allowed` (or null) when it runs. */
export function mayBe(ty: Ty, allowed: readonly (ScalarTy | 'list')[]): boolean {
  if (ty === 'any' || ty === 'null') return true;
  if (isList(ty)) return allowed.includes('list');
  if (ty === 'number') return allowed.includes('integer') || allowed.includes('float');
  return allowed.includes(ty);
}

/** A type as the messages name it. */
export function showTy(ty: Ty): string {
  if (isList(ty)) return ty.list === 'any' ? 'a list' : `a list of ${showTy(ty.list).replace(/^an? /, '')}`;
  switch (ty) {
    case 'any':
      return 'any value';
    case 'null':
      return 'null';
    case 'integer':
      return 'an integer';
    default:
      return `a ${ty}`;
  }
}

/**
 * What a variable of type `ty` is to the lowering: a node, a relationship, a path, or any
 * other value (a list of relationships of a variable-length pattern is a value).
 */
export type VarKind = 'node' | 'relationship' | 'path' | 'value';

export function kindOf(ty: Ty): VarKind {
  return ty === 'node' || ty === 'relationship' || ty === 'path' ? ty : 'value';
}
