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
import { GraphError } from '../core/errors.js';
import { DateTime, type Value } from '../core/value.js';
import type { Batch } from '../plan/batch.js';
import type { ParamDef, QueryDef, TypeExpr } from './ast.js';
import { attempt, checkName, newLowering, ONE, type CallNeeds, type LoweringHooks, type LoweringOptions } from './lower-context.js';
import { lowerCondition } from './lower-condition.js';
import { lowerProjection } from './lower-projection.js';
import { checkMcpReturn, lowerReturns } from './lower-return.js';
import { lowerStatements } from './lower-statement.js';
import { lowerTraversal } from './lower-traversal.js';
import { isFloatType, type Problem, type Schema } from './schema.js';
import { CompileError } from './types.js';
import type { HqlField, HqlValue } from '../plan/hql-format.js';
import { checkedRequest, type Wire } from './wire-build.js';
import { returnSource, statementSource, type StatementSource } from './statement-source.js';

/**
 * A query ready to run: plain data (it travels to the read workers as it is, src/server),
 * whose batch is typed plan nodes, decoded through the /v2/query wire schema when the
 * project loads, so a lowering that strayed from the wire format is caught then.
 */
export interface CompiledQuery {
  readonly name: string;
  readonly mcp: boolean;
  readonly params: readonly ParamDef[];
  readonly write: boolean;
  /** The batch, with the named-query response format; no entries for a query that only returns literals. */
  readonly batch: Batch;
  /** The /v2/query `parameter_types` of the parameters, which a call's values are decoded by. */
  readonly parameterTypes: Readonly<Record<string, unknown>>;
  /** Validate every call's plan: its validation read a parameter's value (plan/validate.ts). */
  readonly revalidate: boolean;
  /** How the response is built; null for `RETURN NONE` (the body is `null`). */
  readonly returns: readonly HqlField[] | null;
  /** `#[model("...")]`: the embedding model of this query's Embed() calls; null for the project's. */
  readonly model: string | null;
  /** What a call needs besides its parameters (embeddings, vector indexes, text indexes, scalar loops). */
  readonly needs: CallNeeds;
  /** The `.hx` file the query is in (set by the project loader), for the messages of its errors. */
  readonly file: string | null;
  /** Per batch entry, the statement it was lowered from (statement-source.ts). */
  readonly statements: readonly StatementSource[];
}

const DEFAULT_OPTIONS: LoweringOptions = { bm25: true, efSearch: null };

const HOOKS: LoweringHooks = { traversal: lowerTraversal, condition: lowerCondition, projection: lowerProjection };

export function compileQuery(
  query: QueryDef,
  schema: Schema,
  options: LoweringOptions = DEFAULT_OPTIONS,
): { compiled: CompiledQuery | null; problems: Problem[] } {
  const l = newLowering(query, schema, options, HOOKS);
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
  const statements: StatementSource[] = [];
  const entries = lowerStatements(l, query.body, (s, count) => {
    for (let i = 0; i < count; i++) statements.push(statementSource(s));
  });
  const { returns, extra } = lowerReturns(l);
  for (let i = 0; i < extra.length; i++) statements.push(returnSource(query.returnPos));
  if (query.mcp) attempt(l, () => checkMcpReturn(l));
  if (l.problems.length > 0) return { compiled: null, problems: l.problems };
  const returnNames = returns === null ? [] : [...new Set(returns.flatMap((r) => sourcesOf(r.value)))];
  const all = [...entries, ...extra];
  for (const e of l.needs.embeds) if (e.loops.length === 0) parameterTypes[e.param] = { array: 'value' };
  for (const s of l.needs.scalarLoops) if (s.loops.length === 0) parameterTypes[s.hidden] = { array: 'object' };
  // The hidden parameters a call is given (embeddings, scalar loops as objects), sampled for validation.
  const hidden = new Map<string, Value>([
    ...l.needs.embeds.filter((e) => e.loops.length === 0).map((e) => [e.param, [0.5]] as [string, Value]),
    ...l.needs.scalarLoops.filter((s) => s.loops.length === 0).map((s) => [s.hidden, []] as [string, Value]),
  ]);
  const made = attempt(l, () => typedBatch(query, l.write, all, returnNames, returns, hidden));
  if (made === null) return { compiled: null, problems: l.problems };
  return {
    compiled: {
      name: query.name.text,
      mcp: query.mcp,
      params: query.params,
      write: l.write,
      batch: made.batch,
      parameterTypes,
      revalidate: made.revalidate,
      returns,
      model: query.model,
      needs: l.needs,
      file: null,
      statements,
    },
    problems: [],
  };
}

/**
 * The lowered batch decoded through the wire schema and validated as /v2/query would,
 * with a representative value of each parameter: a problem here is a bug of the lowering,
 * reported at the query rather than met by its first caller.
 */
function typedBatch(
  query: QueryDef,
  write: boolean,
  entries: readonly Wire[],
  returnNames: readonly string[],
  returns: readonly HqlField[] | null,
  hidden: ReadonlyMap<string, Value>,
): { batch: Batch; revalidate: boolean } {
  const type = write ? 'write' : 'read';
  const format = { kind: 'hql', returns } as const;
  if (entries.length === 0) return { batch: { entries: [], returns: [], format }, revalidate: false };
  try {
    const request = { request_type: type, query_name: query.name.text, query: { [type]: { entries, returns: returnNames } } };
    const params = new Map([...query.params.map((p): [string, Value] => [p.name.text, sampleValue(p.type)]), ...hidden]);
    const { plan, readParamValues } = checkedRequest(request, params);
    return { batch: { ...plan.batch, format }, revalidate: readParamValues };
  } catch (err) {
    if (!(err instanceof GraphError)) throw err;
    throw new CompileError(
      query.name.pos,
      `this query's plan is not valid /v2/query (a bug of Trellis's compiler; please report it): ${err.msg}`,
    );
  }
}

/** The batch entries a returned value shows. */
function sourcesOf(v: HqlValue): string[] {
  switch (v.kind) {
    case 'entry':
      return [v.source];
    case 'literal':
      return [];
    case 'object':
      return v.fields.flatMap((f) => sourcesOf(f.value));
    case 'array':
      return v.items.flatMap(sourcesOf);
  }
}

/** A value of the declared type, for validating a plan before any call. */
function sampleValue(type: TypeExpr): Value {
  switch (type.kind) {
    case 'array':
      return [];
    case 'object':
    case 'named':
      return {};
    case 'primitive':
      if (type.name === 'String') return '';
      if (type.name === 'Boolean') return false;
      if (type.name === 'Date') return new DateTime(0);
      if (isFloatType(type.name)) return 0.5;
      return 0n;
  }
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
