/** Lowering of a checked syntax tree to a table plan (plan/table.ts). */
import type { Query } from './ast.js';
import type { CompiledCypher } from './compile.js';
import { GraphError } from '../core/errors.js';

export function lowerQuery(_query: Query): CompiledCypher {
  throw new GraphError('internal_error', 'Cypher lowering is not implemented yet');
}
