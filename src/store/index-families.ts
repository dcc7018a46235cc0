/**
 * What the text and vector families plug into the store: keeping entries current with
 * writes (index-maintenance.ts), background work (index-work.ts) and search.
 */
import type { IndexElement } from '../core/index-spec.js';
import type { Value, ValueObject } from '../core/value.js';
import type { IndexDef } from './index-catalog.js';
import type { FamilyEntries } from './index-maintenance.js';
import type { FamilyWork } from './index-work.js';
import type { TextHit, VectorBacklog, VectorHit, VectorQuery } from './types.js';

/** The stored elements a vector search may read (graph.ts): the source of every exact distance. */
export interface IndexedElements {
  /** The element's label and properties, or undefined when it does not exist. */
  element(kind: IndexElement, id: number): { readonly label: string; readonly props: ValueObject } | undefined;
  /** Ids of the elements of a label, ascending. */
  idsByLabel(kind: IndexElement, label: string): Iterable<number>;
  /** Whether the view holds committed data only (a read snapshot), not a write batch's own writes. */
  committed(): boolean;
}

export interface VectorFamily extends FamilyEntries, FamilyWork {
  /** The index's queued work, applied work and rate. */
  backlog(def: IndexDef): VectorBacklog;
  search(def: IndexDef, query: VectorQuery, elements: IndexedElements): VectorHit[];
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
