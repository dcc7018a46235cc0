/**
 * One database: a store plus the request pipeline that every front end shares
 * (JSON -> plan -> validation -> one transaction -> response JSON). The HTTP server runs
 * the same steps split across threads (src/pool); the embedded API runs them in-process.
 */
import { errorReply, GraphError, messageOf, toErrorBody } from './core/errors.js';
import { checkOptionsForRequestType, fromOptionFlags, type PipelineOptions } from './core/request-options.js';
import { JsonSyntaxError, parseJson, parseJsonBytes, type ParseJsonOptions } from './core/json.js';
import { MIN_TABLE_ROWS, tableArray, tabulate } from './core/row-table.js';
import { jsonValueOf, type JsonValueOptions } from './core/json-value.js';
import { setOwn, type Value, type ValueObject } from './core/value.js';
import type { QueryPlan } from './plan/batch.js';
import type { HqlFormat } from './plan/hql-format.js';
import { validatePlan } from './plan/validate.js';
import { decodeParameters, decodePreparedRequest, decodeRequest } from './wire/request.js';
import { decodeImportRequest, inBodyTerms } from './wire/import-request.js';
import { PreparedQuery } from './prepared-query.js';
import { executePlan, type ExecOptions } from './exec/batch.js';
import { Preempted } from './exec/guarded-reader.js';
import { LIMITS } from './plan/limits.js';
import { openStore, type Committed, type Store } from './store/index.js';
import type { CompiledQuery } from './hql/compile.js';
import { checkParameters as checkNamedParameters, type ParamValue } from './hql/params.js';
import { vectorIndexEntries, withEmbeddings, withScalarLoops } from './hql/call.js';
import { encodeHqlResponse } from './exec/hql-encode.js';
import type { CompiledCypher } from './cypher/compile.js';
import { compileCached } from './cypher/plan-cache.js';
import { explainJson } from './cypher/explain.js';
import { decodeCypherRequest, type CypherRequest } from './cypher/request.js';
import { CypherError, type AnswerRoute } from './core/errors.js';
import { encodeMessage, toPlanMessage } from './protocol/codec.js';
import type { AnswerToEncode, RequestFrame } from './protocol/frames.js';

/** Bulk-load rows in a request are parsed as row tables (src/core/row-table.ts). */
const REQUEST_JSON: ParseJsonOptions = { tables: { minRows: MIN_TABLE_ROWS, make: tableArray } };
/** The same for an embedded caller's request object. */
const REQUEST_OBJECT: JsonValueOptions = {
  tables: {
    minRows: MIN_TABLE_ROWS,
    make: (items) => {
      const table = tabulate(items as Value[]);
      return table === null ? items : tableArray(table);
    },
  },
};

/** Request text, bytes, or (embedded callers) a plain object, to a validated plan. */
export function preparePlan(request: string | Uint8Array | object): QueryPlan {
  const plan = decodeRequest(parseRequest(request));
  validatePlan(plan);
  return plan;
}

/** Request text, bytes or a plain object as JSON, with our errors for bad JSON. */
function parseRequest(request: string | Uint8Array | object): unknown {
  try {
    if (typeof request === 'string') return parseJson(request, REQUEST_JSON);
    if (request instanceof Uint8Array) return parseJsonBytes(request, REQUEST_JSON);
    // A JS object has lost the integer/float token distinction: read it as its JSON text
    // would be read ("integer-valued numbers are integers"), without making the text.
    return jsonValueOf(request, REQUEST_OBJECT);
  } catch (err) {
    if (err instanceof GraphError) throw err;
    if (err instanceof JsonSyntaxError && err.tooDeep) throw new GraphError('limit_exceeded', `JSON ${err.message}`);
    throw new GraphError('invalid_query_json', `invalid JSON: ${messageOf(err)}`);
  }
}

/** A Cypher request compiled: the plan to run (one `table` operation) and what compiling learnt. */
export interface PreparedCypher {
  readonly plan: QueryPlan;
  readonly compiled: CompiledCypher;
}

/** A /v2/cypher body decoded and its statement compiled (from this thread's plan cache). */
interface CompiledRequest {
  readonly request: CypherRequest;
  readonly compiled: CompiledCypher;
}

function compileRequest(request: string | Uint8Array | object): CompiledRequest {
  const decoded = decodeCypherRequest(parseRequest(request));
  return { request: decoded, compiled: compileCached(decoded.query) };
}

/** Every `$name` the statement reads must be given (reference/cypher.md: `RETURN $missing` is 400). */
function checkParameters({ request, compiled }: CompiledRequest): void {
  for (const name of compiled.parameters) {
    if (!request.parameters.has(name))
      throw new CypherError('parameter_missing', `parameter $${name} is used by the query but not given in "parameters"`, {
        detail: 'MissingParameter',
        phase: 'compile',
        span: null,
      });
  }
}

function cypherPlan({ request, compiled }: CompiledRequest): QueryPlan {
  const root = { op: 'table', path: '$', statement: compiled.statement } as const;
  return {
    type: compiled.effect,
    queryName: request.queryName,
    batch: { entries: [{ kind: 'query', name: 'result', root, condition: null, path: '$' }], returns: ['result'], format: 'cypher' },
    params: request.parameters,
  };
}

/**
 * A /v2/cypher body (text, bytes or object) to a plan, in the reference's order: JSON,
 * compile, then parameters (every `$name` the statement reads must be given).
 */
export function prepareCypher(request: string | Uint8Array | object): PreparedCypher {
  const compiled = compileRequest(request);
  checkParameters(compiled);
  return { plan: cypherPlan(compiled), compiled: compiled.compiled };
}

/**
 * The /v2/cypher and /v2/cypher/explain pipeline past header parsing, in the order of
 * reference/cypher.md: JSON, compile, the options against the statement's effect (explain
 * takes read-side options only: it never runs), reader mode (503 `access_mode_error` for a
 * writing statement or X-Svc-Require-Writer; explaining a write is fine on a reader), the
 * parameters, then the read itself; a write is returned for the writer thread.
 */
export function answerCypher(
  body: Uint8Array | string,
  options: PipelineOptions,
  readerMode: boolean,
  read: (plan: QueryPlan) => string,
  explain = false,
): QueryAnswer {
  try {
    const compiled = compileRequest(body);
    const effect = explain ? 'read' : compiled.compiled.effect;
    checkOptionsForRequestType(options, effect);
    checkReaderMode(readerMode, effect, options, 'access_mode_error', 'writing statements');
    checkParameters(compiled);
    if (explain) return { kind: 'done', status: 200, body: explainJson(compiled.compiled) };
    return readOrWrite(cypherPlan(compiled), options, read);
  } catch (err) {
    return failed(err);
  }
}

/** A body of any route through its pipeline. */
function answerRoute(answerer: Answerer, request: RequestFrame, options: PipelineOptions, read: (plan: QueryPlan) => string): QueryAnswer {
  const { route, body } = request;
  if (route === 'query') return answerQuery(body, options, answerer.readerMode, read);
  if (route === 'named') return answerNamed(answerer.named[request.queryId], body, options, answerer.readerMode, read);
  if (route === 'import') return answerImport(body, options, answerer.readerMode);
  return answerCypher(body, options, answerer.readerMode, read, route === 'cypher_explain');
}

/** A named query of the project, as the threads hold it (src/hql compile.ts). */
export type NamedQuery = CompiledQuery;

/** What a thread answers requests with: its read-only store, the server's mode, the query budget, the project's queries. */
export interface Answerer {
  readonly store: Store;
  readonly readerMode: boolean;
  readonly timeoutMs: number;
  /** The project's named queries, by the place a `named` request calls them by. */
  readonly named: readonly CompiledQuery[];
  /** Read answers carry the LSN of the snapshot they read (a replica: docs/replication.md). */
  readonly snapshotLsn?: boolean;
}

/**
 * One request through its route's pipeline, the one answering function of the read
 * workers and of the main thread's inline path: a read runs here on a fresh snapshot
 * (stopping past `sliceMs` when it is not 0, answered `preempted` with the time it has
 * had), and a write comes back as the encoded plan for the writer thread.
 */
export function answerRequest(answerer: Answerer, request: RequestFrame, sliceMs: number): AnswerToEncode {
  const start = performance.now();
  const { spentMs } = request;
  const exec: ExecOptions = { timeoutMs: answerer.timeoutMs, spentMs, sliceMs };
  let lsn: number | undefined;
  const read = (plan: QueryPlan) => {
    if (answerer.snapshotLsn !== true) return runRead(answerer.store, plan, exec);
    const done = runReadAt(answerer.store, plan, exec);
    lsn = done.lsn;
    return done.value;
  };
  const options = fromOptionFlags(request.flags);
  const answer = answerRoute(answerer, request, options, read);
  switch (answer.kind) {
    case 'done':
      return lsn === undefined
        ? { kind: 'response', status: answer.status, text: answer.body }
        : { kind: 'response', status: answer.status, text: answer.body, lsn };
    case 'preempted':
      return { kind: 'preempted', spentMs: spentMs + (performance.now() - start) };
    case 'write':
      return { kind: 'write', awaitDurable: answer.awaitDurable, plan: encodeMessage(toPlanMessage(answer.plan)) };
  }
}

/** What one /v2/query request comes to: an answer, or a write for the writer to run. */
export type QueryAnswer =
  | { readonly kind: 'done'; readonly status: number; readonly body: string }
  | { readonly kind: 'write'; readonly plan: QueryPlan; readonly awaitDurable: boolean }
  /** A read that outran its time slice (ExecOptions.sliceMs): run it again without one. */
  | { readonly kind: 'preempted' };

/**
 * The query pipeline past header parsing, in the reference's order of checks
 * (server-gateway §2.3): JSON and plan, options against the request type, writer mode,
 * then the read itself. Writes are returned for the single writer thread to run.
 */
export function answerQuery(
  body: Uint8Array | string,
  options: PipelineOptions,
  readerMode: boolean,
  read: (plan: QueryPlan) => string,
): QueryAnswer {
  try {
    const plan = preparePlan(body);
    checkOptionsForRequestType(options, plan.type);
    checkReaderMode(readerMode, plan.type, options, 'writer_mode_required', 'writes');
    return readOrWrite(plan, options, read);
  } catch (err) {
    return failed(err);
  }
}

/**
 * A /v2/import batch (src/wire/import-request.ts): always a write. Its body to the plan of
 * the bulk load it stands for, checked as any plan, then the options and the server's mode.
 */
export function answerImport(body: Uint8Array, options: PipelineOptions, readerMode: boolean): QueryAnswer {
  try {
    checkOptionsForRequestType(options, 'write');
    checkReaderMode(readerMode, 'write', options, 'writer_mode_required', 'imports');
    const plan = decodeImportRequest(body);
    inBodyTerms(() => validatePlan(plan));
    return readOrWrite(plan, options, () => '');
  } catch (err) {
    return failed(err);
  }
}

/**
 * A call of a named query (DECISIONS D16): the body is the JSON object of its parameters
 * (empty: none). They are checked against the declarations, decoded as the batch's
 * `parameter_types` say, and the batch runs as /v2/query runs it, in the same order of
 * checks; the response is written in the named-query shape by whichever thread runs the
 * batch (the batch carries its format), and errors answer with this route's statuses.
 */
export function answerNamed(
  query: CompiledQuery | undefined,
  body: Uint8Array,
  options: PipelineOptions,
  readerMode: boolean,
  read: (plan: QueryPlan) => string,
): QueryAnswer {
  try {
    if (query === undefined) throw new GraphError('internal_error', 'a call of a named query this thread does not know');
    const values = callValues(query, namedBody(body));
    const indexes = vectorIndexEntries(query, values);
    const batch = indexes.length === 0 ? query.batch : { ...query.batch, entries: [...indexes, ...query.batch.entries] };
    if (batch.entries.length === 0) {
      // A query that only returns literals (`RETURN "ok"`) needs no database.
      return { kind: 'done', status: 200, body: encodeHqlResponse(null, hqlFormatOf(query), () => undefined) };
    }
    const type = query.write ? 'write' : 'read';
    const plan: QueryPlan = { type, queryName: query.name, batch, params: decodeParameters(values, query.parameterTypes) };
    if (query.revalidate) validatePlan(plan);
    checkOptionsForRequestType(options, type);
    checkReaderMode(readerMode, type, options, 'writer_mode_required', 'writes');
    return readOrWrite(plan, options, read);
  } catch (err) {
    return failed(err, 'named_query');
  }
}

/**
 * A call's values: its checked parameters, with what the batch reads besides them (call.ts).
 * A query that embeds texts is sent as `{"params": ..., "vectors": [...]}`, the vectors
 * made by the main thread (src/server/embedding.ts).
 */
function callValues(query: CompiledQuery, body: unknown): Record<string, ParamValue> {
  if (query.needs.embeds.length === 0) return withScalarLoops(query, checkNamedParameters(query.params, body));
  const call = body as { params?: unknown; vectors?: unknown };
  const vectors = call.vectors;
  if (!Array.isArray(vectors)) throw new GraphError('internal_error', `a call of ${query.name} came without its embeddings`);
  const values = checkNamedParameters(query.params, call.params);
  // The vectors go where the batch reads them: in a FOR over scalars, the loop's hidden objects.
  return withEmbeddings(query, withScalarLoops(query, values), vectors as number[][]);
}

function hqlFormatOf(query: CompiledQuery): HqlFormat {
  const format = query.batch.format;
  if (format === undefined || format === 'cypher' || format.kind === 'import')
    throw new GraphError('internal_error', `query ${query.name} has no named-query format`);
  return format;
}

/** A named call's body: a JSON object of the parameters, or nothing at all for none. */
function namedBody(body: Uint8Array): unknown {
  if (body.byteLength === 0) return {};
  try {
    return parseJsonBytes(body);
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      if (err.tooDeep) throw new GraphError('limit_exceeded', `the body's JSON ${err.message}`);
      throw new GraphError('invalid_query_json', `the body is not valid JSON: ${err.message}`);
    }
    throw err;
  }
}

/**
 * A reader-mode server refuses writes and X-Svc-Require-Writer reads, with the code of its
 * route (/v2/query: writer_mode_required; /v2/cypher: access_mode_error, as the reference).
 */
function checkReaderMode(
  readerMode: boolean,
  effect: 'read' | 'write',
  options: PipelineOptions,
  code: 'writer_mode_required' | 'access_mode_error',
  writes: string,
): void {
  if (!readerMode || (effect === 'read' && !options.requireWriter)) return;
  throw new GraphError(
    code,
    effect === 'write'
      ? `this server is in reader mode; send ${writes} to a writer`
      : 'X-Svc-Require-Writer is set but this server is in reader mode',
  );
}

/** A read is answered here; a write goes back to the caller for the writer thread. */
function readOrWrite(plan: QueryPlan, options: PipelineOptions, read: (plan: QueryPlan) => string): QueryAnswer {
  if (plan.type === 'write') return { kind: 'write', plan, awaitDurable: options.awaitDurable === true };
  return { kind: 'done', status: 200, body: read(plan) };
}

function failed(err: unknown, route: AnswerRoute = 'any'): QueryAnswer {
  if (err instanceof Preempted) return { kind: 'preempted' };
  return { kind: 'done', ...errorReply(toErrorBody(err), route) };
}

export function runRead(store: Store, plan: QueryPlan, options: ExecOptions): string {
  return store.read((reader) => executePlan(plan, reader, null, options));
}

/** As runRead, with the change-log LSN of the snapshot it read (a replica's X-Trellis-Lsn). */
function runReadAt(store: Store, plan: QueryPlan, options: ExecOptions): { readonly value: string; readonly lsn: number } {
  return store.readAt((reader) => executePlan(plan, reader, null, options));
}

/** As runWrite, with the LSN at which the write is visible (its change-log entry's; the X-Trellis-Lsn answer header). */
export function runWriteLogged(store: Store, plan: QueryPlan, options: ExecOptions, durable = false): Promise<Committed<string>> {
  return store.writeLogged((writer) => executePlan(plan, writer, writer, options), { durable });
}

/** Runs a write plan; answers once its commit is visible, or flushed to disk when `durable`. */
export function runWrite(store: Store, plan: QueryPlan, options: ExecOptions, durable = false): Promise<string> {
  return store.write((writer) => executePlan(plan, writer, writer, options), { durable });
}

export interface OpenOptions {
  readonly readOnly?: boolean;
  /** Execution budget of one query, ms (default 30 s); past it: 408 query_timeout. */
  readonly queryTimeoutMs?: number;
}

/** The embedded database handle returned by `open()`. */
export class Database {
  private constructor(
    readonly store: Store,
    private readonly exec: ExecOptions,
  ) {}

  static async open(path: string, options: OpenOptions = {}): Promise<Database> {
    // The embedded API publishes nothing: its batches record no change-log entries (docs/replication.md, "Cost").
    const store = await openStore({ path, readOnly: options.readOnly ?? false, unlogged: true });
    return new Database(store, { timeoutMs: options.queryTimeoutMs ?? LIMITS.defaultQueryTimeoutMs });
  }

  /**
   * Runs one QueryRequest (text, bytes or object) and returns the response JSON text.
   * `awaitDurable` waits until a write is flushed to disk.
   */
  async queryText(request: string | Uint8Array | object, options: { awaitDurable?: boolean } = {}): Promise<string> {
    return this.run(preparePlan(request), options, 'writer_mode_required', 'write requests');
  }

  /**
   * Runs one Cypher request (`{"query", "parameters"?}` as text, bytes or object) and returns
   * the response JSON text `{"columns", "rows"}`. A reading statement runs on a snapshot,
   * a writing one as one write transaction.
   */
  async cypherText(request: string | Uint8Array | object, options: { awaitDurable?: boolean } = {}): Promise<string> {
    return this.run(prepareCypher(request).plan, options, 'access_mode_error', 'writing statements');
  }

  /** A read on a snapshot, or a write as one transaction; `writes` names them in messages. */
  private run(
    plan: QueryPlan,
    options: { awaitDurable?: boolean },
    readOnlyCode: 'writer_mode_required' | 'access_mode_error',
    writes: string,
  ): Promise<string> | string {
    if (plan.type === 'read') {
      if (options.awaitDurable) throw new GraphError('invalid_request_option', `awaitDurable is only valid for ${writes}`);
      return runRead(this.store, plan, this.exec);
    }
    if (this.store.readOnly) throw new GraphError(readOnlyCode, `this database is open read-only; ${writes} need a writer`);
    return runWrite(this.store, plan, this.exec, options.awaitDurable === true);
  }

  /**
   * A request (text, bytes or object, without `parameters`) prepared once to run many
   * times, each run with its own parameters: `prepared.query(parameters)`. It skips reading
   * and decoding the request at every run, as a prepared statement does; the answers are
   * those of query and queryText.
   */
  prepare(request: string | Uint8Array | object): PreparedQuery {
    const { plan, types } = decodePreparedRequest(parseRequest(request));
    return new PreparedQuery(
      plan,
      types,
      REQUEST_OBJECT,
      (p, options) => this.run(p, options, 'writer_mode_required', 'write requests'),
      (text) => friendly(parseJson(text)) as Record<string, unknown>,
    );
  }

  /** As queryText, parsed: integers within 2^53 become numbers, larger ones bigints. */
  async query(request: string | Uint8Array | object, options: { awaitDurable?: boolean } = {}): Promise<Record<string, unknown>> {
    return friendly(parseJson(await this.queryText(request, options))) as Record<string, unknown>;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

function friendly(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  if (Array.isArray(v)) return v.map(friendly);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(out as ValueObject, k, friendly(x) as Value);
    return out;
  }
  return v;
}
