/**
 * A /v2/query request prepared once and run many times with other parameters, as a
 * prepared statement (Database.prepare): its JSON is read and decoded once, and each run
 * converts only its parameters. Each run's plan is checked as /v2/query checks a request
 * (plan/validate.ts), once per set of parameter names, or at every run when a check read a
 * parameter's value (a comparison with a parameter operand). A run answers exactly what
 * `queryText` answers for the same request with those parameters.
 */
import { GraphError } from './core/errors.js';
import { jsonValueOf, type JsonValueOptions } from './core/json-value.js';
import type { QueryPlan } from './plan/batch.js';
import { validatePlanNoting } from './plan/validate.js';
import { decodeParameters } from './wire/request.js';

export interface RunOptions {
  /** Wait until a write is flushed to disk. */
  readonly awaitDurable?: boolean;
}

/** Sets of parameter names a prepared query remembers as checked, at most. */
const CHECKED_KEPT = 64;

export class PreparedQuery {
  /** Sets of parameter names (sorted, joined) the plan passed its checks with, while no check reads a value. */
  private readonly checked = new Set<string>();
  private checksReadValues = false;

  constructor(
    private readonly template: QueryPlan,
    private readonly types: Record<string, unknown> | null,
    private readonly convert: JsonValueOptions,
    private readonly runPlan: (plan: QueryPlan, options: RunOptions) => Promise<string> | string,
    private readonly parse: (text: string) => Record<string, unknown>,
  ) {}

  /** Whether the request writes. */
  get type(): 'read' | 'write' {
    return this.template.type;
  }

  /** Runs the request with these parameters (a plain object, as a request's `parameters`); the response JSON text. */
  async queryText(parameters: object = {}, options: RunOptions = {}): Promise<string> {
    const values = jsonValueOf(parameters, this.convert);
    if (values === null || typeof values !== 'object' || Array.isArray(values)) {
      throw new GraphError('invalid_query_json', 'parameters: expected an object of parameter values');
    }
    const plan: QueryPlan = { ...this.template, params: decodeParameters(values as Record<string, unknown>, this.types) };
    this.check(plan);
    return this.runPlan(plan, options);
  }

  /** As queryText, parsed as Database.query parses its answer. */
  async query(parameters: object = {}, options: RunOptions = {}): Promise<Record<string, unknown>> {
    return this.parse(await this.queryText(parameters, options));
  }

  private check(plan: QueryPlan): void {
    const names = [...plan.params.keys()].sort().join('\0');
    if (!this.checksReadValues && this.checked.has(names)) return;
    const { readParamValues } = validatePlanNoting(plan);
    if (readParamValues) {
      this.checksReadValues = true;
      return;
    }
    if (this.checked.size >= CHECKED_KEPT) this.checked.clear();
    this.checked.add(names);
  }
}
