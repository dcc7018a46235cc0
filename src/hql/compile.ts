/**
 * Checks a query against the schema and lowers it to a /v2/query batch (reference
 * helixql-v1.md §3 to §5; DECISIONS D15 to D17). One pass does both: the static type of
 * every traversal decides which operations it becomes, so checking and lowering cannot
 * drift apart. The batch runs on the same decoder, validator and executors as any
 * /v2/query request: there is no second executor.
 *
 * The lowering is split by concept (lower-*.ts) around one shared context
 * (lower-context.ts); this file declares the parameters and puts the parts together.
 */
import type { ParamDef, QueryDef, TypeExpr } from './ast.js';
import { attempt, checkName, newLowering, ONE, type LoweringHooks } from './lower-context.js';
import { lowerCondition } from './lower-condition.js';
import { lowerProjection } from './lower-projection.js';
import { checkMcpReturn, lowerReturns } from './lower-return.js';
import { lowerStatements } from './lower-statement.js';
import { lowerTraversal } from './lower-traversal.js';
import type { Problem, Schema } from './schema.js';
import { CompileError, type ReturnShape } from './types.js';
import type { Wire } from './wire-build.js';

export interface CompiledQuery {
  readonly name: string;
  readonly mcp: boolean;
  readonly params: readonly ParamDef[];
  readonly write: boolean;
  /** The batch entries and returned names of the /v2/query request. */
  readonly entries: readonly Wire[];
  readonly returnNames: readonly string[];
  /** `parameter_types` of the request, one per declared parameter. */
  readonly parameterTypes: Readonly<Record<string, unknown>>;
  /** How the response is built; null for `RETURN NONE` (the body is `null`). */
  readonly returns: readonly ReturnShape[] | null;
}

const HOOKS: LoweringHooks = { traversal: lowerTraversal, condition: lowerCondition, projection: lowerProjection };

export function compileQuery(query: QueryDef, schema: Schema): { compiled: CompiledQuery | null; problems: Problem[] } {
  const l = newLowering(query, schema, HOOKS);
  const parameterTypes: Record<string, unknown> = {};
  for (const p of query.params) {
    attempt(l, () => {
      checkName(p.name.text, p.name.pos, 'a parameter');
      if (l.scope.has(p.name.text)) throw new CompileError(p.name.pos, `parameter "${p.name.text}" is declared twice`);
      checkParamType(p.type);
      parameterTypes[p.name.text] = wireParamType(p.type);
      l.scope.set(p.name.text, { ty: { k: 'param', type: p.type }, show: ONE, pos: p.name.pos });
    });
  }
  const entries = lowerStatements(l, query.body);
  const { returns, extra } = lowerReturns(l);
  if (query.mcp) attempt(l, () => checkMcpReturn(l));
  const returnNames = returns === null ? [] : [...new Set(returns.flatMap((r) => (r.source === null ? [] : [r.source])))];
  const compiled: CompiledQuery = {
    name: query.name.text,
    mcp: query.mcp,
    params: query.params,
    write: l.write,
    entries: [...entries, ...extra],
    returnNames,
    parameterTypes,
    returns,
  };
  return { compiled: l.problems.length === 0 ? compiled : null, problems: l.problems };
}

function checkParamType(type: TypeExpr): void {
  if (type.kind === 'named')
    throw new CompileError(
      type.pos,
      `"${type.name}" is not a parameter type (String, Boolean, F32, F64, I8 to I64, U8 to U128, Date, ID, [T] or {field: T, ...})`,
    );
  if (type.kind === 'array') checkParamType(type.of);
  if (type.kind === 'object') for (const f of type.fields) checkParamType(f.type);
}

/** The /v2/query `parameter_types` entry of a declared type (D6: floats and wide integers go as `value`). */
function wireParamType(type: TypeExpr): unknown {
  switch (type.kind) {
    case 'array':
      return { array: wireParamType(type.of) };
    case 'object':
      return 'object';
    case 'named':
      return 'value';
    case 'primitive':
      switch (type.name) {
        case 'String':
          return 'string';
        case 'Boolean':
          return 'bool';
        case 'Date':
          return 'date_time';
        case 'F32':
        case 'F64':
        case 'U64':
        case 'U128':
          return 'value';
        default:
          return 'i64';
      }
  }
}
