/**
 * The syntax tree of `.hx` files (docs/query-language.md; reference helixql-v1.md §2).
 * Every node carries the position it starts at, so the checker can point at it. The tree
 * keeps what was written, not what it means: the checker (check.ts) resolves names and
 * types against the schema, and the lowering (lower.ts) turns it into a /v2/query plan.
 */
import type { SourcePos } from './lexer.js';

/** A name as written, with its place. */
export interface Name {
  readonly text: string;
  readonly pos: SourcePos;
}

export const PRIMITIVE_TYPES = [
  'String',
  'Boolean',
  'F32',
  'F64',
  'I8',
  'I16',
  'I32',
  'I64',
  'U8',
  'U16',
  'U32',
  'U64',
  'U128',
  'Date',
  'ID',
] as const;
export type PrimitiveType = (typeof PRIMITIVE_TYPES)[number];

export type TypeExpr =
  | { readonly kind: 'primitive'; readonly name: PrimitiveType; readonly pos: SourcePos }
  | { readonly kind: 'array'; readonly of: TypeExpr; readonly pos: SourcePos }
  | { readonly kind: 'object'; readonly fields: readonly FieldDef[]; readonly pos: SourcePos }
  /** A name that is not a primitive: a schema type (legal nowhere yet) or a mistake. */
  | { readonly kind: 'named'; readonly name: string; readonly pos: SourcePos };

/** A literal: strings, exact integers, floats, booleans; `NONE` is null. */
export type LiteralValue = string | bigint | number | boolean | null;

export type DefaultValue =
  { readonly kind: 'now'; readonly pos: SourcePos } | { readonly kind: 'literal'; readonly value: LiteralValue; readonly pos: SourcePos };

export interface FieldDef {
  readonly name: Name;
  readonly type: TypeExpr;
  readonly index: 'none' | 'index' | 'unique';
  readonly default: DefaultValue | null;
}

export interface NodeTypeDef {
  readonly kind: 'node' | 'vector';
  readonly name: Name;
  readonly fields: readonly FieldDef[];
  /** The schema version it belongs to: `schema::N { ... }`, 1 outside any block. */
  readonly version: number;
}

export interface EdgeTypeDef {
  readonly kind: 'edge';
  readonly name: Name;
  readonly unique: boolean;
  readonly from: Name;
  readonly to: Name;
  readonly properties: readonly FieldDef[];
  /** The schema version it belongs to: `schema::N { ... }`, 1 outside any block. */
  readonly version: number;
}

export type TypeDef = NodeTypeDef | EdgeTypeDef;

/** A schema version as written: the `N` of `schema::N`. */
export interface VersionRef {
  readonly value: number;
  readonly pos: SourcePos;
}

/** `N::User`, `E::Follows` or `V::Doc` in a migration. */
export interface ItemRef {
  readonly kind: 'node' | 'edge' | 'vector';
  readonly name: Name;
  readonly pos: SourcePos;
}

/** What a migrated field takes (reference §2.3 `fmap`): NOW, a literal (`NONE` is null), or a field of the old item, maybe cast. */
export type MigrationValue =
  | { readonly kind: 'now'; readonly pos: SourcePos }
  | { readonly kind: 'literal'; readonly value: LiteralValue; readonly pos: SourcePos }
  | {
      readonly kind: 'field';
      readonly name: Name;
      /** `name AS T`. */
      readonly cast: { readonly type: PrimitiveType; readonly pos: SourcePos } | null;
    };

export interface FieldMapping {
  readonly name: Name;
  readonly value: MigrationValue;
}

/** `N::Old => N::New { field: value, ... }`; `_::` for the same item. */
export interface ItemMapping {
  readonly from: ItemRef;
  readonly to: ItemRef | { readonly kind: 'same'; readonly pos: SourcePos };
  /** Written `{ Properties: { ... } }` rather than `{ ... }` (the two mean the same). */
  readonly properties: boolean;
  readonly fields: readonly FieldMapping[];
  /**
   * Where `..` closes the field list, or null: every other field of the new item that the
   * old item has by the same name carries over, as the projection's `..` keeps the rest.
   */
  readonly rest: { readonly pos: SourcePos } | null;
}

/** `MIGRATION schema::1 => schema::2 { mapping ... }` (reference §2.3). */
export interface MigrationDef {
  readonly kind: 'migration';
  readonly pos: SourcePos;
  readonly from: VersionRef;
  readonly to: VersionRef;
  readonly mappings: readonly ItemMapping[];
}

export interface ParamDef {
  readonly name: Name;
  readonly optional: boolean;
  readonly type: TypeExpr;
}

export interface QueryDef {
  readonly kind: 'query';
  readonly pos: SourcePos;
  readonly name: Name;
  readonly mcp: boolean;
  /** `#[model("name")]`: the embedding model of this query's Embed() calls; null for the project's. */
  readonly model: string | null;
  readonly params: readonly ParamDef[];
  readonly body: readonly Statement[];
  readonly returnPos: SourcePos;
  readonly returns: readonly Expr[];
}

export type Statement =
  | { readonly kind: 'assign'; readonly pos: SourcePos; readonly name: Name; readonly value: Expr }
  | { readonly kind: 'drop'; readonly pos: SourcePos; readonly value: Expr }
  | {
      readonly kind: 'for';
      readonly pos: SourcePos;
      /** `FOR x IN`: one name; `FOR {a, b} IN`: the destructured fields. */
      readonly vars: readonly Name[];
      readonly destructure: boolean;
      readonly source: Name;
      readonly body: readonly Statement[];
    }
  /** A creation written as a statement of its own; its result is not kept. */
  | { readonly kind: 'expr'; readonly pos: SourcePos; readonly value: Expr };

export type CompareOp = 'EQ' | 'NEQ' | 'GT' | 'GTE' | 'LT' | 'LTE' | 'CONTAINS' | 'IS_IN';

export interface FieldValue {
  readonly name: Name;
  readonly value: Expr;
}

/**
 * The vector of AddV, UpsertV and SearchV (reference §2.7 `vec_data`): a literal list of
 * numbers, a parameter or variable holding one, or `Embed(text)`, the text turned into a
 * vector by the project's embedding provider.
 */
export type VectorArg =
  | { readonly kind: 'literal'; readonly values: readonly number[]; readonly pos: SourcePos }
  | { readonly kind: 'name'; readonly name: Name }
  | { readonly kind: 'embed'; readonly text: Expr; readonly pos: SourcePos };

/** What `::From(x)` / `::To(x)` and `N<T>(x)` name: a variable or parameter, or a literal id. */
export type IdArg =
  { readonly kind: 'name'; readonly name: Name } | { readonly kind: 'literal'; readonly value: string; readonly pos: SourcePos };

export type Source =
  | {
      readonly kind: 'N' | 'E' | 'V';
      readonly pos: SourcePos;
      readonly type: Name | null;
      readonly id: IdArg | null;
      /** `N<T>({field: value})`: a lookup by an indexed field. */
      readonly lookup: { readonly field: Name; readonly value: Expr } | null;
    }
  | { readonly kind: 'var'; readonly pos: SourcePos; readonly name: Name }
  | { readonly kind: 'anon'; readonly pos: SourcePos }
  | { readonly kind: 'AddN'; readonly pos: SourcePos; readonly type: Name; readonly fields: readonly FieldValue[] }
  | {
      readonly kind: 'AddE';
      readonly pos: SourcePos;
      readonly type: Name;
      readonly fields: readonly FieldValue[];
      readonly from: IdArg | null;
      readonly to: IdArg | null;
    }
  | {
      readonly kind: 'AddV';
      readonly pos: SourcePos;
      readonly type: Name;
      readonly vector: VectorArg;
      readonly fields: readonly FieldValue[];
    }
  /** `BatchAddV<T>(items)`: one vector per element of an array of objects (a `vector` and fields of T). */
  | { readonly kind: 'BatchAddV'; readonly pos: SourcePos; readonly type: Name; readonly items: Name }
  | {
      readonly kind: 'SearchV';
      readonly pos: SourcePos;
      readonly type: Name;
      readonly vector: VectorArg;
      readonly k: Expr;
      /** `SearchV<T>(vec, k, PREFILTER(cond))`: only vectors that pass take part. */
      readonly prefilter: Expr | null;
    }
  | { readonly kind: 'SearchBM25'; readonly pos: SourcePos; readonly type: Name; readonly text: Expr; readonly k: Expr }
  /** `SearchHybrid<T>(vec, text, k)`: a vector and a text search fused by reciprocal rank. */
  | {
      readonly kind: 'SearchHybrid';
      readonly pos: SourcePos;
      readonly type: Name;
      readonly vector: VectorArg;
      readonly text: Expr;
      readonly k: Expr;
    };

export interface ProjectionField {
  readonly name: Name;
  /** `{name}` shorthand: null; `{alias: value}`: the value. */
  readonly value: Expr | ProjectionStep | null;
}

export interface ProjectionStep {
  readonly kind: 'project';
  readonly pos: SourcePos;
  readonly fields: readonly ProjectionField[];
  readonly spread: boolean;
  /** `::|item|{...}`: the name of the current item inside. */
  readonly closure: Name | null;
}

export type Step =
  | { readonly kind: 'hop'; readonly pos: SourcePos; readonly dir: 'Out' | 'In' | 'OutE' | 'InE'; readonly edge: Name }
  | { readonly kind: 'endpoint'; readonly pos: SourcePos; readonly which: 'FromN' | 'ToN' | 'FromV' | 'ToV' }
  | { readonly kind: 'where'; readonly pos: SourcePos; readonly condition: Expr }
  | { readonly kind: 'COUNT' | 'ID' | 'FIRST'; readonly pos: SourcePos }
  | { readonly kind: 'range'; readonly pos: SourcePos; readonly start: Expr; readonly end: Expr }
  | { readonly kind: 'order'; readonly pos: SourcePos; readonly desc: boolean; readonly by: Expr }
  | { readonly kind: 'group'; readonly pos: SourcePos; readonly aggregate: boolean; readonly properties: readonly Name[] }
  | ProjectionStep
  | { readonly kind: 'exclude'; readonly pos: SourcePos; readonly fields: readonly Name[] }
  | { readonly kind: 'compare'; readonly pos: SourcePos; readonly op: CompareOp; readonly value: Expr }
  | { readonly kind: 'update'; readonly pos: SourcePos; readonly fields: readonly FieldValue[] }
  | {
      readonly kind: 'upsert';
      readonly pos: SourcePos;
      readonly which: 'UpsertN' | 'UpsertE' | 'UpsertV';
      /** UpsertV's vector (null for the others). */
      readonly vector: VectorArg | null;
      readonly fields: readonly FieldValue[];
      readonly from: IdArg | null;
      readonly to: IdArg | null;
    }
  | { readonly kind: 'intersect'; readonly pos: SourcePos; readonly traversal: Expr }
  /** `::SearchV<T>(vec, k)` as a step: the search restricted to the incoming vectors. */
  | { readonly kind: 'search'; readonly pos: SourcePos; readonly type: Name; readonly vector: VectorArg; readonly k: Expr }
  /** `::PREFILTER(cond)` after SearchV. */
  | { readonly kind: 'prefilter'; readonly pos: SourcePos; readonly condition: Expr }
  | { readonly kind: 'rerankRRF'; readonly pos: SourcePos; readonly k: Expr | null }
  | { readonly kind: 'rerankMMR'; readonly pos: SourcePos; readonly lambda: Expr; readonly distance: Expr | null }
  | {
      readonly kind: 'path';
      readonly pos: SourcePos;
      readonly algorithm: PathAlgorithm;
      readonly edge: Name | null;
      /** Dijkstra's and A*'s weight expression. */
      readonly weight: Expr | null;
      /** A*'s heuristic property. */
      readonly heuristic: string | null;
      readonly from: IdArg | null;
      readonly to: IdArg | null;
    }
  /** A step the parser recognises but that Trellis does not run (yet); the checker names it. */
  | { readonly kind: 'unsupported'; readonly pos: SourcePos; readonly what: string };

export type PathAlgorithm = 'ShortestPath' | 'ShortestPathBFS' | 'ShortestPathDijkstras' | 'ShortestPathAStar';

export type MathFunction = string;

export type Expr =
  | { readonly kind: 'traversal'; readonly pos: SourcePos; readonly source: Source; readonly steps: readonly Step[] }
  | { readonly kind: 'literal'; readonly pos: SourcePos; readonly value: LiteralValue }
  | { readonly kind: 'array'; readonly pos: SourcePos; readonly items: readonly Expr[] }
  | { readonly kind: 'exists'; readonly pos: SourcePos; readonly negated: boolean; readonly traversal: Expr }
  | {
      readonly kind: 'logic';
      readonly pos: SourcePos;
      readonly op: 'AND' | 'OR';
      readonly negated: boolean;
      readonly items: readonly Expr[];
    }
  | { readonly kind: 'math'; readonly pos: SourcePos; readonly fn: MathFunction; readonly args: readonly Expr[] }
  | { readonly kind: 'object'; readonly pos: SourcePos; readonly fields: readonly FieldValue[] };

/** One parsed `.hx` file. */
export interface HxFile {
  readonly types: readonly TypeDef[];
  readonly migrations: readonly MigrationDef[];
  readonly queries: readonly QueryDef[];
}
