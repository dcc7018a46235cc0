/**
 * The openCypher TCK against parse + semantic analysis (src/cypher/semantics.ts), for
 * semantics.test.ts and for reading the misses by hand:
 *   node dist/test/cypher/semantics-tck.js [--tck dir]   (prints the report as JSON)
 *
 *  - A scenario expecting a SyntaxError or TypeError at compile time must have its query
 *    rejected with that detail (syntax_error for SyntaxError, type_error for TypeError); its
 *    set-up queries must pass. A query rejected as out of scope (unsupported_feature) is
 *    counted apart: those errors depend on what we do not run (procedures' signatures).
 *  - Every other scenario (results, runtime errors) must have all its queries pass, unless
 *    one is rejected as out of scope (temporal functions, CALL, EXISTS { }, writes of several
 *    labels, label SET/REMOVE): those are counted by feature. "At any time" errors may be
 *    raised or not.
 * Scenario Outlines are expanded with their Examples (@cucumber/gherkin's pickles).
 */
import { pathToFileURL } from 'node:url';
import { DEFAULT_TCK, loadTck } from '../../scripts/tck/load.js';
import { CypherError } from '../../src/core/errors.js';
import { CypherSyntaxError } from '../../src/cypher/errors.js';
import { parseCypher } from '../../src/cypher/parser.js';
import { analyze } from '../../src/cypher/semantics.js';

export { DEFAULT_TCK };

export interface Outcome {
  /** 'ok', or the error class: syntax_error (parser or analysis), type_error, unsupported_feature, ... */
  readonly code: string;
  readonly detail: string | null;
  readonly msg: string;
  readonly span: { readonly start: number; readonly end: number } | null;
}

/** Parses and analyses `query`; never throws for a CypherSyntaxError or CypherError. */
export function outcomeOf(query: string): Outcome {
  try {
    analyze(parseCypher(query));
    return { code: 'ok', detail: null, msg: '', span: null };
  } catch (err) {
    if (err instanceof CypherSyntaxError) return { code: 'syntax_error', detail: err.detail, msg: err.message, span: err.span };
    if (err instanceof CypherError) return { code: err.code, detail: err.details.detail, msg: err.msg, span: err.details.span };
    throw err;
  }
}

interface Where {
  readonly file: string;
  readonly scenario: string;
}

export interface TckSemanticsReport {
  scenarios: number;
  /** Scenarios expecting an error at compile time (SyntaxError, TypeError; ProcedureError and ParameterMissing of procedures). */
  readonly compileErrors: {
    total: number;
    matched: number;
    /** Rejected as out of scope (unsupported_feature) instead. */
    outOfScope: (Where & { readonly query: string; readonly expected: string; readonly outcome: Outcome })[];
    misses: (Where & { readonly query: string; readonly expected: string; readonly outcome: Outcome })[];
  };
  /** Scenarios expecting their queries to run (results, runtime errors). */
  readonly valid: {
    total: number;
    passed: number;
    /** Scenarios with a query out of scope, by the feature first met. */
    outOfScope: Record<string, number>;
    wronglyRejected: (Where & { readonly query: string; readonly outcome: Outcome })[];
  };
}

const QUERY_STEP = /^(executing query|executing control query|having executed):?$/;
const ERROR_STEP = /^an? (\w+) should be raised at (compile time|runtime|any time): (\S+)$/;
const CODE_OF: Record<string, string> = { SyntaxError: 'syntax_error', TypeError: 'type_error' };

export function runTckSemantics(tckDir: string = DEFAULT_TCK): TckSemanticsReport {
  const report: TckSemanticsReport = {
    scenarios: 0,
    compileErrors: { total: 0, matched: 0, outOfScope: [], misses: [] },
    valid: { total: 0, passed: 0, outOfScope: {}, wronglyRejected: [] },
  };
  for (const { feature: file, scenario, steps } of loadTck(tckDir).cases) {
    report.scenarios++;
    const where = { file, scenario };
    const queries = steps.filter((s) => QUERY_STEP.test(s.text) && s.doc !== null);
    const main = queries.find((s) => s.text.startsWith('executing query'))?.doc ?? null;
    const error = steps.map((s) => ERROR_STEP.exec(s.text)).find((m) => m !== null) ?? null;
    const compileTime = error !== null && error[2] === 'compile time';
    const anyTime = error !== null && error[2] === 'any time';
    const setup = queries.filter((s) => !((compileTime || anyTime) && s.doc === main)).map((s) => s.doc!);
    const failures = setup.map((query) => ({ query, outcome: outcomeOf(query) })).filter((r) => r.outcome.code !== 'ok');
    if (compileTime) {
      const expected = error[3]!;
      // ProcedureError, ParameterMissing: only procedures raise them (out of scope).
      const code = CODE_OF[error[1]!] ?? null;
      report.compileErrors.total++;
      const outcome = outcomeOf(main ?? '');
      const entry = { ...where, query: main ?? '', expected: `${error[1]}: ${expected}`, outcome };
      // A set-up query out of scope (`CREATE (:A:B)`) does not stop checking the query under test.
      const setupRejected = failures.find((f) => f.outcome.code !== 'unsupported_feature');
      if (setupRejected !== undefined) report.compileErrors.misses.push({ ...entry, ...setupRejected });
      else if (outcome.code === code && outcome.detail === expected) report.compileErrors.matched++;
      else if (outcome.code === 'unsupported_feature') report.compileErrors.outOfScope.push(entry);
      else report.compileErrors.misses.push(entry);
      continue;
    }
    report.valid.total++;
    const rejected = failures.find((f) => f.outcome.code !== 'unsupported_feature');
    if (rejected !== undefined) report.valid.wronglyRejected.push({ ...where, ...rejected });
    else if (failures.length > 0) {
      const feature = failures[0]!.outcome.detail ?? 'unknown';
      report.valid.outOfScope[feature] = (report.valid.outOfScope[feature] ?? 0) + 1;
    } else report.valid.passed++;
  }
  return report;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--tck');
  console.log(JSON.stringify(runTckSemantics(at >= 0 ? process.argv[at + 1] : DEFAULT_TCK), null, 2));
}
