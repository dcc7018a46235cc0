/**
 * Cypher text to a table plan: parse (parser.ts), check (semantics.ts), lower (lower.ts).
 * Compiled statements are cached by their text: the plan does not depend on parameter
 * values, so one compile serves every call of a parameterised query.
 */
import { parseCypher } from './parser.js';
import { lowerQuery, type CompiledCypher } from './lower.js';

export type { CompiledCypher } from './lower.js';

export function compileCypher(text: string): CompiledCypher {
  return lowerQuery(parseCypher(text));
}
