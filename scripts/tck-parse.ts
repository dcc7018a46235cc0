/**
 * The openCypher TCK against the Cypher parser alone (src/cypher/parser.ts): every query of
 * every scenario, Scenario Outlines expanded with their Examples, is parsed, and the outcome is
 * compared with what the scenario expects of a parser.
 *
 *  - A scenario that expects a SyntaxError at compile time whose detail the parser owns
 *    (PARSER_DETAILS in src/cypher/errors.ts) must have its query rejected with that detail.
 *  - Every other scenario (results, runtime errors, compile-time errors of semantic
 *    analysis) must have all its queries parse: set-up (`having executed`), control and
 *    main queries.
 *
 * Run: npx tsc -p tsconfig.json && node dist/scripts/tck-parse.js [--json out.json] [--tck dir]
 * It prints the report as JSON; `--json` also writes it to a file. The TCK is read from
 * ../shared/tck (beside the repository) unless `--tck` says otherwise.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { CypherSyntaxError, PARSER_DETAILS } from '../src/cypher/errors.js';
import { parseCypher } from '../src/cypher/parser.js';
import { DEFAULT_TCK, loadTck } from './tck/load.js';

export { DEFAULT_TCK };

interface ParseError {
  readonly detail: string;
  readonly msg: string;
  readonly span: { start: number; end: number };
}

/** One scenario (an outline's example row counts as one), as the report lists it. */
interface Case {
  readonly file: string;
  readonly scenario: string;
}

export interface FolderFigures {
  scenarios: number;
  /** Scenarios that expect every query to parse. */
  expectParse: number;
  /** Of those, scenarios that expect a compile-time SyntaxError that semantic analysis owns. */
  expectSemanticError: number;
  parsed: number;
  /** Scenarios that expect the parser to reject the query. */
  expectSyntaxError: number;
  rejected: number;
  detailMatches: number;
}

export interface TckParseReport {
  readonly tck: string;
  readonly features: number;
  readonly queries: number;
  readonly total: FolderFigures;
  readonly folders: Record<string, FolderFigures>;
  /** Scenarios that expect their queries to parse, with the first query that did not. */
  readonly wronglyRejected: (Case & { readonly query: string; readonly error: ParseError })[];
  /** Scenarios that expect a parser error, whose query parsed. */
  readonly wronglyAccepted: (Case & { readonly query: string; readonly expected: string })[];
  /** Rejected as expected, with the error (to read the messages and spans). */
  readonly rejectedAsExpected: (Case & { readonly query: string; readonly error: ParseError })[];
  /** Rejected as expected, but with another detail code. */
  readonly wrongDetail: (Case & { readonly query: string; readonly expected: string; readonly error: ParseError })[];
}

const PARSER_OWNED = new Set<string>(PARSER_DETAILS);
const QUERY_STEP = /^(executing query|executing control query|having executed):?$/;
const SYNTAX_ERROR_STEP = /^a SyntaxError should be raised at compile time: (\w+)$/;

function tryParse(query: string): ParseError | null {
  try {
    parseCypher(query);
    return null;
  } catch (err) {
    if (!(err instanceof CypherSyntaxError)) throw err;
    return { detail: err.detail, msg: err.message, span: err.span };
  }
}

const emptyFigures = (): FolderFigures => ({
  scenarios: 0,
  expectParse: 0,
  expectSemanticError: 0,
  parsed: 0,
  expectSyntaxError: 0,
  rejected: 0,
  detailMatches: 0,
});

/** Parses every query of the TCK in `tckDir` (holding `features/`) and compares. */
export function runTckParse(tckDir: string = DEFAULT_TCK): TckParseReport {
  const { files, cases } = loadTck(tckDir);
  const total = emptyFigures();
  const folders: Record<string, FolderFigures> = {};
  const wronglyRejected: TckParseReport['wronglyRejected'][number][] = [];
  const wronglyAccepted: TckParseReport['wronglyAccepted'][number][] = [];
  const wrongDetail: TckParseReport['wrongDetail'][number][] = [];
  const rejectedAsExpected: TckParseReport['rejectedAsExpected'][number][] = [];
  let queries = 0;
  for (const pickle of cases) {
    const file = pickle.feature;
    const figures = (folders[pickle.folder] ??= emptyFigures());
    const count = (key: keyof FolderFigures) => {
      figures[key]++;
      total[key]++;
    };
    count('scenarios');
    const steps = pickle.steps;
    const expected = steps.map((s) => SYNTAX_ERROR_STEP.exec(s.text)?.[1]).find((d) => d !== undefined);
    const owned = expected !== undefined && PARSER_OWNED.has(expected);
    const where = { file, scenario: pickle.scenario };
    const queryTexts = steps.filter((s) => QUERY_STEP.test(s.text) && s.doc !== null);
    queries += queryTexts.length;
    if (!owned) {
      count('expectParse');
      if (expected !== undefined) count('expectSemanticError');
      const failure = queryTexts.map((s) => ({ query: s.doc!, error: tryParse(s.doc!) })).find((r) => r.error !== null);
      if (failure === undefined) count('parsed');
      else wronglyRejected.push({ ...where, query: failure.query, error: failure.error! });
      continue;
    }
    count('expectSyntaxError');
    // Set-up queries must parse; the query under test must fail with the detail.
    const main = steps.find((s) => s.text.startsWith('executing query') && s.doc !== null)?.doc ?? '';
    const setupFailure = queryTexts
      .filter((s) => s.doc !== main)
      .map((s) => ({ query: s.doc!, error: tryParse(s.doc!) }))
      .find((r) => r.error !== null);
    if (setupFailure !== undefined) {
      wronglyRejected.push({ ...where, query: setupFailure.query, error: setupFailure.error! });
      continue;
    }
    const error = tryParse(main);
    if (error === null) {
      wronglyAccepted.push({ ...where, query: main, expected: expected! });
      continue;
    }
    count('rejected');
    if (error.detail === expected) {
      count('detailMatches');
      rejectedAsExpected.push({ ...where, query: main, error });
    } else wrongDetail.push({ ...where, query: main, expected: expected!, error });
  }
  return {
    tck: tckDir,
    features: files.length,
    queries,
    total,
    folders,
    wronglyRejected,
    wronglyAccepted,
    rejectedAsExpected,
    wrongDetail,
  };
}

function main(args: string[]): void {
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const report = runTckParse(option('--tck') ?? DEFAULT_TCK);
  const json = JSON.stringify(report, null, 2);
  const out = option('--json');
  if (out !== undefined) writeFileSync(out, json + '\n');
  console.log(json);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
