/**
 * The syntax errors of the Cypher front end. They carry what the error body of
 * reference/cypher.md needs: a message, an openCypher detail code (D21: the TCK's names) and
 * the byte span of the offending text. Which codes the parser raises, and which it leaves to
 * semantic analysis, is decided here (see PARSER_DETAILS).
 */
import type { Span } from './ast.js';

/**
 * The detail codes the lexer and parser raise. Each is decidable from the text alone, without
 * knowing what a name is bound to or which clause a pattern belongs to:
 *  - UnexpectedSyntax: text outside the grammar, including a pattern used as a value outside
 *    WHERE (`RETURN (n)-->()`), `YIELD *` in a query of more than the CALL, RETURN not last;
 *  - InvalidNumberLiteral: `0x`, `12ab`, `0x1G`, `09` (a number run with letters or bad digits);
 *  - IntegerOverflow: an integer literal outside the 64-bit range (`-9223372036854775808` is in);
 *  - FloatingPointOverflow: a float literal that rounds to infinity (`1e999`);
 *  - InvalidUnicodeLiteral: `\u` or `\U` not followed by 4 or 8 hex digits;
 *  - InvalidUnicodeCharacter: a non-ASCII character where an operator belongs (`42 — 41`);
 *  - InvalidRelationshipPattern: a malformed length, `[:T..]` (no `*`) or `[*-2]`;
 *  - InvalidClauseComposition: UNION mixed with UNION ALL, an updating clause inside
 *    EXISTS { } (both in the TCK); beyond it (composition.ts), a query ending in MATCH, WITH
 *    or UNWIND, and MATCH, UNWIND or CALL after an updating clause without WITH between.
 *
 * Left to semantic analysis, though the TCK raises them at compile time too, because each
 * needs scopes, the clause a pattern sits in, or constant folding: UndefinedVariable,
 * VariableAlreadyBound, VariableTypeConflict, RelationshipUniquenessViolation,
 * NegativeIntegerArgument, NonConstantExpression, InvalidArgumentType, InvalidParameterUse,
 * NoSingleRelationshipType, RequiresDirectedRelationship, CreatingVarLength, InvalidDelete,
 * NoExpressionAlias, ColumnNameConflict, DifferentColumnsInUnion, NoVariablesInScope,
 * InvalidAggregation, NestedAggregation, AmbiguousAggregationExpression,
 * InvalidNumberOfArguments, UnknownFunction, InvalidArgumentPassingMode.
 */
export const PARSER_DETAILS = [
  'UnexpectedSyntax',
  'InvalidNumberLiteral',
  'IntegerOverflow',
  'FloatingPointOverflow',
  'InvalidUnicodeLiteral',
  'InvalidUnicodeCharacter',
  'InvalidRelationshipPattern',
  'InvalidClauseComposition',
] as const;
export type SyntaxDetail = (typeof PARSER_DETAILS)[number];

/** A query the parser rejects: `span` is in UTF-8 bytes of the query text, end exclusive. */
export class CypherSyntaxError extends Error {
  constructor(
    message: string,
    readonly detail: SyntaxDetail,
    readonly span: Span,
  ) {
    super(message);
    this.name = 'CypherSyntaxError';
  }
}
