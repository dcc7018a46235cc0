/**
 * What every part of the lowering shares while it checks one query and lowers it to a
 * /v2/query batch (compile.ts; reference helixql-v1.md §3 to §5): the query and the
 * schema, the names in scope with their static types, the problems found so far, and the
 * facts the result needs (whether the query writes). The parts (lower-*.ts) are functions
 * of this context, as src/cypher's are; the ones that recurse into each other reach each
 * other through `hooks`, so no module imports one that imports it back.
 */
import { DEFAULT_HNSW_BUILD, type HnswBuildParameters } from '../core/index-spec.js';
import { PRIMITIVE_TYPES, type Expr, type IdArg, type ProjectionStep, type QueryDef, type Step, type TypeExpr } from './ast.js';
import type { SourcePos } from './lexer.js';
import { integerRange, type EdgeType, type NodeType, type Problem, type Schema } from './schema.js';
import { CompileError, describeTy, typeText, type ElementKind, type Presentation, type Ty } from './types.js';
import { CONTEXT, ID_EXPR, property, projectItem, type Wire } from './wire-build.js';

/** A traversal lowered so far: its operation tree, its static type and how it is shown. */
export interface Lowered {
  readonly root: Wire;
  readonly ty: Ty;
  readonly show: Presentation;
}

/** An element type in a lowered traversal: nodes, edges or vectors of one schema type. */
export type ElementTy = Extract<Ty, { k: 'element' }>;

export interface Variable {
  readonly ty: Ty;
  readonly show: Presentation;
  readonly pos: SourcePos;
}

/** The parts of the lowering that call each other back (set up by compile.ts). */
export interface LoweringHooks {
  /** A traversal; `current` is what `_` stands for (null at the top of a statement). */
  traversal(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, current: Ty | null): Lowered;
  /** A WHERE condition about the element `el`, as a /v2/query predicate. */
  condition(l: Lowering, e: Expr, el: ElementTy): Wire;
  /** A projection step on `state`, whose elements are `el`. */
  projection(l: Lowering, state: Lowered, el: ElementTy, step: ProjectionStep): Lowered;
}

/**
 * An enclosing `|item|` scope of a projection, with the traversal-expression level it is
 * at. A traversal from the item deeper down starts from the hidden variable `stored`, which
 * each of the scope's values that needs it sets to the current item first (`as`); `uses`
 * counts those traversals, so the projection knows which of its values need it.
 */
export interface ItemScope {
  readonly name: string;
  readonly el: ElementTy;
  readonly level: number;
  stored: string | null;
  uses: number;
}

/** What the project's configuration tells the lowering. */
export interface LoweringOptions {
  /** Text search (SearchBM25, SearchHybrid) is on. */
  readonly bm25: boolean;
  /** The beam of every vector search (config.hx.json's `ef_search`); null: the index's default. */
  readonly efSearch: number | null;
  /** The build parameters of the vector indexes the queries make (src/config.ts `vectorIndex`); default 16 and 128. */
  readonly vectorIndex?: HnswBuildParameters;
}

export interface Lowering {
  readonly query: QueryDef;
  readonly schema: Schema;
  readonly options: LoweringOptions;
  readonly hooks: LoweringHooks;
  readonly problems: Problem[];
  readonly scope: Map<string, Variable>;
  /** Variables whose statement had an error: later uses of them are not reported again. */
  readonly failed: Set<string>;
  /** The `|item|` scopes of the projections being lowered, outermost first. */
  readonly items: ItemScope[];
  /** The query changes the graph (it runs as a write). */
  write: boolean;
  /** How many hidden variables (upserts as statements, search parts, path ends...) the batch has. */
  hidden: number;
  /** How many traversal expressions (nested values of projections) enclose the code being lowered. */
  expressionLevel: number;
  /** Entries the statement being lowered needs before its own (hidden variables it reads). */
  pre: Wire[];
  /** The FOR loops around the statement being lowered, outermost first (their array parameters). */
  readonly loops: string[];
  /** Loop fields by name: the loops (outermost first) down to the one that declares it. */
  readonly loopFields: Map<string, readonly string[]>;
  /** What the query asks of the threads that run it (compile.ts CallNeeds). */
  readonly needs: CallNeeds;
}

/**
 * What a call needs besides its parameters: the texts to embed before it runs, the vector
 * types it writes (whose index is made with the first vector, of its dimension), the text
 * indexes its searches read, FOR loops over arrays of scalars.
 */
export interface CallNeeds {
  readonly embeds: EmbedSite[];
  readonly vectorWrites: VectorWrite[];
  /** The build parameters of the vector indexes it makes (LoweringOptions.vectorIndex). */
  readonly vectorIndex: HnswBuildParameters;
  readonly textIndexes: { readonly label: string; readonly property: string }[];
  readonly scalarLoops: ScalarLoop[];
}

/**
 * An `Embed(text)`: the text is a literal, a parameter, or a field of the elements of the
 * FOR loops `loops`; the vector goes in `param`, beside the text (a top-level parameter,
 * or a field of each element of the innermost loop).
 */
export interface EmbedSite {
  readonly param: string;
  readonly text: { readonly literal: string } | { readonly name: string };
  readonly loops: readonly string[];
}

/** A vector written into `type`, from a literal (its dimension), a parameter or field (loops as EmbedSite), or an embedding. */
export interface VectorWrite {
  readonly type: string;
  readonly from: { readonly dimension: number } | { readonly name: string; readonly loops: readonly string[] };
}

/** `FOR x IN xs`, xs an array of scalars: the call gives the loop `hidden`, xs as objects `{x: value}`. */
export interface ScalarLoop {
  readonly param: string;
  readonly as: string;
  readonly hidden: string;
  readonly loops: readonly string[];
}

export function newLowering(query: QueryDef, schema: Schema, options: LoweringOptions, hooks: LoweringHooks): Lowering {
  return {
    query,
    schema,
    options,
    hooks,
    problems: [],
    scope: new Map(),
    failed: new Set(),
    items: [],
    write: false,
    hidden: 0,
    expressionLevel: 0,
    pre: [],
    loops: [],
    loopFields: new Map(),
    needs: { embeds: [], vectorWrites: [], vectorIndex: options.vectorIndex ?? DEFAULT_HNSW_BUILD, textIndexes: [], scalarLoops: [] },
  };
}

/** A fresh name for a hidden variable of the batch (`$` cannot start a name the query declares). */
export function hiddenName(l: Lowering, what: string): string {
  return `$${what}${++l.hidden}`;
}

/** A presentation: `unwrap` and what else is given, nothing for the rest. */
export function shows(given: Partial<Presentation> & Pick<Presentation, 'unwrap'>): Presentation {
  return { pluck: null, nested: null, element: null, group: null, path: null, ...given };
}

export const LIST: Presentation = shows({ unwrap: 'list' });
export const ONE: Presentation = shows({ unwrap: 'one' });
export const COUNT: Presentation = shows({ unwrap: 'count' });

/** Names the checker refuses as variable, parameter or field names (reference §1, E105). */
const RESERVED_NAMES = new Set<string>(['true', 'false', 'NONE', 'Uuid', '_', ...PRIMITIVE_TYPES]);

/** The innermost enclosing `|item|` scope named `name`, if any. */
export function outerScope(l: Lowering, name: string): ItemScope | undefined {
  for (let i = l.items.length - 1; i >= 0; i--) if (l.items[i]!.name === name) return l.items[i];
  return undefined;
}

/**
 * Where a traversal from the name `name` starts, inside WHERE, EXISTS or a projection:
 * the current element when `name` is the item of the projection being lowered (`context`),
 * an outer item (read back from its scope's hidden variable) or a variable of the query
 * (`select`, the same for every element). Null when `name` is neither item nor element variable.
 */
export function traversalStart(l: Lowering, name: string, pos: SourcePos): { root: Wire; el: ElementTy } | null {
  const frame = outerScope(l, name);
  if (frame !== undefined) {
    if (frame.level === l.expressionLevel) return { root: CONTEXT, el: { ...frame.el, single: true } };
    frame.stored ??= hiddenName(l, 'item');
    frame.uses++;
    return { root: { select: { input: CONTEXT, name: frame.stored } }, el: { ...frame.el, single: true } };
  }
  const v = lookup(l, name, pos);
  if (v.ty.k !== 'element') return null;
  return { root: { select: { input: CONTEXT, name } }, el: v.ty };
}

/**
 * A traversal lowered as a traversal expression of its own (inside EXISTS, a comparison,
 * a sort key, a projected value): one level deeper, so `outer` reads and outer items
 * inside it count the expression it runs in.
 */
export function nestedTraversal(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, current: Ty): Lowered {
  l.expressionLevel++;
  try {
    return l.hooks.traversal(l, e, current);
  } finally {
    l.expressionLevel--;
  }
}

/** A use of a variable whose statement failed: stops the use without a second report. */
export class FollowOnError extends CompileError {}

export function fail(pos: SourcePos, message: string): never {
  throw new CompileError(pos, message);
}

/** Runs `fn`, reporting a CompileError it throws as a problem (null then). */
export function attempt<T>(l: Lowering, fn: () => T): T | null {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof CompileError)) throw err;
    if (!(err instanceof FollowOnError)) l.problems.push({ pos: err.pos, message: err.message });
    return null;
  }
}

/** A name in scope; a variable whose own statement failed stops the use quietly (its error is reported already). */
export function lookup(l: Lowering, name: string, pos: SourcePos): Variable {
  const v = l.scope.get(name);
  if (v !== undefined) return v;
  if (l.failed.has(name)) throw new FollowOnError(pos, name);
  throw new CompileError(pos, `"${name}" is not defined`);
}

export function checkName(name: string, pos: SourcePos, what: string): void {
  if (RESERVED_NAMES.has(name)) throw new CompileError(pos, `"${name}" is a reserved word and cannot name ${what}`);
}

// ---- schema lookups ----

export function elementType(l: Lowering, kind: ElementKind, name: string, pos: SourcePos): NodeType | EdgeType {
  const t = kind === 'edge' ? l.schema.edges.get(name) : l.schema.nodes.get(name);
  if (t === undefined || t.kind !== kind) {
    const actual = l.schema.nodes.get(name)?.kind ?? (l.schema.edges.has(name) ? 'edge' : null);
    throw new CompileError(pos, `"${name}" is not ${article(kind)} type${actual === null ? '' : ` (it is ${article(actual)} type)`}`);
  }
  return t;
}

function article(kind: ElementKind): string {
  return kind === 'edge' ? 'an edge' : `a ${kind}`;
}

export function typeOf(l: Lowering, el: ElementTy): NodeType | EdgeType {
  return el.kind === 'edge' ? l.schema.edges.get(el.type)! : l.schema.nodes.get(el.type)!;
}

/** The kind of the elements of a node or vector type (an edge's end, say). */
export function kindOfType(l: Lowering, name: string): 'node' | 'vector' {
  return l.schema.nodes.get(name)?.kind === 'vector' ? 'vector' : 'node';
}

/** How an element kind is stored: vectors are nodes. */
export function stored(kind: ElementKind): 'node' | 'edge' {
  return kind === 'edge' ? 'edge' : 'node';
}

export function field(t: NodeType | EdgeType, name: string, pos: SourcePos) {
  const f = t.fields.get(name);
  if (f === undefined) {
    const fields = [...t.fields.keys()];
    throw new CompileError(
      pos,
      `"${name}" is not a field of ${t.kind} type ${t.name}${fields.length > 0 ? ` (its fields: ${fields.join(', ')})` : ' (it has no fields)'}`,
    );
  }
  return f;
}

export function implicitFields(kind: ElementKind): string[] {
  return kind === 'edge' ? ['id', 'label', 'from_node', 'to_node'] : ['id', 'label'];
}

/** The implicit fields a projection may read besides those shown whole: a vector's data and score. */
const VECTOR_EXTRAS = ['data', 'score'];

/** A vector's score: a reranker's $score, else twice the search's cosine $distance (HelixDB's 1 − cosine); null for neither. */
export const SCORE_EXPR: Wire = {
  case: {
    when_then: [
      { when: { is_not_null: { property: '$score' } }, then: property('$score') },
      { when: { is_not_null: { property: '$distance' } }, then: { mul: { left: property('$distance'), right: { constant: { f64: 2 } } } } },
    ],
    else_expr: { constant: 'null' },
  },
};

/** The /v2/query expression of a property as the language names it (`id`, `label`, `from_node`...). */
export function propertyExpr(name: string, el: ElementTy): Wire {
  if (name === 'id' || name === 'ID') return ID_EXPR;
  if (el.kind === 'vector' && name === 'score') return SCORE_EXPR;
  if (name === 'label') return property('$label');
  if (el.kind === 'edge' && name === 'from_node') return property('$from');
  if (el.kind === 'edge' && name === 'to_node') return property('$to');
  return property(name);
}

/** The whole element as the caller sees it: id, label (edges: from_node, to_node), then every declared field. */
export function elementItems(l: Lowering, el: ElementTy): Wire[] {
  const names = [...implicitFields(el.kind), ...typeOf(l, el).fields.keys()];
  return names.map((name) => projectItem(name, propertyExpr(name, el)));
}

export function aliasOf(item: Wire): string {
  return (item as { expr: { alias: string } }).expr.alias;
}

/** `{name}`: a projection of exactly one shorthand field, which reads as a property access. */
export function singleField(step: ProjectionStep): { text: string; pos: SourcePos } | null {
  if (step.fields.length !== 1 || step.spread || step.closure !== null) return null;
  const f = step.fields[0]!;
  return f.value === null ? f.name : null;
}

/** An upsert ends its traversal: a step after one is an error at that step. */
export function checkNothingAfterUpsert(steps: readonly Step[]): void {
  const at = steps.findIndex((s) => s.kind === 'upsert');
  if (at >= 0 && at < steps.length - 1) {
    const upsert = steps[at] as Extract<Step, { kind: 'upsert' }>;
    throw new CompileError(steps[at + 1]!.pos, `nothing can follow ${upsert.which}: it ends the traversal`);
  }
}

/** A property of the element as the language names it: its expression and declared type. */
export function propertyOf(l: Lowering, el: ElementTy, name: string, pos: SourcePos): { expr: Wire; type: TypeExpr | null } {
  if (name === 'id' || name === 'ID') return { expr: ID_EXPR, type: ID_TYPE };
  if (name === 'label') return { expr: property('$label'), type: STRING_TYPE };
  if (el.kind === 'edge' && (name === 'from_node' || name === 'to_node'))
    return { expr: property(name === 'from_node' ? '$from' : '$to'), type: ID_TYPE };
  if (el.kind === 'vector' && VECTOR_EXTRAS.includes(name))
    return name === 'data' ? { expr: property('data'), type: VECTOR_TYPE } : { expr: SCORE_EXPR, type: F64_TYPE };
  const declared = field(typeOf(l, el), name, pos);
  return { expr: property(name), type: declared.type };
}

const NO_POS = { offset: 0, line: 0, column: 0 };
export const ID_TYPE: TypeExpr = { kind: 'primitive', name: 'ID', pos: NO_POS };
export const STRING_TYPE: TypeExpr = { kind: 'primitive', name: 'String', pos: NO_POS };
export const COUNT_TYPE: TypeExpr = { kind: 'primitive', name: 'I64', pos: NO_POS };
export const F64_TYPE: TypeExpr = { kind: 'primitive', name: 'F64', pos: NO_POS };
export const VECTOR_TYPE: TypeExpr = { kind: 'array', of: F64_TYPE, pos: NO_POS };

/** `tree` (a /v2/query operation tree) with its innermost `context` replaced by `input`. */
export function withInput(tree: Wire, input: Wire): Wire {
  if (tree === CONTEXT) return input;
  if (typeof tree !== 'object') return tree;
  const [name, body] = Object.entries(tree)[0]! as [string, Record<string, unknown>];
  if (body === null || typeof body !== 'object' || !('input' in body)) return tree;
  return { [name]: { ...body, input: withInput(body.input as Wire, input) } };
}

/**
 * What `N<T>(x)`, `::From(x)` and `::To(x)` address: an ID parameter, a variable of nodes
 * (of vectors too: they are nodes), a variable of ids (`x <- u::ID`), or a literal id.
 */
export function idReference(l: Lowering, arg: IdArg, kind: ElementKind): Wire {
  if (arg.kind === 'literal') {
    if (!/^[0-9]+$/.test(arg.value) || BigInt(arg.value) >= 2n ** 64n)
      throw new CompileError(arg.pos, `"${arg.value}" is not an id: Trellis ids are non-negative integers`);
    return { ids: [BigInt(arg.value)] };
  }
  const name = arg.name.text;
  const v = lookup(l, name, arg.name.pos);
  if (v.ty.k === 'param') {
    const t = v.ty.type;
    if (t.kind !== 'primitive' || (t.name !== 'ID' && integerRange(t.name) === undefined)) {
      throw new CompileError(arg.name.pos, `"${name}" is a parameter of type ${typeText(t)}; an id is an ID parameter`);
    }
    return { param: name };
  }
  if (v.ty.k === 'element' && stored(v.ty.kind) === stored(kind)) return { var: name };
  // `x <- u::ID` (or `::{field}` of an ID field): the ids the variable holds, as computed then.
  const value = v.ty.k === 'shaped' ? v.ty.value : undefined;
  if (value !== undefined && value.type.kind === 'primitive' && value.type.name === 'ID')
    return { variable: value.entry === null ? { name } : { name, property: value.entry } };
  throw new CompileError(arg.name.pos, `"${name}" is ${describeTy(v.ty)}, not ${kind === 'edge' ? 'edges' : `${kind}s`} or an ID`);
}
