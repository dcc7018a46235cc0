/**
 * Cypher text to a table plan: parse (parser.ts), check (semantics.ts), lower (lower.ts).
 * Compiled statements are cached by their text: the plan does not depend on parameter
 * values, so one compile serves every call of a parameterised query.
 */
import type { TableStatement } from '../plan/table.js';
import { parseCypher } from './parser.js';
import { lowerQuery } from './lower.js';

export interface CompiledCypher {
  /** Write: the statement has an updating clause and runs on the writer. */
  readonly effect: 'read' | 'write';
  readonly statement: TableStatement;
  /** The parameters the statement reads ($name), so a missing one fails before running. */
  readonly parameters: readonly string[];
}

export function compileCypher(text: string): CompiledCypher {
  return lowerQuery(parseCypher(text));
}
