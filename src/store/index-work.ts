/**
 * The writer's background index work: what does not fit in a client's write batch. The
 * store runs one step at a time, each in a write transaction of its own between client
 * batches (open.ts), until nothing is left:
 *
 * - builds: scan the existing elements of the index's label from the operation's cursor
 *   and index them; the cursor and progress are saved with the entries, so a restart
 *   resumes where the last committed step stopped. A row the index cannot take (a unique
 *   violation, a text document over the limits, a bad vector) blocks the operation, naming
 *   the row; `retry_index_operation` resumes it at that row.
 * - drops and aborted builds: delete the index's entries, then its definition.
 * - queued family work (the vector index's links), drained by the family itself.
 *
 * Every step stops at its deadline, so client writes wait for at most one step.
 */
import { GraphError, messageOf } from '../core/errors.js';
import { elementOf, familyOf, type IndexElement } from '../core/index-spec.js';
import type { ValueObject } from '../core/value.js';
import type { Catalog, IndexDef, IndexOperation } from './index-catalog.js';
import type { EdgeRecord, NodeRecord } from './types.js';

/**
 * What background work needs of a write transaction (graph.ts GraphWriteView is one): the
 * catalogue and its operations, the elements of a label, and the index maintainer's bulk
 * entry point. An interface, so this module does not depend on the graph's views.
 */
export interface IndexWorkView {
  indexCatalog(): Catalog;
  operationRecord(id: string): IndexOperation | undefined;
  saveOperation(op: IndexOperation): void;
  activateIndex(def: IndexDef): void;
  removeIndexDef(id: number): void;
  /** Deletes up to `limit` entries of a secondary index; answers how many it deleted. */
  deleteSecondaryEntries(indexId: number, limit: number): number;
  nodeIdsByLabel(label: string, from: number): Iterable<number>;
  edgeIdsByLabel(label: string, from: number): Iterable<number>;
  getNode(id: number): NodeRecord | undefined;
  getEdge(id: number): EdgeRecord | undefined;
  readonly indexes: { build(def: IndexDef, element: IndexElement, id: number, props: ValueObject): void };
}

/** What a family (text, vector) adds to the background work. */
export interface FamilyWork {
  /** Deletes some of a dropped index's entries; true when none are left. */
  deleteSome(def: IndexDef, deadline: number): boolean;
  /** Does some queued work; true when more is queued. */
  drain?(w: IndexWorkView, deadline: number): boolean;
  /** Whether any work is queued (read in the step's own transaction). */
  hasQueued?(): boolean;
}

export interface IndexWorkTargets {
  readonly text: FamilyWork | null;
  readonly vector: FamilyWork | null;
}

/** Elements indexed between two checks of the clock. */
const CLOCK_EVERY = 64;

const BLOCKERS: Partial<Record<string, string>> = {
  unique_constraint_violation: 'uniqueness_violation',
  active_text_mutation_limit_exceeded: 'oversized_entity',
  index_operation_batch_too_large: 'oversized_entity',
  invalid_vector_dimension: 'invalid_source_data',
  invalid_vector_component: 'invalid_source_data',
  vector_component_magnitude_exceeded: 'invalid_source_data',
  zero_norm_cosine_vector: 'invalid_source_data',
};

/** One step of background work in the write transaction of `w`; true when work remains. */
export function indexWorkStep(w: IndexWorkView, targets: IndexWorkTargets, budgetMs: number): boolean {
  const deadline = performance.now() + budgetMs;
  const catalog = w.indexCatalog();
  let more = false;
  for (const def of catalog.defs) {
    if (performance.now() >= deadline) return true;
    if (def.state === 'dropping') more = dropSome(w, targets, def, deadline) || more;
    else if (def.state === 'building') more = buildSome(w, def, deadline) || more;
  }
  for (const family of [targets.vector, targets.text]) {
    if (family?.drain === undefined) continue;
    // A step out of time still reports queued work: a build that finished in this step has
    // just queued its links, and no later write may come to schedule the next step.
    more = (performance.now() < deadline ? family.drain(w, deadline) : (family.hasQueued?.() ?? true)) || more;
  }
  return more;
}

function dropSome(w: IndexWorkView, targets: IndexWorkTargets, def: IndexDef, deadline: number): boolean {
  const op = w.operationRecord(def.operation);
  let done: boolean;
  switch (familyOf(def.spec.kind)) {
    case 'secondary':
      done = w.deleteSecondaryEntries(def.id, 4096) < 4096;
      break;
    case 'text':
      done = targets.text === null || targets.text.deleteSome(def, deadline);
      break;
    case 'vector':
      done = targets.vector === null || targets.vector.deleteSome(def, deadline);
      break;
  }
  if (!done) {
    if (op !== undefined && op.kind === 'drop' && op.status === 'queued') w.saveOperation({ ...op, status: 'running' });
    return true;
  }
  w.removeIndexDef(def.id);
  if (op !== undefined && op.kind === 'drop') w.saveOperation({ ...op, status: 'succeeded', stage: 'finalize' });
  else if (op !== undefined) w.saveOperation({ ...op, stage: 'finalize' });
  return false;
}

function buildSome(w: IndexWorkView, def: IndexDef, deadline: number): boolean {
  const found = w.operationRecord(def.operation);
  if (found === undefined || found.status === 'blocked' || found.status === 'aborted' || found.status === 'succeeded') return false;
  const op: IndexOperation = { ...found, status: 'running', progress: { ...found.progress } };
  const element = elementOf(def.spec.kind);
  // From the cursor on: a step must not re-read what earlier steps passed (a build would
  // cost the square of its label's size).
  const ids = idsOfLabel(w, def, op.cursor);
  let n = 0;
  for (const id of ids) {
    if (++n % CLOCK_EVERY === 0 && performance.now() >= deadline) {
      w.saveOperation(op);
      return true;
    }
    const props = propsOf(w, element, id);
    if (props === undefined) continue;
    try {
      w.indexes.build(def, element, id, props);
    } catch (err) {
      if (!(err instanceof GraphError)) throw err;
      const code = BLOCKERS[err.code] ?? 'invariant_violation';
      w.saveOperation({ ...op, status: 'blocked', blocker: { code, message: `${element} ${id}: ${messageOf(err)}` } });
      return false;
    }
    op.cursor = id + 1;
    op.progress.entities++;
    const value = props[def.spec.property];
    op.progress.input_bytes += typeof value === 'string' ? Buffer.byteLength(value) : value === undefined ? 0 : 8;
    op.progress.output_operations++;
  }
  w.saveOperation({ ...op, status: 'succeeded', stage: 'finalize' });
  w.activateIndex(def);
  return false;
}

/** The ids of an index's elements (its label's nodes or edges), from `from` on, ascending. */
export function idsOfLabel(w: IndexWorkView, def: IndexDef, from: number): Iterable<number> {
  return elementOf(def.spec.kind) === 'node' ? w.nodeIdsByLabel(def.spec.label, from) : w.edgeIdsByLabel(def.spec.label, from);
}

export function propsOf(w: IndexWorkView, element: IndexElement, id: number): ValueObject | undefined {
  return (element === 'node' ? w.getNode(id) : w.getEdge(id))?.props;
}
