/**
 * The syntax tree of an openCypher query. It keeps what was written, not what it means:
 * semantic analysis resolves names, checks clause-specific rules (a CREATE relationship needs
 * one type and a direction, SKIP must be constant...) and rejects what is out of scope.
 *
 * Every node carries `span`: the UTF-8 byte offsets of its text in the query, `end` exclusive,
 * the offsets the error body of reference/cypher.md reports. Integers stay bigint (D23); the
 * parser has already checked they fit in 64 bits.
 */

export interface Span {
  readonly start: number;
  readonly end: number;
}

/** A name as written (backticks removed), with its place. */
export interface Name {
  readonly name: string;
  readonly span: Span;
}

// ---- queries ----

export type Query = SingleQuery | UnionQuery;

export interface SingleQuery {
  readonly kind: 'single';
  readonly span: Span;
  readonly clauses: readonly Clause[];
}

/** `q1 UNION q2 UNION ...`: the parser rejects a mix of UNION and UNION ALL. */
export interface UnionQuery {
  readonly kind: 'union';
  readonly span: Span;
  readonly all: boolean;
  /** At least two. */
  readonly queries: readonly SingleQuery[];
}

// ---- clauses ----

export type Clause =
  | MatchClause
  | CreateClause
  | MergeClause
  | SetClause
  | RemoveClause
  | DeleteClause
  | WithClause
  | ReturnClause
  | UnwindClause
  | ForeachClause
  | CallClause
  | CallSubqueryClause;

export interface MatchClause {
  readonly kind: 'match';
  readonly span: Span;
  readonly optional: boolean;
  readonly pattern: readonly PatternPart[];
  readonly where: Expr | null;
}

export interface CreateClause {
  readonly kind: 'create';
  readonly span: Span;
  readonly pattern: readonly PatternPart[];
}

export interface MergeAction {
  readonly on: 'create' | 'match';
  readonly span: Span;
  readonly items: readonly SetItem[];
}

export interface MergeClause {
  readonly kind: 'merge';
  readonly span: Span;
  readonly pattern: PatternPart;
  readonly actions: readonly MergeAction[];
}

export type SetItem =
  /** `n.a = v` (the target may be any property access: `n.a.b`, `(x).a`). */
  | { readonly kind: 'setProperty'; readonly span: Span; readonly target: PropertyExpr; readonly value: Expr }
  /** `n = map`: replaces every property. */
  | { readonly kind: 'setAll'; readonly span: Span; readonly variable: Name; readonly value: Expr }
  /** `n += map`: merges properties. */
  | { readonly kind: 'setMerge'; readonly span: Span; readonly variable: Name; readonly value: Expr }
  | { readonly kind: 'setLabels'; readonly span: Span; readonly variable: Name; readonly labels: readonly Name[] };

export interface SetClause {
  readonly kind: 'set';
  readonly span: Span;
  readonly items: readonly SetItem[];
}

export type RemoveItem =
  | { readonly kind: 'removeLabels'; readonly span: Span; readonly variable: Name; readonly labels: readonly Name[] }
  | { readonly kind: 'removeProperty'; readonly span: Span; readonly target: PropertyExpr };

export interface RemoveClause {
  readonly kind: 'remove';
  readonly span: Span;
  readonly items: readonly RemoveItem[];
}

export interface DeleteClause {
  readonly kind: 'delete';
  readonly span: Span;
  readonly detach: boolean;
  readonly targets: readonly Expr[];
}

export interface ProjectionItem {
  readonly span: Span;
  readonly expr: Expr;
  readonly alias: Name | null;
  /** The expression's source text: the column name when there is no alias. */
  readonly text: string;
}

export interface SortItem {
  readonly span: Span;
  readonly expr: Expr;
  readonly descending: boolean;
}

/** What WITH and RETURN share. */
export interface Projection {
  readonly distinct: boolean;
  /** `*` first: every variable in scope, then `items`. */
  readonly star: boolean;
  readonly items: readonly ProjectionItem[];
  readonly orderBy: readonly SortItem[];
  readonly skip: Expr | null;
  readonly limit: Expr | null;
}

export interface WithClause extends Projection {
  readonly kind: 'with';
  readonly span: Span;
  readonly where: Expr | null;
}

export interface ReturnClause extends Projection {
  readonly kind: 'return';
  readonly span: Span;
}

export interface UnwindClause {
  readonly kind: 'unwind';
  readonly span: Span;
  readonly list: Expr;
  readonly variable: Name;
}

export interface ForeachClause {
  readonly kind: 'foreach';
  readonly span: Span;
  readonly variable: Name;
  readonly list: Expr;
  /** Updating clauses only (the parser checks). */
  readonly clauses: readonly Clause[];
}

export interface YieldItem {
  readonly span: Span;
  readonly field: Name;
  readonly alias: Name | null;
}

/** `CALL ns.proc(args) YIELD ...`: parsed so that semantic analysis can reject it by name. */
export interface CallClause {
  readonly kind: 'call';
  readonly span: Span;
  readonly namespace: readonly Name[];
  readonly procedure: Name;
  /** null: called without parentheses (arguments taken implicitly from parameters). */
  readonly args: readonly Expr[] | null;
  /** null: no YIELD. `YIELD *` is only legal in a query that is the call alone. */
  readonly yield: { readonly star: boolean; readonly items: readonly YieldItem[]; readonly where: Expr | null } | null;
}

/** `CALL { query }`: parsed so that semantic analysis can reject it by name (out of scope). */
export interface CallSubqueryClause {
  readonly kind: 'callSubquery';
  readonly span: Span;
  readonly query: Query;
}

// ---- patterns ----

/** `p = (a)-[r]->(b)`, `shortestPath((a)-[*]-(b))`: a chain of nodes joined by relationships. */
export interface PatternPart {
  readonly span: Span;
  readonly variable: Name | null;
  readonly shortest: 'shortestPath' | 'allShortestPaths' | null;
  /** `nodes.length === relationships.length + 1`; relationship i joins nodes i and i+1. */
  readonly nodes: readonly NodePattern[];
  readonly relationships: readonly RelationshipPattern[];
}

export interface NodePattern {
  readonly span: Span;
  readonly variable: Name | null;
  readonly labels: readonly Name[];
  /** A map literal or a parameter (which MATCH and MERGE reject: InvalidParameterUse). */
  readonly properties: MapExpr | ParameterExpr | null;
}

/**
 * `-[...]-` is 'none', `-[...]->` 'right', `<-[...]-` 'left', `<-[...]->` 'both' (undirected
 * for MATCH; CREATE and MERGE reject it with RequiresDirectedRelationship).
 */
export type Direction = 'left' | 'right' | 'none' | 'both';

export interface RelationshipPattern {
  readonly span: Span;
  readonly variable: Name | null;
  /** `:A|B` or `:A|:B`; empty: any type. */
  readonly types: readonly Name[];
  readonly direction: Direction;
  /** `*`: {min: null, max: null}; `*2`: both 2n; `*1..3`, `*..3`, `*2..`. null: one hop. */
  readonly length: { readonly min: bigint | null; readonly max: bigint | null } | null;
  readonly properties: MapExpr | ParameterExpr | null;
}

// ---- expressions ----

export type Expr =
  | IntegerExpr
  | FloatExpr
  | StringExpr
  | BooleanExpr
  | NullExpr
  | ListExpr
  | MapExpr
  | ParameterExpr
  | VariableExpr
  | PropertyExpr
  | IndexExpr
  | SliceExpr
  | HasLabelsExpr
  | UnaryExpr
  | BinaryExpr
  | ComparisonExpr
  | IsNullExpr
  | CallExpr
  | CountStarExpr
  | CaseExpr
  | ListComprehensionExpr
  | PatternComprehensionExpr
  | QuantifierExpr
  | ReduceExpr
  | MapProjectionExpr
  | PatternExpr
  | ExistsExpr;

export interface IntegerExpr {
  readonly kind: 'integer';
  readonly span: Span;
  /** Within -2^63 .. 2^63-1. A minus sign written directly before a literal is part of it. */
  readonly value: bigint;
}
export interface FloatExpr {
  readonly kind: 'float';
  readonly span: Span;
  /** Finite. */
  readonly value: number;
}
export interface StringExpr {
  readonly kind: 'string';
  readonly span: Span;
  readonly value: string;
}
export interface BooleanExpr {
  readonly kind: 'boolean';
  readonly span: Span;
  readonly value: boolean;
}
export interface NullExpr {
  readonly kind: 'null';
  readonly span: Span;
}
export interface ListExpr {
  readonly kind: 'list';
  readonly span: Span;
  readonly items: readonly Expr[];
}
export interface MapEntry {
  readonly key: Name;
  readonly value: Expr;
}
export interface MapExpr {
  readonly kind: 'map';
  readonly span: Span;
  readonly entries: readonly MapEntry[];
}
/** `$name` or `$0` (name '0'). */
export interface ParameterExpr {
  readonly kind: 'parameter';
  readonly span: Span;
  readonly name: string;
}
export interface VariableExpr {
  readonly kind: 'variable';
  readonly span: Span;
  readonly name: string;
}
export interface PropertyExpr {
  readonly kind: 'property';
  readonly span: Span;
  readonly object: Expr;
  readonly key: Name;
}
/** `list[i]` or `map[key]`. */
export interface IndexExpr {
  readonly kind: 'index';
  readonly span: Span;
  readonly object: Expr;
  readonly index: Expr;
}
/** `list[a..b]`, either bound optional. */
export interface SliceExpr {
  readonly kind: 'slice';
  readonly span: Span;
  readonly object: Expr;
  readonly from: Expr | null;
  readonly to: Expr | null;
}
/** `n:A:B`: true when n has every label. */
export interface HasLabelsExpr {
  readonly kind: 'hasLabels';
  readonly span: Span;
  readonly object: Expr;
  readonly labels: readonly Name[];
}
export interface UnaryExpr {
  readonly kind: 'unary';
  readonly span: Span;
  readonly op: 'not' | '-' | '+';
  readonly operand: Expr;
}
export type BinaryOp = 'or' | 'xor' | 'and' | '+' | '-' | '*' | '/' | '%' | '^' | 'in' | 'startsWith' | 'endsWith' | 'contains' | 'regex';
export interface BinaryExpr {
  readonly kind: 'binary';
  readonly span: Span;
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
}
export type ComparisonOp = '=' | '<>' | '<' | '>' | '<=' | '>=';
/** `a < b <= c`: `a < b AND b <= c` with b evaluated once; a single comparison has one op. */
export interface ComparisonExpr {
  readonly kind: 'comparison';
  readonly span: Span;
  /** `ops.length + 1` operands. */
  readonly operands: readonly Expr[];
  readonly ops: readonly ComparisonOp[];
}
export interface IsNullExpr {
  readonly kind: 'isNull';
  readonly span: Span;
  readonly operand: Expr;
  /** IS NOT NULL. */
  readonly negated: boolean;
}
/** `ns.fn(DISTINCT? args)`; names are as written (function names are case-insensitive). */
export interface CallExpr {
  readonly kind: 'call';
  readonly span: Span;
  readonly namespace: readonly Name[];
  readonly name: Name;
  readonly distinct: boolean;
  readonly args: readonly Expr[];
}
export interface CountStarExpr {
  readonly kind: 'countStar';
  readonly span: Span;
}
export interface CaseAlternative {
  readonly when: Expr;
  readonly then: Expr;
}
/** `CASE subject WHEN v THEN r ... END` (simple) or `CASE WHEN cond THEN r ... END` (subject null). */
export interface CaseExpr {
  readonly kind: 'case';
  readonly span: Span;
  readonly subject: Expr | null;
  readonly alternatives: readonly CaseAlternative[];
  readonly else: Expr | null;
}
/** `[x IN list WHERE pred | expr]`. */
export interface ListComprehensionExpr {
  readonly kind: 'listComprehension';
  readonly span: Span;
  readonly variable: Name;
  readonly list: Expr;
  readonly where: Expr | null;
  readonly map: Expr | null;
}
/** `[p = (a)-->(b) WHERE pred | expr]`. */
export interface PatternComprehensionExpr {
  readonly kind: 'patternComprehension';
  readonly span: Span;
  /** The part's `variable` is the path variable. */
  readonly pattern: PatternPart;
  readonly where: Expr | null;
  readonly map: Expr;
}
/** `all(x IN list WHERE pred)` and any, none, single. */
export interface QuantifierExpr {
  readonly kind: 'quantifier';
  readonly span: Span;
  readonly quantifier: 'all' | 'any' | 'none' | 'single';
  readonly variable: Name;
  readonly list: Expr;
  readonly where: Expr | null;
}
/** `reduce(acc = init, x IN list | expr)`. */
export interface ReduceExpr {
  readonly kind: 'reduce';
  readonly span: Span;
  readonly accumulator: Name;
  readonly init: Expr;
  readonly variable: Name;
  readonly list: Expr;
  readonly expr: Expr;
}
export type MapProjectionItem =
  /** `.key` */
  | { readonly kind: 'property'; readonly span: Span; readonly key: Name }
  /** `.*` */
  | { readonly kind: 'allProperties'; readonly span: Span }
  /** `key: expr` */
  | { readonly kind: 'entry'; readonly span: Span; readonly key: Name; readonly value: Expr }
  /** `x`: the variable x under its own name. */
  | { readonly kind: 'variable'; readonly span: Span; readonly name: Name };
/** `n{.a, .*, b: 1, x}`. */
export interface MapProjectionExpr {
  readonly kind: 'mapProjection';
  readonly span: Span;
  readonly variable: Name;
  readonly items: readonly MapProjectionItem[];
}
/** A relationship pattern used as a predicate (only inside WHERE: the parser checks). */
export interface PatternExpr {
  readonly kind: 'pattern';
  readonly span: Span;
  readonly pattern: PatternPart;
}
/**
 * `EXISTS { (a)-->(b) WHERE pred }` (pattern set) or `EXISTS { MATCH ... RETURN ... }`
 * (query set): exactly one of `pattern` and `query` is non-null.
 */
export interface ExistsExpr {
  readonly kind: 'exists';
  readonly span: Span;
  readonly pattern: readonly PatternPart[] | null;
  readonly where: Expr | null;
  readonly query: Query | null;
}
