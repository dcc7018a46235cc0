/**
 * What semantic analysis carries from clause to clause: the variables in scope with their
 * static types, what it records for the lowering (the kind of every variable occurrence, the
 * parameters), the first out-of-scope feature it met, and the errors it raises.
 */
import { CypherError } from '../core/errors.js';
import { clip } from '../core/clip.js';
import type { Expr, Name, ProjectionItem, ReturnClause, Span, VariableExpr, WithClause } from './ast.js';
import { kindOf, type Ty, type VarKind } from './check-types.js';

export interface Binding {
  readonly ty: Ty;
  /** Where the variable was introduced. */
  readonly span: Span;
}

/** Variables in scope, by name. Clauses make new maps; a map is never changed once shared. */
export type Scope = ReadonlyMap<string, Binding>;

export const EMPTY_SCOPE: Scope = new Map();

/** An expression quoted in a message stays short (core/clip.ts). */
const quoted = (text: string): string => clip(text, 60);

/** A compile-time error of the query: `syntax_error` (the TCK's SyntaxError) unless told. */
export function semanticError(detail: string, msg: string, span: Span, code: 'syntax_error' | 'type_error' = 'syntax_error'): CypherError {
  return new CypherError(code, msg, { detail, phase: 'compile', span: { start: span.start, end: span.end } });
}

/** A feature this server does not run: `detail` names it (TemporalFunction, CallProcedure...). */
function unsupportedError(detail: string, msg: string, span: Span): CypherError {
  return new CypherError('unsupported_feature', msg, { detail, phase: 'compile', span: { start: span.start, end: span.end } });
}

/** Shared by every checker of one query. */
export class AnalysisState {
  readonly kinds = new Map<VariableExpr | Name, VarKind>();
  readonly parameters = new Set<string>();
  /** After DISTINCT or aggregation: ORDER BY and WHERE sub-expressions that stand for a projected item. */
  readonly standsFor = new Map<Expr, ProjectionItem>();
  /** The WITH and RETURN clauses with an aggregate. */
  readonly aggregating = new Set<WithClause | ReturnClause>();
  /**
   * The first out-of-scope feature met. It is thrown only once the whole query is checked,
   * so that a syntax error anywhere in it wins, as the TCK expects of a real engine.
   */
  unsupported: CypherError | null = null;

  noteKind(at: VariableExpr | Name, ty: Ty): void {
    this.kinds.set(at, kindOf(ty));
  }

  noteUnsupported(detail: string, msg: string, span: Span): void {
    this.unsupported ??= unsupportedError(detail, msg, span);
  }
}

/** A short rendering of an expression for messages: `n.name`, `count(...)`, or its kind. */
export function describe(e: Expr): string {
  switch (e.kind) {
    case 'variable':
      return e.name;
    case 'property':
      return `${describe(e.object)}.${e.key.name}`;
    case 'parameter':
      return `$${e.name}`;
    case 'integer':
      return String(e.value);
    case 'float':
      return String(e.value);
    case 'string':
      return quoted(JSON.stringify(e.value));
    case 'boolean':
      return String(e.value);
    case 'null':
      return 'null';
    case 'call':
      return `${[...e.namespace, e.name].map((n) => n.name).join('.')}(...)`;
    case 'countStar':
      return 'count(*)';
    case 'hasLabels':
      return `${describe(e.object)}:${e.labels.map((l) => l.name).join(':')}`;
    case 'unary':
      return quoted(`${e.op === 'not' ? 'NOT ' : e.op}${describe(e.operand)}`);
    case 'binary':
      return quoted(`${describe(e.left)} ${BINARY_TEXT[e.op] ?? e.op} ${describe(e.right)}`);
    case 'comparison':
      return quoted(e.operands.map((o, i) => (i === 0 ? describe(o) : `${e.ops[i - 1]} ${describe(o)}`)).join(' '));
    case 'list':
      return quoted(`[${e.items.map(describe).join(', ')}]`);
    case 'map':
      return quoted(`{${e.entries.map((x) => `${x.key.name}: ${describe(x.value)}`).join(', ')}}`);
    default:
      return `the ${e.kind} expression`;
  }
}

const BINARY_TEXT: Partial<Record<string, string>> = {
  or: 'OR',
  xor: 'XOR',
  and: 'AND',
  in: 'IN',
  startsWith: 'STARTS WITH',
  endsWith: 'ENDS WITH',
  contains: 'CONTAINS',
  regex: '=~',
};
