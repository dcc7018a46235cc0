/**
 * What every part of the lowering shares while it checks one query and lowers it to a
 * /v2/query batch (compile.ts; reference helixql-v1.md §3 to §5): the query and the
 * schema, the names in scope with their static types, the problems found so far, and the
 * facts the result needs (whether the query writes). The parts (lower-*.ts) are functions
 * of this context, as src/cypher's are; the ones that recurse into each other reach each
 * other through `hooks`, so no module imports one that imports it back.
 */
import { PRIMITIVE_TYPES, type Expr, type ProjectionStep, type QueryDef, type Step, type TypeExpr } from './ast.js';
import type { SourcePos } from './lexer.js';
import type { EdgeType, NodeType, Problem, Schema } from './schema.js';
import { CompileError, type ElementKind, type Presentation, type Ty } from './types.js';
import { ID_EXPR, property, projectItem, type Wire } from './wire-build.js';

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

/** An enclosing `|item|` scope of a projection, with the traversal-expression level it is at. */
export interface ItemScope {
  readonly name: string;
  readonly el: ElementTy;
  readonly level: number;
}

export interface Lowering {
  readonly query: QueryDef;
  readonly schema: Schema;
  readonly hooks: LoweringHooks;
  readonly problems: Problem[];
  readonly scope: Map<string, Variable>;
  /** Variables whose statement had an error: later uses of them are not reported again. */
  readonly failed: Set<string>;
  /** The `|item|` scopes of the projections being lowered, outermost first. */
  readonly items: ItemScope[];
  /** The query changes the graph (it runs as a write). */
  write: boolean;
  /** How many hidden variables (upserts written as statements of their own) the batch has. */
  hidden: number;
  /** How many traversal expressions (nested values of projections) enclose the code being lowered. */
  expressionLevel: number;
}

export function newLowering(query: QueryDef, schema: Schema, hooks: LoweringHooks): Lowering {
  return {
    query,
    schema,
    hooks,
    problems: [],
    scope: new Map(),
    failed: new Set(),
    items: [],
    write: false,
    hidden: 0,
    expressionLevel: 0,
  };
}

export const LIST: Presentation = { unwrap: 'list', pluck: null, nested: null, element: null, group: null };
export const ONE: Presentation = { unwrap: 'one', pluck: null, nested: null, element: null, group: null };

/** Names the checker refuses as variable, parameter or field names (reference §1, E105). */
const RESERVED_NAMES = new Set<string>(['true', 'false', 'NONE', 'Uuid', '_', ...PRIMITIVE_TYPES]);

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
  const t = kind === 'node' ? l.schema.nodes.get(name) : l.schema.edges.get(name);
  if (t === undefined) {
    const other = kind === 'node' ? l.schema.edges.has(name) : l.schema.nodes.has(name);
    throw new CompileError(pos, `"${name}" is not a ${kind} type${other ? ` (it is ${kind === 'node' ? 'an edge' : 'a node'} type)` : ''}`);
  }
  if (t.kind === 'vector') throw new CompileError(pos, `"${name}" is a vector type; vectors are not supported yet`);
  return t;
}

export function typeOf(l: Lowering, el: ElementTy): NodeType | EdgeType {
  return el.kind === 'node' ? l.schema.nodes.get(el.type)! : l.schema.edges.get(el.type)!;
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
  return kind === 'node' ? ['id', 'label'] : ['id', 'label', 'from_node', 'to_node'];
}

/** The /v2/query expression of a property as the language names it (`id`, `label`, `from_node`...). */
export function propertyExpr(name: string, el: ElementTy): Wire {
  if (name === 'id' || name === 'ID') return ID_EXPR;
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
  const declared = field(typeOf(l, el), name, pos);
  return { expr: property(name), type: declared.type };
}

const NO_POS = { offset: 0, line: 0, column: 0 };
export const ID_TYPE: TypeExpr = { kind: 'primitive', name: 'ID', pos: NO_POS };
export const STRING_TYPE: TypeExpr = { kind: 'primitive', name: 'String', pos: NO_POS };
export const COUNT_TYPE: TypeExpr = { kind: 'primitive', name: 'I64', pos: NO_POS };
export const F64_TYPE: TypeExpr = { kind: 'primitive', name: 'F64', pos: NO_POS };
