/**
 * What the checker knows about a value while it compiles a query: the static type of a
 * traversal's result, and how a returned value is shown to the caller.
 */
import type { TypeExpr } from './ast.js';
import type { SourcePos } from './lexer.js';

export type ElementKind = 'node' | 'edge';

export type Ty =
  /** Nodes or edges of one schema type; `single`: at most one (N<T>(id), FIRST, AddN, UPDATE). */
  | { readonly k: 'element'; readonly kind: ElementKind; readonly type: string; readonly single: boolean }
  /** The result of a projection, a property access, COUNT or a grouping; steps cannot go on from it. */
  | { readonly k: 'shaped'; readonly single: boolean; readonly what: string }
  /** A parameter (or a field of a FOR element): a value of its declared type. */
  | { readonly k: 'param'; readonly type: TypeExpr };

/** How one returned value is shown, read from the /v2/query response (response.ts). */
export interface Presentation {
  /** one: the first element or null; list: the array; count: the number in `[n]`. */
  readonly unwrap: 'one' | 'list' | 'count';
  /** A property access (`::{name}`, `::ID`): each object becomes the value of this key. */
  readonly pluck: string | null;
  /**
   * Projected fields holding a nested property access (`posts: _::Out<Wrote>::{title}`):
   * alias to the key whose bare values are shown (the executor gives one-key objects).
   */
  readonly nested: Readonly<Record<string, string>> | null;
  /**
   * Whole elements, read with value_map (nodes) or edge_properties (edges): each object is
   * shown as `id`, `label` (edges: `from_node`, `to_node`), then these declared fields in
   * order, null when unset. Cheaper to run than a projection of every field.
   */
  readonly element: { readonly kind: ElementKind; readonly fields: readonly string[] } | null;
  /** GROUP_BY / AGGREGATE_BY (DECISIONS D17), grouped from the projected rows. */
  readonly group: { readonly properties: readonly string[]; readonly aggregate: boolean } | null;
}

export interface ReturnShape extends Presentation {
  /** The key of the response object. */
  readonly key: string;
  /** The name in the /v2/query response to read, or null for a literal. */
  readonly source: string | null;
  readonly literal: string | bigint | number | boolean | null;
}

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
