/**
 * What the checker knows about a value while it compiles a query: the static type of a
 * traversal's result, and how a returned value is shown to the caller.
 */
import type { TypeExpr } from './ast.js';
import type { SourcePos } from './lexer.js';
import type { HqlShow } from '../plan/hql-format.js';

/** Vectors are stored as nodes of their type's label, holding the vector in `data`. */
export type ElementKind = 'node' | 'edge' | 'vector';

export type Ty =
  /** Nodes, edges or vectors of one schema type; `single`: at most one (N<T>(id), FIRST, AddN, UPDATE). */
  | { readonly k: 'element'; readonly kind: ElementKind; readonly type: string; readonly single: boolean }
  /** The result of a projection, a property access, COUNT or a grouping; steps cannot go on from it. */
  | { readonly k: 'shaped'; readonly single: boolean; readonly what: string; readonly value?: ShapedValue }
  /** A parameter (or a field of a FOR element): a value of its declared type. */
  | { readonly k: 'param'; readonly type: TypeExpr };

/**
 * A shaped result of one value (a COUNT, an `::ID`, a `::{field}` of one element), which a
 * variable holding it gives where a value is expected: its type, and the entry of the
 * object the variable holds that is the value (null: the variable holds the value itself).
 */
export interface ShapedValue {
  readonly type: TypeExpr;
  readonly entry: string | null;
}

/** How one returned value is shown (the response format of plan/hql-format.ts). */
export type Presentation = HqlShow;

export class CompileError extends Error {
  constructor(
    readonly pos: SourcePos,
    message: string,
  ) {
    super(message);
  }
}

export function describeTy(ty: Ty): string {
  if (ty.k === 'element') return `${ty.single ? 'a' : 'the'} ${ty.kind}${ty.single ? '' : 's'} of type ${ty.type}`;
  if (ty.k === 'shaped') return ty.what;
  return `a parameter of type ${typeText(ty.type)}`;
}

export function typeText(type: TypeExpr): string {
  switch (type.kind) {
    case 'primitive':
      return type.name;
    case 'array':
      return `[${typeText(type.of)}]`;
    case 'object':
      return `{${type.fields.map((f) => `${f.name.text}: ${typeText(f.type)}`).join(', ')}}`;
    case 'named':
      return type.name;
  }
}
