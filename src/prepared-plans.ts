/**
 * Plans of requests that differ only in their parameters, prepared once per thread. A
 * named query (src/server/named-queries.ts) sends the same /v2/query request on every call
 * with only its `parameters` object changed, placed last and starting at a byte offset it
 * knows (`paramsAt`). Parsing, decoding and validating that batch again on every call cost
 * more than running a point read, so the decoded batch is kept, keyed by the request's
 * bytes before the parameters, and a call parses its parameters only. A plan whose
 * validation looked at a parameter's value (a comparison with a parameter that may have no
 * order) is validated again on every call; any other plan stays valid for every call,
 * since typed parameters always come with the same names (decodeParameters checks them
 * against parameter_types).
 *
 * Only internal callers set `paramsAt`; a client's /v2/query body never takes this path.
 */
import { GraphError } from './core/errors.js';
import type { QueryPlan } from './plan/batch.js';
import { validatePlan, validatePlanNoting } from './plan/validate.js';
import { decodeParameters, decodeRequest } from './wire/request.js';
import { isObject } from './core/json.js';

/** Distinct requests kept per thread; past it the cache starts over (a project has a few hundred queries at most). */
const MAX_PLANS = 1024;

interface Prepared {
  /** The plan without parameters. */
  readonly plan: QueryPlan;
  /** The request's `parameter_types`, or null for untyped parameters. */
  readonly types: Record<string, unknown> | null;
  /** Validate each call's plan: it depends on parameter values, or on which parameters an untyped call sends. */
  readonly revalidate: boolean;
}

export class PreparedPlans {
  private readonly plans = new Map<string, Prepared>();

  constructor(
    /** Request bytes to JSON, with the errors of a /v2/query body (database.ts). */
    private readonly parse: (body: Uint8Array) => unknown,
  ) {}

  /**
   * The validated plan of `body`, a request whose text ends with `"parameters":{...}}`,
   * the parameters object starting at byte `paramsAt`.
   */
  prepare(body: Uint8Array, paramsAt: number): QueryPlan {
    const key = Buffer.from(body.buffer, body.byteOffset, paramsAt).toString('latin1');
    const hit = this.plans.get(key);
    if (hit === undefined) {
      const json = this.parse(body);
      const plan = decodeRequest(json);
      const { readParamValues } = validatePlanNoting(plan);
      const types = (json as { parameter_types?: unknown }).parameter_types;
      if (this.plans.size >= MAX_PLANS) this.plans.clear();
      const typed = isObject(types) ? types : null;
      this.plans.set(key, { plan: { ...plan, params: new Map() }, types: typed, revalidate: readParamValues || typed === null });
      return plan;
    }
    const values = this.parse(body.subarray(paramsAt, body.byteLength - 1));
    if (!isObject(values)) throw new GraphError('invalid_query_json', 'parameters: expected an object');
    const plan: QueryPlan = { ...hit.plan, params: decodeParameters(values, hit.types) };
    if (hit.revalidate) validatePlan(plan);
    return plan;
  }
}
