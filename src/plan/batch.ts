/** A decoded request: the batch, its parameters and the request type. */
import type { Value } from '../core/value.js';
import type { PlanNode } from './ops.js';
import type { HqlFormat } from './hql-format.js';
import type { ImportFormat } from './import-format.js';

export type { ImportFormat } from './import-format.js';

export type RequestType = 'read' | 'write';

export type Condition =
  | { readonly kind: 'prev_not_empty' }
  | { readonly kind: 'var_not_empty' | 'var_empty'; readonly name: string }
  | { readonly kind: 'var_min_size'; readonly name: string; readonly size: number };

export type Entry =
  | {
      readonly kind: 'query';
      readonly name: string | null;
      readonly root: PlanNode;
      readonly condition: Condition | null;
      readonly path: string;
    }
  | { readonly kind: 'for_each'; readonly param: string; readonly body: readonly Entry[]; readonly path: string };

export interface Batch {
  readonly entries: readonly Entry[];
  readonly returns: readonly string[];
  /**
   * 'cypher': the batch is one Cypher statement (a `table` operation) and the response is
   * its `{columns, rows}` (reference/cypher.md), not an object of returned variables.
   * An HqlFormat: the batch is a named query of the query language, answered in its shape.
   * An ImportFormat: the batch is a /v2/import batch, answered with its first id.
   */
  readonly format?: 'cypher' | HqlFormat | ImportFormat;
}

export interface QueryPlan {
  readonly type: RequestType;
  readonly queryName: string | null;
  readonly batch: Batch;
  /** Runtime parameters, already converted to Values (typed date_time -> DateTime, ...). */
  readonly params: ReadonlyMap<string, Value>;
}
