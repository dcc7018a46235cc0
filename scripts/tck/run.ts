/**
 * Running one TCK case against the embedded database (src/database.ts): a fresh database in
 * a temporary folder per case, the case's steps in order, and a verdict: pass, fail (with
 * the first reason) or skip (a step the runner cannot carry out, with why).
 *
 * Steps understood (text after the Gherkin keyword):
 *   an empty graph | any graph (treated as empty) | the <name> graph (graphs/<name>/<name>.json
 *   names the scripts to run) | having executed: (a failure fails the case: 'setup failed')
 *   | parameters are: | executing query: | executing control query:
 *   | the result should be[, in order | , in any order][ (ignoring element order for lists)]:
 *   | the result should be empty | no side effects | the side effects should be:
 *   | a <Type> should be raised at <compile time|runtime|any time>: <Detail> (`*`: any detail)
 * Anything else (`there exists a procedure`, an unknown step or error type) skips the case.
 */
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../src/database.js';
import { CypherError, GraphError, type ErrorCode } from '../../src/core/errors.js';
import { parseJson } from '../../src/core/json.js';
import type { TckCase, TckStep } from './load.js';
import { diff, expectedSideEffects, sideEffectDifferences, snapshot, type GraphState, type SideEffects } from './side-effects.js';
import { TckValueSyntaxError, compareRows, fromResponse, parseTckValue, tckText, toJsonText } from './values.js';

export type Status = 'pass' | 'fail' | 'skip';

export interface Verdict {
  readonly status: Status;
  /** Why it failed or was skipped; '' for a pass. */
  readonly reason: string;
}

/** The TCK's error types and our error codes (src/core/errors.ts). ProcedureError has none: procedures are out of scope. */
export const ERROR_CODES: Readonly<Record<string, ErrorCode>> = {
  SyntaxError: 'syntax_error',
  TypeError: 'type_error',
  ArgumentError: 'argument_error',
  ArithmeticError: 'arithmetic_error',
  EntityNotFound: 'entity_not_found',
  ConstraintVerificationFailed: 'constraint_verification_failed',
  SemanticError: 'semantic_error',
  ParameterMissing: 'parameter_missing',
};

const PHASES: Readonly<Record<string, 'compile' | 'runtime' | null>> = { 'compile time': 'compile', runtime: 'runtime', 'any time': null };

const RESULT_STEP = /^the result should be(, in order|, in any order)?( \(ignoring element order for lists\))?:$/;
/** The detail `*` (some `at any time` cases) accepts any detail. */
const ERROR_STEP = /^an? (\w+) should be raised at (compile time|runtime|any time): (\w+|\*)$/;

type Outcome =
  | { readonly kind: 'rows'; readonly columns: readonly string[]; readonly rows: readonly (readonly unknown[])[] }
  | { readonly kind: 'error'; readonly error: unknown };

/** A stop in the middle of a case: the verdict is decided. */
class Stop extends Error {
  constructor(readonly verdict: Verdict) {
    super(verdict.reason);
  }
}
const fail = (reason: string): never => {
  throw new Stop({ status: 'fail', reason });
};
const skip = (reason: string): never => {
  throw new Stop({ status: 'skip', reason });
};

/** One line for an error: code, detail and phase when it has them, and the message. */
export function describeError(err: unknown): string {
  if (err instanceof CypherError) return `${err.code} (${err.details.detail}, ${err.details.phase}): ${err.msg}`;
  if (err instanceof GraphError) return `${err.code}: ${err.msg}`;
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

const clip = (s: string, n = 300) => (s.length > n ? s.slice(0, n) + '...' : s);

export interface RunOptions {
  /** The TCK folder (holding graphs/). */
  readonly tck: string;
  /** A database for the case (opened fresh, or emptied); closed by the caller's `release`. */
  readonly acquire: () => Promise<Database>;
  readonly release: (db: Database) => Promise<void>;
}

const graphScripts = new Map<string, string[]>();

/** The scripts of a named graph: graphs/<name>/<name>.json lists them as graphs/<name>/<script>.cypher. */
function namedGraph(tck: string, name: string): string[] {
  let scripts = graphScripts.get(name);
  if (scripts === undefined) {
    const dir = join(tck, 'graphs', name);
    let names: string[];
    try {
      names = (JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { scripts: string[] }).scripts;
    } catch {
      names = [name];
    }
    scripts = names.map((s) => readFileSync(join(dir, `${s}.cypher`), 'utf8'));
    graphScripts.set(name, scripts);
  }
  return scripts;
}

/** Runs one case; never throws. */
export async function runCase(c: TckCase, options: RunOptions): Promise<Verdict> {
  let db: Database | null = null;
  try {
    db = await options.acquire();
    await runSteps(db, c.steps, options.tck);
    return { status: 'pass', reason: '' };
  } catch (err) {
    if (err instanceof Stop) return err.verdict;
    return { status: 'fail', reason: `runner error: ${describeError(err)}` };
  } finally {
    if (db !== null) await options.release(db);
  }
}

async function runSteps(db: Database, steps: readonly TckStep[], tck: string): Promise<void> {
  let parameters = '{}';
  let outcome: Outcome | null = null;
  let before: GraphState | null = null;
  let effects: SideEffects | null = null;
  /** An error of the query under test that no step has expected yet. */
  let pendingError: unknown = null;
  const state = () => db.store.read(snapshot);
  const run = async (query: string): Promise<Outcome> => {
    try {
      const text = await db.cypherText(`{"query":${JSON.stringify(query)},"parameters":${parameters}}`);
      const body = parseJson(text) as { columns: string[]; rows: unknown[][] };
      return { kind: 'rows', columns: body.columns, rows: body.rows };
    } catch (error) {
      return { kind: 'error', error };
    }
  };
  const needRows = (what: string): Extract<Outcome, { kind: 'rows' }> => {
    if (outcome === null) return skip(`${what} before any query`);
    if (outcome.kind === 'error') return fail(`query failed: ${clip(describeError(outcome.error))}`);
    return outcome;
  };

  for (const step of steps) {
    const text = step.text;
    if (pendingError !== null && !ERROR_STEP.test(text)) fail(`query failed: ${clip(describeError(pendingError))}`);
    let m: RegExpExecArray | null;
    if (text === 'an empty graph' || text === 'any graph') continue;
    if ((m = /^the (\S+) graph$/.exec(text)) !== null) {
      let scripts: string[];
      try {
        scripts = namedGraph(tck, m[1]!);
      } catch {
        return skip(`no named graph ${m[1]}`);
      }
      for (const script of scripts) {
        const r = await run(script);
        if (r.kind === 'error') fail(`setup failed: graph ${m[1]}: ${clip(describeError(r.error))}`);
      }
      continue;
    }
    if (text === 'having executed:' || text === 'having executed') {
      const r = await run(step.doc ?? '');
      if (r.kind === 'error') fail(`setup failed: ${clip(describeError(r.error))}`);
      continue;
    }
    if (text === 'parameters are:') {
      const entries: string[] = [];
      for (const row of step.table ?? []) {
        if (row.length !== 2) return skip(`parameter row of ${row.length} cells`);
        try {
          entries.push(`${JSON.stringify(row[0])}:${toJsonText(parseTckValue(row[1]!))}`);
        } catch (err) {
          return skip(`parameter ${row[0]}: ${(err as Error).message}`);
        }
      }
      parameters = `{${entries.join(',')}}`;
      continue;
    }
    if (text === 'executing query:' || text === 'executing control query:') {
      const control = text.startsWith('executing control');
      if (!control) before = state();
      outcome = await run(step.doc ?? '');
      if (!control) {
        effects = diff(before!, state());
        if (outcome.kind === 'error') pendingError = outcome.error;
      }
      continue;
    }
    if (text === 'the result should be empty') {
      const r = needRows('a result check');
      if (r.rows.length > 0) fail(`expected no rows, got ${r.rows.length}: ${clip(rowTexts(r.rows, false).slice(0, 3).join(' ; '))}`);
      continue;
    }
    if ((m = RESULT_STEP.exec(text)) !== null) {
      const r = needRows('a result check');
      const ordered = m[1] === ', in order';
      const unorderedLists = m[2] !== undefined;
      const table = step.table ?? [];
      const header = table[0] ?? [];
      if (header.length !== r.columns.length || header.some((h, i) => h !== r.columns[i]))
        fail(`columns differ: expected ${JSON.stringify(header)}, got ${JSON.stringify(r.columns)}`);
      let expected: string[];
      try {
        expected = table.slice(1).map((row) => row.map((cell) => tckText(parseTckValue(cell), unorderedLists)).join(' | '));
      } catch (err) {
        if (err instanceof TckValueSyntaxError) return skip(`expected value: ${err.message}`);
        throw err;
      }
      const verdict = compareRows(expected, rowTexts(r.rows, unorderedLists), ordered);
      if (!verdict.ok) fail(clip(verdict.reason, 600));
      continue;
    }
    if (text === 'no side effects' || text === 'the side effects should be:') {
      if (effects === null) return skip('side effects before any query');
      const expected = text === 'no side effects' ? expectedSideEffects([]) : expectedSideEffects(step.table ?? []);
      if (typeof expected === 'string') return skip(expected);
      const differences = sideEffectDifferences(expected, effects);
      if (differences !== '') fail(`side effects differ: ${differences}`);
      continue;
    }
    if ((m = ERROR_STEP.exec(text)) !== null) {
      const [, type, phaseText, detail] = m;
      const code = ERROR_CODES[type!];
      if (code === undefined) return skip(`error type ${type} is out of scope`);
      if (outcome === null) return skip('an error check before any query');
      if (outcome.kind === 'rows') fail(`expected ${type} (${detail}) at ${phaseText}, but the query succeeded`);
      pendingError = null;
      const err = (outcome as Extract<Outcome, { kind: 'error' }>).error;
      const expected = `${code} (${detail}, ${phaseText})`;
      if (!(err instanceof GraphError)) fail(`expected ${expected}, got a non-GraphError ${clip(describeError(err))}`);
      const got = err as GraphError;
      if (got.code !== code) fail(`expected ${expected}, got ${clip(describeError(got))}`);
      const details = got instanceof CypherError ? got.details : undefined;
      if (details === undefined) fail(`expected ${expected}, got ${clip(describeError(got))} without details`);
      if (detail !== '*' && details!.detail !== detail) fail(`expected ${expected}, got detail ${details!.detail}: ${clip(got.msg)}`);
      const phase = PHASES[phaseText!];
      if (phase !== null && details!.phase !== phase) fail(`expected ${expected}, got phase ${details!.phase}`);
      continue;
    }
    if (text.startsWith('there exists a procedure')) return skip('procedures cannot be declared (out of scope)');
    return skip(`unknown step: ${clip(text, 100)}`);
  }
  if (pendingError !== null) fail(`query failed: ${clip(describeError(pendingError))}`);
}

/** Response rows as canonical row texts. */
function rowTexts(rows: readonly (readonly unknown[])[], unorderedLists: boolean): string[] {
  return rows.map((row) => row.map((cell) => tckText(fromResponse(cell), unorderedLists)).join(' | '));
}

// ---- databases ----

/** Where database folders go by default: /dev/shm (tmpfs, so no disk syncs) when writable, else the OS temporary folder. */
export function defaultTmp(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/** A fresh database in a new folder under `root` per case, removed afterwards. */
export function freshDatabases(root: string = defaultTmp()): Pick<RunOptions, 'acquire' | 'release'> {
  const dirs = new WeakMap<Database, string>();
  return {
    acquire: async () => {
      const dir = mkdtempSync(join(root, 'trellis-tck-'));
      const db = await Database.open(dir);
      dirs.set(db, dir);
      return db;
    },
    release: async (db) => {
      await db.close();
      const dir = dirs.get(db);
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One database for every case, emptied between cases (every relationship, then every node,
 * deleted through the store): faster than a fresh folder per case, but element ids keep
 * growing and the store's label dictionary keeps old names.
 */
export async function reusedDatabase(
  root: string = defaultTmp(),
): Promise<Pick<RunOptions, 'acquire' | 'release'> & { close(): Promise<void> }> {
  const dir = mkdtempSync(join(root, 'trellis-tck-'));
  const db = await Database.open(dir);
  return {
    acquire: async () => db,
    release: async () => {
      await db.store.write((w) => {
        for (const id of [...w.edgeIds()]) w.deleteEdge(id);
        for (const id of [...w.nodeIds()]) w.deleteNode(id);
      });
    },
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
