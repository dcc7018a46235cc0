/**
 * Values in a query: literals checked against the type they are stored in or compared
 * with, parameters of a compatible type, RANGE bounds, and the `{field: value}` lists of
 * creations and updates (with the schema's defaults on creation).
 */
import type { Expr, FieldValue, LiteralValue, TypeExpr } from './ast.js';
import type { SourcePos } from './lexer.js';
import { fail, field, lookup, type Lowering } from './lower-context.js';
import { integerRange, isFloatType, literalProblem, parseDateLiteral, type EdgeType, type NodeType } from './schema.js';
import { CompileError, describeTy, typeText } from './types.js';
import { constant, param, type Wire } from './wire-build.js';

/** A value to compare with or to store in a field of type `type` (null: any). */
export function valueExpr(l: Lowering, e: Expr, type: TypeExpr | null): Wire {
  if (e.kind === 'literal') return constant(literal(e.value, type, e.pos));
  if (e.kind === 'traversal' && e.source.kind === 'var' && e.steps.length === 0) return paramRef(l, e.source.name.text, e.source.pos, type);
  throw new CompileError(e.pos, 'expected a literal or a parameter here');
}

/** The list of IS_IN: an array literal or an array parameter. */
export function listExpr(l: Lowering, e: Expr, type: TypeExpr | null): Wire {
  if (e.kind === 'array')
    return constant({
      array: e.items.map((item) =>
        item.kind === 'literal' ? literal(item.value, type, item.pos) : fail(item.pos, 'IS_IN([...]) lists literals'),
      ),
    });
  if (e.kind === 'traversal' && e.source.kind === 'var' && e.steps.length === 0) {
    const v = l.scope.get(e.source.name.text);
    if (v?.ty.k === 'param' && v.ty.type.kind !== 'array')
      throw new CompileError(e.pos, `IS_IN takes an array; "${e.source.name.text}" is ${typeText(v.ty.type)}`);
    return paramRef(l, e.source.name.text, e.source.pos, type === null ? null : { kind: 'array', of: type, pos: e.pos });
  }
  throw new CompileError(e.pos, 'IS_IN takes an array literal or an array parameter');
}

/**
 * A name where a value is expected: a parameter (or loop field), or a variable holding one
 * value (a COUNT, an `::ID` or a `::{field}` of one element), read from the batch variable
 * it is bound to, as the earlier statement computed it (reference §4.1: no re-evaluation).
 */
export function paramRef(l: Lowering, name: string, pos: SourcePos, type: TypeExpr | null): Wire {
  const value = namedValue(l, name, pos);
  if (type !== null && !compatible(value.type, type))
    throw new CompileError(pos, `"${name}" is ${typeText(value.type)}, but ${typeText(type)} is expected here`);
  return value.wire;
}

/** The value a name gives where one is expected, and its type; an error for a name of no single value. */
export function namedValue(l: Lowering, name: string, pos: SourcePos): { readonly type: TypeExpr; readonly wire: Wire } {
  const v = lookup(l, name, pos);
  if (v.ty.k === 'param') return { type: v.ty.type, wire: param(name) };
  const value = v.ty.k === 'shaped' && v.ty.single ? v.ty.value : undefined;
  if (value === undefined)
    throw new CompileError(
      pos,
      `"${name}" is ${describeTy(v.ty)}; here a value is expected: a literal, a parameter, or a variable of one value (a COUNT, an ::ID, a ::{field} of one element)`,
    );
  return { type: value.type, wire: { variable: value.entry === null ? { name } : { name, property: value.entry } } };
}

/** A literal as a tagged /v2/query value, checked against the type it is used as. */
export function literal(value: LiteralValue, type: TypeExpr | null, pos: SourcePos): Wire {
  if (type !== null && type.kind === 'primitive') {
    const problem = literalProblem(value, type.name === 'ID' ? 'U64' : type.name);
    if (problem !== null && value !== null) throw new CompileError(pos, `this value ${problem}`);
    if (type.name === 'Date' && typeof value === 'string') return { date_time: parseDateLiteral(value)! };
    if (isFloatType(type.name) && typeof value === 'bigint') return { f64: Number(value) };
  }
  if (value === null) return 'null';
  if (typeof value === 'string') return { string: value };
  if (typeof value === 'boolean') return { bool: value };
  if (typeof value === 'bigint') return { i64: value };
  return { f64: value };
}

export function bound(l: Lowering, e: Expr, which: string): Wire {
  if (e.kind === 'literal' && typeof e.value === 'bigint') {
    if (e.value < 0n) throw new CompileError(e.pos, `the ${which} of RANGE is ${e.value}; RANGE bounds are non-negative`);
    return { literal: e.value };
  }
  if (e.kind === 'traversal' && e.source.kind === 'var' && e.steps.length === 0) {
    const { type, wire } = namedValue(l, e.source.name.text, e.source.pos);
    if (type.kind !== 'primitive' || integerRange(type.name) === undefined || type.name === 'ID') {
      throw new CompileError(e.pos, `the ${which} of RANGE is an integer; "${e.source.name.text}" is ${typeText(type)}`);
    }
    return { expr: wire };
  }
  throw new CompileError(
    e.pos,
    `the ${which} of RANGE is a non-negative integer literal, an integer parameter or a variable of one integer`,
  );
}

/** `{field: value, ...}` of AddN, AddE and UPDATE, as /v2/query property assignments; creations add defaults. */
export function assignments(l: Lowering, t: NodeType | EdgeType, fields: readonly FieldValue[], creating: boolean): [string, Wire][] {
  const out: [string, Wire][] = [];
  const given = new Set<string>();
  for (const f of fields) {
    const declared = field(t, f.name.text, f.name.pos);
    if (given.has(f.name.text)) throw new CompileError(f.name.pos, `"${f.name.text}" is given twice`);
    given.add(f.name.text);
    const value = valueExpr(l, f.value, declared.type);
    out.push([f.name.text, 'constant' in (value as object) ? { value: (value as { constant: Wire }).constant } : { expr: value }]);
  }
  if (creating) {
    for (const declared of t.fields.values()) {
      if (given.has(declared.name.text) || declared.default === null) continue;
      const d = declared.default;
      out.push([declared.name.text, d.kind === 'now' ? { expr: 'date_time_now' } : { value: literal(d.value, declared.type, d.pos) }]);
    }
  }
  return out;
}

/** The wire operators of the arithmetic the language writes as calls. */
const ARITHMETIC: Readonly<Record<string, string>> = { ADD: 'add', SUB: 'sub', MUL: 'mul', DIV: 'div', MOD: 'mod' };

/**
 * A math call (ADD, POW, SQRT...; reference §4.8) as a wire expression of its arguments,
 * each lowered by `arg`: the arithmetic as /v2/query's operators, the others as its `math`
 * expression. SUM, AVG and COUNT take a list (a nested traversal's values).
 */
export function mathCall(e: Extract<Expr, { kind: 'math' }>, arg: (x: Expr) => Wire): Wire {
  const args = e.args.map(arg);
  const arithmetic = ARITHMETIC[e.fn];
  if (arithmetic !== undefined) return { [arithmetic]: { left: args[0], right: args[1] } };
  return { math: { function: e.fn.toLowerCase(), args } };
}

/** Whether a parameter of type `have` can stand where `want` is expected. */
export function compatible(have: TypeExpr, want: TypeExpr): boolean {
  if (have.kind === 'array' || want.kind === 'array') return have.kind === 'array' && want.kind === 'array' && compatible(have.of, want.of);
  if (have.kind !== 'primitive' || want.kind !== 'primitive') return false;
  const family = (t: string) => (integerRange(t) !== undefined ? 'integer' : isFloatType(t) ? 'float' : t);
  const h = family(have.name);
  const w = family(want.name);
  return h === w || (h === 'integer' && w === 'float');
}
