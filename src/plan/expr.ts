/**
 * Expressions, predicates and the small value-carrying structures that operations share.
 * They mirror the wire forms of reference v2-wire §4, with literals already decoded to
 * `Value`s and every node carrying the JSON path it came from (for runtime messages).
 * A traversal expression holds an operation tree, so this file and ops.ts import each
 * other's types (types only: the layer rule allows that cycle).
 */
import type { Value } from '../core/value.js';
import type { PlanNode } from './ops.js';
import type { MathFunction } from './math-functions.js';

export type ArithOp = 'add' | 'sub' | 'mul' | 'div' | 'mod';

/** The types a `cast` expression converts to (a Trellis extension; exec/cast.ts). */
export const CAST_TARGETS = ['string', 'i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'f32', 'f64', 'date_time'] as const;
export type CastTarget = (typeof CAST_TARGETS)[number];
export type CompareOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';

/** Every expression and predicate records its JSON path, for static and runtime messages. */
interface At {
  readonly path: string;
}

export type Expr = At &
  (
    | { readonly e: 'property'; readonly name: string }
    | { readonly e: 'id' }
    | { readonly e: 'timestamp' }
    | { readonly e: 'date_time_now' }
    | { readonly e: 'constant'; readonly value: Value }
    | { readonly e: 'param'; readonly name: string }
    /**
     * A property (or `$id`, `$label`) of the row that an enclosing traversal expression
     * started from: depth 1 is the innermost one. Valid only inside traversal expressions.
     */
    | { readonly e: 'outer'; readonly depth: number; readonly name: string }
    /**
     * The value a batch variable holds (a Trellis extension): a count or a boolean as
     * itself; else its first item: a value, or with `property` that entry of the first
     * object or that property (or `$id`) of the first element. Empty or missing is null.
     */
    | { readonly e: 'variable'; readonly name: string; readonly property: string | null }
    | { readonly e: ArithOp; readonly left: Expr; readonly right: Expr }
    | { readonly e: 'neg'; readonly expr: Expr }
    /** Its value converted to another type (a Trellis extension, exec/cast.ts); null stays null, a value that cannot convert is an error. */
    | { readonly e: 'cast'; readonly expr: Expr; readonly to: CastTarget }
    /** A math function (math-functions.ts) of its arguments; the result is a float. */
    | { readonly e: 'math'; readonly fn: MathFunction; readonly args: readonly Expr[] }
    | {
        readonly e: 'case';
        readonly whenThen: readonly { readonly when: Predicate; readonly then: Expr }[];
        readonly elseExpr: Expr | null;
      }
    | TraversalExpr
  );

/**
 * A sub-traversal run on the current row alone (its `root` starts at "context", like a
 * branch body, and never mutates); its result as one value: a count or an exists as
 * itself, a list terminal's items or a stream's element ids as an array, or with `first`
 * the array's first item (null when empty).
 */
export interface TraversalExpr {
  readonly e: 'traversal';
  readonly root: PlanNode;
  readonly first: boolean;
}

export type Predicate = At &
  (
    | { readonly p: 'compare'; readonly op: CompareOp; readonly left: Expr; readonly right: Expr }
    | { readonly p: 'between'; readonly value: Expr; readonly min: Expr; readonly max: Expr }
    | { readonly p: 'has_key' | 'is_null' | 'is_not_null'; readonly property: string }
    | { readonly p: 'starts_with' | 'ends_with' | 'contains'; readonly value: Expr; readonly arg: Expr }
    | { readonly p: 'is_in'; readonly value: Expr; readonly values: Expr }
    | { readonly p: 'and' | 'or'; readonly predicates: readonly Predicate[] }
    | { readonly p: 'not'; readonly predicate: Predicate }
  );

/** A mutation or search input: a literal, or an expression evaluated per row. */
export type PropertyInput = { readonly kind: 'value'; readonly value: Value } | { readonly kind: 'expr'; readonly expr: Expr };

/** `{"literal": n}` or `{"expr": ...}`; constants are folded to literals while decoding. */
export type StreamBound =
  { readonly kind: 'literal'; readonly n: number } | { readonly kind: 'expr'; readonly expr: Expr; readonly path: string };

export type ElementRef =
  | { readonly kind: 'all' }
  | { readonly kind: 'ids'; readonly ids: readonly number[] }
  | { readonly kind: 'var'; readonly name: string }
  | { readonly kind: 'param'; readonly name: string; readonly path: string }
  /** A Trellis extension: the ids a variable of values holds (each item, or that entry of each object). */
  | { readonly kind: 'variable'; readonly name: string; readonly property: string | null; readonly path: string }
  /** A Trellis extension: the element the traversal expression `depth` levels out started from (as `outer` reads it). */
  | { readonly kind: 'outer'; readonly depth: number; readonly path: string };

export type Order = 'asc' | 'desc';
