/**
 * Cypher text to a table plan: parse (parser.ts), check (semantics.ts), lower (lower.ts).
 * Every error comes out as a CypherError with openCypher's detail, the phase and the span.
 */
import { semanticError } from './scope.js';
import { CypherSyntaxError } from './errors.js';
import { parseCypher } from './parser.js';
import { analyze } from './semantics.js';
import { lowerQuery, type CompiledCypher } from './lower.js';

export type { CompiledCypher } from './lower.js';

export function compileCypher(text: string): CompiledCypher {
  let query;
  try {
    query = parseCypher(text);
  } catch (err) {
    if (err instanceof CypherSyntaxError) throw semanticError(err.detail, err.message, err.span);
    throw err;
  }
  analyze(query);
  return lowerQuery(query);
}
