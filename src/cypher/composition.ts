/**
 * The clause-order rules of openCypher 9 that need only the list of clauses, checked as each
 * single query is parsed:
 *  - RETURN is last; a query ends with RETURN, an updating clause or CALL (not MATCH, WITH
 *    or UNWIND: their rows would go nowhere);
 *  - a reading clause (MATCH, UNWIND, CALL) after an updating clause needs a WITH between
 *    them, so that the reads see the writes as a whole;
 *  - `YIELD *` only when the query is that one CALL (the TCK: UnexpectedSyntax otherwise);
 *  - inside EXISTS { }: no updating clause (InvalidClauseComposition), any last clause;
 *  - inside CALL { }: any last clause.
 * What needs scopes (RETURN * with nothing in scope, columns of a UNION) is semantic analysis's.
 */
import type { Clause } from './ast.js';
import { CypherSyntaxError } from './errors.js';

/** 'top': the statement (or a part of its UNION); 'exists', 'subquery': the body of EXISTS { }, CALL { }. */
export type QueryContext = 'top' | 'exists' | 'subquery';

/** The updating clauses: the only ones FOREACH may hold. */
export const UPDATING: ReadonlySet<Clause['kind']> = new Set<Clause['kind']>(['create', 'merge', 'set', 'remove', 'delete', 'foreach']);
const READING = new Set<Clause['kind']>(['match', 'unwind', 'call']);

const shown = (clause: Clause): string =>
  clause.kind === 'match' && clause.optional
    ? 'OPTIONAL MATCH'
    : clause.kind === 'delete' && clause.detach
      ? 'DETACH DELETE'
      : clause.kind.toUpperCase();

/** Throws CypherSyntaxError when `clauses` (one single query, not empty) break a rule above. */
export function checkComposition(clauses: readonly Clause[], context: QueryContext): void {
  let updated: Clause | null = null;
  clauses.forEach((clause, i) => {
    const last = i === clauses.length - 1;
    if (clause.kind === 'return' && !last) {
      throw new CypherSyntaxError(
        'RETURN must be the last clause of a query (use WITH to go on)',
        'UnexpectedSyntax',
        clauses[i + 1]!.span,
      );
    }
    if (clause.kind === 'call' && clause.yield?.star === true && clauses.length > 1) {
      throw new CypherSyntaxError(
        'YIELD * is allowed only when the query is the CALL alone: name the fields to yield',
        'UnexpectedSyntax',
        clause.span,
      );
    }
    if (UPDATING.has(clause.kind)) {
      if (context === 'exists') {
        throw new CypherSyntaxError(
          `${shown(clause)} cannot be used inside EXISTS { }: a subquery there only reads`,
          'InvalidClauseComposition',
          clause.span,
        );
      }
      updated = clause;
    } else if (clause.kind === 'with') updated = null;
    else if (READING.has(clause.kind) && updated !== null) {
      throw new CypherSyntaxError(
        `WITH is required between ${shown(updated)} and ${shown(clause)}`,
        'InvalidClauseComposition',
        clause.span,
      );
    }
    if (last && context === 'top' && (clause.kind === 'match' || clause.kind === 'with' || clause.kind === 'unwind')) {
      throw new CypherSyntaxError(
        `a query cannot end with ${shown(clause)}: end it with RETURN or an updating clause`,
        'InvalidClauseComposition',
        clause.span,
      );
    }
  });
}
