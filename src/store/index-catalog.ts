/**
 * The index catalogue: which indexes exist, in which state, and their DDL operations
 * (reference v2-wire §5.10). It lives in the `indexes` sub-database, in the same
 * transactions as the data, so a crash or a rolled-back batch never leaves the catalogue
 * and the entries disagreeing.
 *
 * - `def:<id>`: an index (IndexDef).
 * - `op:<uuid>`: an operation (IndexOperation), kept after it finishes so it can be polled.
 * - `tenant:<graph id of the index>:<tenant key>`: the graph id of a vector tenant partition.
 * - `version`: bumped by every catalogue change, so threads can keep the decoded catalogue.
 * - `next_id`, `next_generation`: counters.
 *
 * Lifecycle: create_index makes the index `building` with a `build` operation; the
 * writer's background work (index-work.ts) scans the existing elements and makes it
 * `active`. drop_index (and abort) make it `dropping` at once: no query uses it and no
 * write maintains it from then on, and the background work deletes its entries and then
 * the definition.
 */
import { randomUUID } from 'node:crypto';
import { GraphError } from '../core/errors.js';
import {
  canonical,
  describeIndex,
  elementOf,
  familyOf,
  identityOf,
  sameDefinition,
  type IndexFamily,
  type IndexSpec,
} from '../core/index-spec.js';
import type { CatalogDb } from './layout.js';

export type IndexState = 'building' | 'active' | 'dropping';

export interface IndexDef {
  readonly id: number;
  readonly spec: IndexSpec;
  readonly generation: number;
  readonly state: IndexState;
  /** The operation that made the current state (a build, a drop, or an aborted build). */
  readonly operation: string;
}

export type OperationStatus = 'queued' | 'running' | 'blocked' | 'succeeded' | 'aborted';

export interface OperationProgress {
  entities: number;
  input_bytes: number;
  output_operations: number;
  output_bytes: number;
}

export interface IndexOperation {
  readonly id: string;
  readonly indexId: number;
  readonly generation: number;
  readonly kind: 'build' | 'drop';
  readonly spec: IndexSpec;
  status: OperationStatus;
  stage: string;
  attempt: number;
  progress: OperationProgress;
  /** A build's scan position: every element with a smaller id is indexed. */
  cursor: number;
  blocker: { code: string; message: string } | null;
}

export type IndexReceipt =
  | { kind: 'accepted'; operation_id: string; index_id: string; generation: string }
  | { kind: 'existing_operation'; operation_id: string }
  | { kind: 'already_active'; index_id: string; generation: string };

/** The decoded catalogue of one version: what queries and writes consult. */
export class Catalog {
  readonly byIdentity = new Map<string, IndexDef>();
  /** Indexes that writes maintain (building or active), by `node:<label>` / `edge:<label>`. */
  private readonly live = new Map<string, IndexDef[]>();

  constructor(
    readonly version: number,
    readonly defs: readonly IndexDef[],
  ) {
    for (const def of defs) {
      this.byIdentity.set(identityOf(def.spec), def);
      if (def.state === 'dropping') continue;
      const key = `${elementOf(def.spec.kind)}:${def.spec.label}`;
      const list = this.live.get(key);
      if (list === undefined) this.live.set(key, [def]);
      else list.push(def);
    }
  }

  /** Indexes of a label that writes keep current (building or active). */
  liveOn(element: 'node' | 'edge', label: string): readonly IndexDef[] {
    return this.live.get(`${element}:${label}`) ?? NONE;
  }

  /** The active index of this kind, label and property, or undefined. */
  active(kind: IndexSpec['kind'], label: string, property: string): IndexDef | undefined {
    const def = this.byIdentity.get(identityOf({ kind, label, property }));
    return def?.state === 'active' ? def : undefined;
  }

  get empty(): boolean {
    return this.defs.length === 0;
  }
}

const NONE: readonly IndexDef[] = [];
const EMPTY = new Catalog(0, []);

/** Reads the catalogue through `db` in the current transaction, keeping the last decoded one. */
export class CatalogReader {
  private cached: Catalog = EMPTY;

  constructor(private readonly db: CatalogDb) {}

  current(): Catalog {
    const version = (this.db.get('version') as number | undefined) ?? 0;
    if (version === this.cached.version) return this.cached;
    const defs: IndexDef[] = [];
    // Canonical specs: a definition stored before a field existed reads with its default.
    for (const { value } of this.db.getRange({ start: 'def:', end: 'def;' })) {
      const def = value as IndexDef;
      defs.push({ ...def, spec: canonical(def.spec) });
    }
    this.cached = new Catalog(version, defs);
    return this.cached;
  }

  operation(id: string): IndexOperation | undefined {
    return this.db.get(`op:${id}`) as IndexOperation | undefined;
  }
}

const decimal = (n: number) => String(n);

function nextCount(db: CatalogDb, counter: 'next_id' | 'next_generation'): number {
  const n = (db.get(counter) as number | undefined) ?? 1;
  db.putSync(counter, n + 1);
  return n;
}

/** A fresh id from the index id space, which vector tenant partitions share (vector-index.ts). */
export function allocateGraphId(db: CatalogDb): number {
  return nextCount(db, 'next_id');
}

/** The status object of get/retry/abort_index_operation (reference §5.10). */
export function operationStatus(op: IndexOperation): Record<string, unknown> {
  const status: Record<string, unknown> = {
    status: op.status,
    operation_id: op.id,
    index_id: decimal(op.indexId),
    generation: decimal(op.generation),
    operation_kind: op.kind,
    family: familyOf(op.spec.kind),
    stage: op.stage,
    // Integers print as integers only as bigints (floats print with a fraction).
    attempt: BigInt(op.attempt),
    progress: {
      entities: decimal(op.progress.entities),
      input_bytes: decimal(op.progress.input_bytes),
      output_operations: decimal(op.progress.output_operations),
      output_bytes: decimal(op.progress.output_bytes),
    },
  };
  if (op.blocker !== null) {
    status['blocker_code'] = op.blocker.code;
    status['message'] = op.blocker.message;
  }
  return status;
}

/** Catalogue changes, inside a write transaction. */
export class CatalogWriter {
  constructor(
    private readonly db: CatalogDb,
    private readonly reader: CatalogReader,
  ) {}

  /**
   * A new catalogue version. Random, not counted: a thread keeps the catalogue it decoded by
   * version, and a batch that changed the catalogue and then rolled back must not leave a
   * version number that a later, different catalogue could take.
   */
  private bump(): void {
    this.db.putSync('version', Math.floor(Math.random() * 2 ** 52) + 1);
  }

  private next(counter: 'next_id' | 'next_generation'): number {
    return nextCount(this.db, counter);
  }

  putDef(def: IndexDef): void {
    this.db.putSync(`def:${def.id}`, def);
    this.bump();
  }

  removeDef(id: number): void {
    this.db.removeSync(`def:${id}`);
    this.bump();
  }

  putOperation(op: IndexOperation): void {
    this.db.putSync(`op:${op.id}`, op);
  }

  private newOperation(kind: 'build' | 'drop', def: { id: number; generation: number; spec: IndexSpec }): IndexOperation {
    return {
      id: randomUUID(),
      indexId: def.id,
      generation: def.generation,
      kind,
      spec: def.spec,
      status: 'queued',
      stage: kind === 'build' ? (familyOf(def.spec.kind) === 'secondary' ? 'scan' : 'scan_partitions') : 'delete_entries',
      attempt: 0,
      progress: { entities: 0, input_bytes: 0, output_operations: 0, output_bytes: 0 },
      cursor: 0,
      blocker: null,
    };
  }

  /**
   * `anyBuildParameters`: an existing vector index that differs only in its build
   * parameters (`m`, `ef_construction`) counts as the same definition (the query
   * language's own indexes: the index keeps the parameters it was built with).
   */
  create(spec: IndexSpec, ifNotExists: boolean, anyBuildParameters = false): IndexReceipt {
    const existing = this.reader.current().byIdentity.get(identityOf(spec));
    if (existing !== undefined) {
      if (existing.state === 'dropping') {
        throw new GraphError(
          'index_busy',
          `${describeIndex(spec)} is being dropped (operation ${existing.operation}); create it again once that has finished`,
        );
      }
      if (!sameDefinition(existing.spec, spec, !anyBuildParameters)) {
        throw new GraphError(
          'index_definition_conflict',
          `${describeIndex(spec)} exists with another definition: ${JSON.stringify(existing.spec)}`,
        );
      }
      if (!ifNotExists) throw new GraphError('index_already_exists', `${describeIndex(spec)} already exists (index ${existing.id})`);
      if (existing.state === 'active') {
        return { kind: 'already_active', index_id: decimal(existing.id), generation: decimal(existing.generation) };
      }
      return { kind: 'existing_operation', operation_id: existing.operation };
    }
    const id = this.next('next_id');
    const generation = this.next('next_generation');
    const stored = canonical(spec);
    const op = this.newOperation('build', { id, generation, spec: stored });
    this.putOperation(op);
    this.putDef({ id, spec: stored, generation, state: 'building', operation: op.id });
    return { kind: 'accepted', operation_id: op.id, index_id: decimal(id), generation: decimal(generation) };
  }

  drop(spec: IndexSpec): IndexReceipt {
    const existing = this.reader.current().byIdentity.get(identityOf(spec));
    if (existing === undefined) throw new GraphError('index_not_found', `drop_index: there is no ${describeIndex(spec)}`);
    if (!sameDefinition(existing.spec, spec)) {
      throw new GraphError(
        'index_definition_conflict',
        `drop_index: ${describeIndex(spec)} has another definition: ${JSON.stringify(existing.spec)}`,
      );
    }
    if (existing.state === 'dropping') return { kind: 'existing_operation', operation_id: existing.operation };
    if (existing.state === 'building') this.finishBuild(existing.operation, 'aborted');
    const op = this.newOperation('drop', existing);
    this.putOperation(op);
    this.putDef({ ...existing, state: 'dropping', operation: op.id });
    return { kind: 'accepted', operation_id: op.id, index_id: decimal(existing.id), generation: decimal(existing.generation) };
  }

  private finishBuild(opId: string, status: 'aborted'): void {
    const op = this.reader.operation(opId);
    if (op === undefined || op.status === 'succeeded') return;
    this.putOperation({ ...op, status, stage: 'finalize', blocker: null });
  }

  retry(opId: string): IndexOperation {
    const op = this.operationOrThrow(opId);
    if (op.status !== 'blocked') return op;
    const retried: IndexOperation = { ...op, status: 'queued', attempt: op.attempt + 1, blocker: null };
    this.putOperation(retried);
    return retried;
  }

  abort(opId: string): IndexOperation {
    const op = this.operationOrThrow(opId);
    if (op.status === 'aborted') return op;
    if (op.kind === 'drop' || op.status === 'succeeded') {
      throw new GraphError(
        'index_operation_not_abortable',
        `index operation ${opId} is a ${op.kind} that is ${op.status}; only a build that has not succeeded can be aborted`,
      );
    }
    const aborted: IndexOperation = { ...op, status: 'aborted', stage: 'aborting_delete_entries', blocker: null };
    this.putOperation(aborted);
    const def = this.reader.current().defs.find((d) => d.id === op.indexId);
    // The partial entries go as a drop's do; the definition stays `dropping` until then.
    if (def !== undefined && def.state === 'building') this.putDef({ ...def, state: 'dropping' });
    return aborted;
  }

  operationOrThrow(opId: string): IndexOperation {
    const op = this.reader.operation(opId);
    if (op === undefined) throw new GraphError('index_operation_not_found', `there is no index operation ${opId}`);
    return op;
  }
}

export type { IndexFamily };
