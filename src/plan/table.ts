/**
 * Table plans: the operators a Cypher statement compiles to (src/cypher/lower.ts), run by
 * src/exec/table/. Where a traversal (ops.ts) streams elements, a table streams rows of
 * values: each row is an array of slots, numbered by the compiler across the whole
 * statement, holding any Cypher value (core/cypher-value.ts) or `undefined` before the slot
 * is bound. Operators are a chain: each reads the rows of its `input` and yields its own.
 *
 * A table plan is one operation of the existing plan (`table` in ops.ts), so it travels,
 * runs in one transaction and is answered like any other; it can start from a traversal
 * (`from_traversal`), so label and property lookups use the same scans and indexes as
 * `/v2/query`. Plans are plain data (no classes, no Maps): they cross threads by msgpack.
 */
import type { PlanNode } from './ops.js';

/** A constant in the plan: a scalar (integers as bigint) or a list of constants (map literals are `map` expressions). */
export type PlanLiteral = null | boolean | bigint | number | string | readonly PlanLiteral[];

/** The byte span of the query text an operator or expression came from (runtime errors point at it). */
export type Where = { readonly start: number; readonly end: number } | null;

// ---- expressions over a row ----

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%' | '^';
export type StringOp = 'startsWith' | 'endsWith' | 'contains' | 'regex';
export type ComparisonOp = '=' | '<>' | '<' | '>' | '<=' | '>=';

export type RowExpr =
  | { readonly k: 'literal'; readonly value: PlanLiteral }
  | { readonly k: 'param'; readonly name: string; readonly at: Where }
  | { readonly k: 'slot'; readonly slot: number }
  | { readonly k: 'property'; readonly object: RowExpr; readonly key: string; readonly at: Where }
  | { readonly k: 'index'; readonly object: RowExpr; readonly index: RowExpr; readonly at: Where }
  | { readonly k: 'slice'; readonly object: RowExpr; readonly from: RowExpr | null; readonly to: RowExpr | null; readonly at: Where }
  | { readonly k: 'has_labels'; readonly object: RowExpr; readonly labels: readonly string[]; readonly at: Where }
  | { readonly k: 'not'; readonly operand: RowExpr; readonly at: Where }
  | { readonly k: 'negate'; readonly operand: RowExpr; readonly at: Where }
  /** Unary plus: checks that the operand is a number. */
  | { readonly k: 'plus'; readonly operand: RowExpr; readonly at: Where }
  | { readonly k: 'and' | 'or' | 'xor'; readonly left: RowExpr; readonly right: RowExpr; readonly at: Where }
  | { readonly k: 'arith'; readonly op: ArithmeticOp; readonly left: RowExpr; readonly right: RowExpr; readonly at: Where }
  | { readonly k: 'string_op'; readonly op: StringOp; readonly left: RowExpr; readonly right: RowExpr; readonly at: Where }
  | { readonly k: 'in'; readonly left: RowExpr; readonly right: RowExpr; readonly at: Where }
  /** `a < b <= c`: every pair compared, each operand evaluated once; three-valued AND of the results. */
  | { readonly k: 'compare'; readonly ops: readonly ComparisonOp[]; readonly operands: readonly RowExpr[]; readonly at: Where }
  | { readonly k: 'is_null'; readonly operand: RowExpr; readonly negated: boolean }
  | { readonly k: 'list'; readonly items: readonly RowExpr[] }
  | { readonly k: 'map'; readonly entries: readonly (readonly [string, RowExpr])[] }
  /** A scalar function by its lower-case name (aggregates are lowered to `aggregate` operators). */
  | { readonly k: 'call'; readonly name: string; readonly args: readonly RowExpr[]; readonly at: Where }
  | {
      readonly k: 'case';
      /** null: `CASE WHEN cond ...`; otherwise each `when` is compared with the subject by equality. */
      readonly subject: RowExpr | null;
      readonly alternatives: readonly (readonly [RowExpr, RowExpr])[];
      readonly otherwise: RowExpr | null;
    }
  /** `[x IN list WHERE p | e]`: x is bound in `slot` for `where` and `project`. */
  | {
      readonly k: 'list_comprehension';
      readonly slot: number;
      readonly list: RowExpr;
      readonly where: RowExpr | null;
      readonly project: RowExpr | null;
      readonly at: Where;
    }
  | {
      readonly k: 'quantifier';
      readonly quantifier: 'all' | 'any' | 'none' | 'single';
      readonly slot: number;
      readonly list: RowExpr;
      readonly predicate: RowExpr;
      readonly at: Where;
    }
  | {
      readonly k: 'reduce';
      readonly accumulator: number;
      readonly init: RowExpr;
      readonly slot: number;
      readonly list: RowExpr;
      readonly step: RowExpr;
      readonly at: Where;
    }
  /** `n {.a, b: e, .*}`: entries in order; a null object gives null. */
  | { readonly k: 'map_projection'; readonly object: RowExpr; readonly items: readonly MapProjectionItem[]; readonly at: Where }
  /**
   * A pattern comprehension or pattern predicate: `plan` runs with the current row as its
   * argument; `project` is evaluated on each of its rows. With `exists`, the value is
   * whether any row came (a pattern used as a predicate).
   */
  | { readonly k: 'subquery'; readonly plan: TableNode; readonly project: RowExpr | null; readonly exists: boolean };

export type MapProjectionItem =
  | { readonly kind: 'property'; readonly key: string }
  | { readonly kind: 'all' }
  | { readonly kind: 'entry'; readonly key: string; readonly value: RowExpr };

// ---- operators ----

export type RelDirection = 'out' | 'in' | 'both';

/** A property map written in a pattern: `{name: 'x', age: $a}`, compared (MATCH) or assigned (CREATE). */
export type PatternProperties = readonly (readonly [string, RowExpr])[];

export interface Expand {
  readonly from: number;
  /** Where the relationship goes (a temporary slot for an unnamed one); for a var-length hop, the list of them. */
  readonly rel: number;
  readonly to: number;
  /** Whether `to` was bound before this hop: then the hop only checks that it reaches it. */
  readonly toBound: boolean;
  /** Whether `rel` was bound before this hop (`MATCH ()-[r]->() MATCH (a)-[r]->(b)`). */
  readonly relBound: boolean;
  readonly types: readonly string[];
  readonly direction: RelDirection;
  readonly properties: PatternProperties;
  /** null: one hop; otherwise the hop count range (max null: unbounded). */
  readonly length: { readonly min: number; readonly max: number | null } | null;
  /** Slots of relationships (or lists of them) bound earlier in the same MATCH: a hop may not reuse them. */
  readonly distinctFrom: readonly number[];
}

export interface CreateNode {
  readonly slot: number;
  /** '' : no label (D22). */
  readonly label: string;
  readonly properties: PatternProperties;
  /** `CREATE (n $props)`: a map whose entries are the properties (then `properties` is empty). */
  readonly propertyMap: RowExpr | null;
  /** The slot holds a node bound before this CREATE: nothing is created. */
  readonly bound: boolean;
}

export interface CreateRel {
  readonly slot: number;
  readonly type: string;
  readonly from: number;
  readonly to: number;
  readonly properties: PatternProperties;
  /** `CREATE ()-[r:T $props]->()`: a map whose entries are the properties. */
  readonly propertyMap: RowExpr | null;
}

/** What CREATE and MERGE make: nodes first, then relationships, then the named paths. */
export interface CreatePattern {
  readonly nodes: readonly CreateNode[];
  readonly rels: readonly CreateRel[];
  readonly paths: readonly PathBinding[];
}

/** A named path `p = (a)-[r]->(b)`: built from slots once the pattern matched. */
export interface PathBinding {
  readonly slot: number;
  /** Alternating node and relationship slots; a relationship slot may hold a var-length list. */
  readonly elements: readonly number[];
}

export type SetAction =
  | { readonly kind: 'property'; readonly object: RowExpr; readonly key: string; readonly value: RowExpr; readonly at: Where }
  | { readonly kind: 'replace' | 'merge'; readonly slot: number; readonly value: RowExpr; readonly at: Where }
  | { readonly kind: 'remove_property'; readonly object: RowExpr; readonly key: string; readonly at: Where };

export interface SortKey {
  readonly expr: RowExpr;
  readonly descending: boolean;
}

export interface Aggregation {
  readonly slot: number;
  /** Lower-case: count, sum, avg, min, max, collect, stdev, stdevp, percentilecont, percentiledisc; `count_star` for count(*). */
  readonly fn: string;
  readonly distinct: boolean;
  readonly args: readonly RowExpr[];
  readonly at: Where;
}

export type TableNode =
  /** One row with no slot bound: where a statement without MATCH starts. */
  | { readonly t: 'unit' }
  /** The row the enclosing operator runs this plan for (OPTIONAL MATCH, MERGE, FOREACH, subqueries). */
  | { readonly t: 'argument' }
  /** Per input row, every element a traversal yields, in `slot`: label and property scans reuse /v2/query's. */
  | {
      readonly t: 'from_traversal';
      readonly input: TableNode;
      readonly root: PlanNode;
      readonly slot: number;
      readonly kind: 'node' | 'rel';
    }
  /**
   * Per input row, every node (with `label`, when given) in `slot`; with `id`, only the node
   * of that id (`WHERE id(n) = $x`), none when the value is not an integer.
   */
  | { readonly t: 'scan'; readonly input: TableNode; readonly slot: number; readonly label: string | null; readonly id: RowExpr | null }
  | ({ readonly t: 'expand'; readonly input: TableNode } & Expand)
  /** Keeps rows whose node in `slot` has the label and the properties (a node bound earlier, matched again). */
  | {
      readonly t: 'check_node';
      readonly input: TableNode;
      readonly slot: number;
      readonly labels: readonly string[];
      readonly properties: PatternProperties;
    }
  | {
      readonly t: 'shortest_path';
      readonly input: TableNode;
      readonly from: number;
      readonly to: number;
      readonly path: number;
      readonly rel: number;
      readonly types: readonly string[];
      readonly direction: RelDirection;
      readonly min: number;
      readonly max: number | null;
      readonly all: boolean;
    }
  | { readonly t: 'bind_path'; readonly input: TableNode; readonly path: PathBinding }
  | { readonly t: 'filter'; readonly input: TableNode; readonly predicate: RowExpr }
  /** Per input row, the rows of `body` (run with the row as argument), or the row with `slots` null when none. */
  | { readonly t: 'optional'; readonly input: TableNode; readonly body: TableNode; readonly slots: readonly number[] }
  /**
   * Computes `items` into their slots. `only`: the new rows hold just these slots (WITH,
   * RETURN); otherwise the input's slots are kept too. `distinct` drops repeated rows.
   */
  | {
      readonly t: 'project';
      readonly input: TableNode;
      readonly items: readonly (readonly [number, RowExpr])[];
      readonly only: boolean;
      readonly distinct: boolean;
    }
  | {
      readonly t: 'aggregate';
      readonly input: TableNode;
      readonly keys: readonly (readonly [number, RowExpr])[];
      readonly aggregations: readonly Aggregation[];
    }
  | { readonly t: 'sort'; readonly input: TableNode; readonly keys: readonly SortKey[] }
  | { readonly t: 'skip' | 'limit'; readonly input: TableNode; readonly count: RowExpr; readonly at: Where }
  | { readonly t: 'unwind'; readonly input: TableNode; readonly list: RowExpr; readonly slot: number }
  | { readonly t: 'create'; readonly input: TableNode; readonly pattern: CreatePattern }
  /**
   * Per input row: the rows of `match` (run with the row as argument), then `onMatch` on
   * each; when none, `create` then `onCreate`.
   */
  | {
      readonly t: 'merge';
      readonly input: TableNode;
      readonly match: TableNode;
      readonly create: CreatePattern;
      readonly onMatch: readonly SetAction[];
      readonly onCreate: readonly SetAction[];
    }
  | { readonly t: 'set'; readonly input: TableNode; readonly actions: readonly SetAction[] }
  | { readonly t: 'delete'; readonly input: TableNode; readonly targets: readonly RowExpr[]; readonly detach: boolean; readonly at: Where }
  /** Per input row, `body` once per item of `list` (the item in `slot`); the input rows pass on. */
  | { readonly t: 'foreach'; readonly input: TableNode; readonly list: RowExpr; readonly slot: number; readonly body: TableNode }
  /** Every row of every branch; without `all`, repeated rows dropped. Branches end in `project` of the same slots. */
  | { readonly t: 'union'; readonly branches: readonly TableNode[]; readonly all: boolean }
  /** Materialises its input before the next operator reads it: clause boundaries after writes. */
  | { readonly t: 'eager'; readonly input: TableNode };

export type TableKind = TableNode['t'];

/** A compiled statement: its operator chain and the slots its columns read. */
export interface TableStatement {
  readonly root: TableNode;
  readonly columns: readonly (readonly [string, number])[];
  readonly slotCount: number;
}
