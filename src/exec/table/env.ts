/**
 * What the table operators, functions and the cell encoder share: access to the elements of
 * the running transaction, and the one way to raise a runtime Cypher error. A node or
 * relationship the statement deleted is still a value (it can be returned by DELETE ...
 * RETURN only as far as its id), but reading its labels or properties is an
 * `entity_not_found` error (TCK: DeletedEntityAccess).
 */
import { CypherError, type ErrorCode } from '../../core/errors.js';
import type { EdgeRecord, NodeRecord } from '../../store/index.js';
import type { Where } from '../../plan/table.js';

export interface ElementAccess {
  /** The node's record; entity_not_found (DeletedEntityAccess) when it no longer exists. */
  node(id: number, at: Where): NodeRecord;
  /** The relationship's record; entity_not_found (DeletedEntityAccess) when it no longer exists. */
  rel(id: number, at: Where): EdgeRecord;
  /** A relationship's type, also after this statement deleted it (`type(r)` stays valid: TCK Return2 [14]). */
  relType(id: number, at: Where): string;
  /** Called before a relationship is deleted, so its type stays known. */
  deleting(rel: EdgeRecord): void;
}

/** A runtime Cypher error: registry code, openCypher detail code, message and span. */
export function runtimeError(code: ErrorCode, detail: string, msg: string, at: Where): CypherError {
  return new CypherError(code, msg, { detail, phase: 'runtime', span: at });
}

/** The labels of a stored node: '' is a node without a label (D22). */
export function labelsOf(rec: NodeRecord): string[] {
  return rec.label === '' ? [] : [rec.label];
}
