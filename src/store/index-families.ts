/**
 * What the text and vector families plug into the store: keeping entries current with
 * writes (index-maintenance.ts), background work (index-work.ts) and search.
 */
import type { Value } from '../core/value.js';
import type { IndexDef } from './index-catalog.js';
import type { FamilyEntries } from './index-maintenance.js';
import type { FamilyWork } from './index-work.js';
import type { Candidates, TextHit, VectorBacklog, VectorHit } from './types.js';

export interface VectorFamily extends FamilyEntries, FamilyWork {
  /** The index's queued work, applied work and rate. */
  backlog(def: IndexDef): VectorBacklog;
  search(def: IndexDef, tenant: Value | null, query: Float32Array, k: number, candidates: Candidates | null): VectorHit[];
}

/** A write batch's text index writes: collected per index, applied by `flush` before the batch commits. */
export interface TextBatchEntries extends FamilyEntries {
  flush(): void;
}

export interface TextFamily extends FamilyWork {
  /** The text writes of one write batch (one per GraphWriteView). */
  batch(): TextBatchEntries;
  search(def: IndexDef, tenant: Value | null, query: string, k: number, accept: ((id: number) => boolean) | null): TextHit[];
}
