/**
 * Where a named query's runtime error comes from, in the query's own terms. An error of
 * the plan names its /v2/query path (`query.read.entries[2].query.root.range.end.expr: ...`),
 * which a caller of `POST /<Query>` never wrote; the compiler records, per batch entry, the
 * statement it was lowered from, and the message is told as that statement's place instead:
 * `query page, statement "users" (queries.hx:12:5), at range.end.expr: ...`.
 */
import type { Statement } from './ast.js';
import type { SourcePos } from './lexer.js';
import { CATALOG } from '../plan/catalog.js';

/** The statement a batch entry was lowered from: its position and how to name it. */
export interface StatementSource {
  readonly line: number;
  readonly column: number;
  /** `statement "users"`, `the FOR loop`, `RETURN`, ... */
  readonly what: string;
}

/** What a message needs of a compiled query to say where its error comes from. */
export interface SourcedQuery {
  readonly name: string;
  /** The `.hx` file of the query, relative to the project; null when compiled alone. */
  readonly file: string | null;
  /** Per batch entry (by index, as compiled), the statement it comes from. */
  readonly statements: readonly StatementSource[];
}

export function statementSource(s: Statement): StatementSource {
  return at(s.pos, describe(s));
}

export function returnSource(pos: SourcePos): StatementSource {
  return at(pos, 'RETURN');
}

const at = (pos: SourcePos, what: string): StatementSource => ({ line: pos.line, column: pos.column, what });

function describe(s: Statement): string {
  switch (s.kind) {
    case 'assign':
      return `statement "${s.name.text}"`;
    case 'drop':
      return 'the DROP statement';
    case 'for':
      return `the FOR loop over "${s.source.text}"`;
    case 'expr':
      return 'the statement';
  }
}

const ENTRY_PATH = /^query\.(?:read|write)\.entries\[(\d+)\]([^\s:]*): /;
const OPERATIONS = new Set(Object.keys(CATALOG));

/**
 * A batch error's message split at the entry it names (`query.write.entries[2].query.root...:
 * problem`): the entry's index, the path below it, and the problem. Null when it names none.
 */
export function failedEntry(msg: string): { entry: number; path: string; problem: string } | null {
  const m = ENTRY_PATH.exec(msg);
  return m === null ? null : { entry: Number(m[1]), path: m[2]!, problem: msg.slice(m[0].length) };
}

/**
 * `msg` told from the query's statement instead of the batch path, keeping the path from
 * its last operation on (`range.end.expr`: which part of the statement). Other messages
 * (parameters, limits) already speak the caller's terms and are returned as they are.
 */
export function sourcedMessage(query: SourcedQuery, msg: string): string {
  const failed = failedEntry(msg);
  const source = failed === null ? undefined : query.statements[failed.entry];
  if (failed === null || source === undefined) return msg;
  const file = query.file === null ? 'line ' : `${query.file}:`;
  const part = lastOperation(failed.path);
  return `query ${query.name}, ${source.what} (${file}${source.line}:${source.column})${part === '' ? '' : `, at ${part}`}: ${failed.problem}`;
}

/** The path from its last operation name on: `.query.root.project.input.range.end.expr` -> `range.end.expr`. */
function lastOperation(path: string): string {
  const parts = path.split('.');
  for (let i = parts.length - 1; i >= 0; i--) if (OPERATIONS.has(parts[i]!.replace(/\[\d+\]$/, ''))) return parts.slice(i).join('.');
  return '';
}
