/**
 * The text family (BM25) as the store uses it: one TextPostings per index (text-postings.ts)
 * over the `text_index` sub-database, kept current in the writing transaction (each write
 * batch collects its changes in a TextIndexBatch and flushes them before it commits) and
 * searched in the reader's snapshot, so a search sees every write committed before it
 * started.
 *
 * Only string values are indexed; any other value (or none) leaves the element out. In a
 * tenant-scoped index the element's tenant value picks its partition, and an element
 * without one is left out.
 */
import { GraphError } from '../core/errors.js';
import { describeIndex, elementOf } from '../core/index-spec.js';
import type { Value, ValueObject } from '../core/value.js';
import { tenantKey } from './tenant-key.js';
import { describeTextLimitBreach } from '../search/text-analysis.js';
import type { IndexDef } from './index-catalog.js';
import type { TextBatchEntries, TextFamily } from './index-families.js';
import { DELETE_ROUND, type TextBatch, TextPostings } from './text-postings.js';
import type { TextDb } from './layout.js';
import type { TextHit } from './types.js';

function tenantPropertyOf(def: IndexDef): string | null {
  return 'tenant_property' in def.spec ? def.spec.tenant_property : null;
}

export class TextIndexes implements TextFamily {
  private readonly postings = new Map<number, TextPostings>();

  constructor(private readonly db: TextDb) {}

  private of(def: IndexDef): TextPostings {
    let p = this.postings.get(def.id);
    if (p === undefined) {
      p = new TextPostings(this.db, def.id, tenantPropertyOf(def) !== null);
      this.postings.set(def.id, p);
    }
    return p;
  }

  batch(): TextIndexBatch {
    return new TextIndexBatch((def) => this.of(def));
  }

  search(def: IndexDef, tenant: Value | null, query: string, k: number, accept: ((id: number) => boolean) | null): TextHit[] {
    return this.of(def).search(tenantKey(tenant), query, k, accept ?? undefined);
  }

  deleteSome(def: IndexDef, deadline: number): boolean {
    while (TextPostings.deleteRound(this.db, def.id) === DELETE_ROUND) {
      if (performance.now() >= deadline) return false;
    }
    this.postings.delete(def.id);
    return true;
  }
}

/** One write batch's text writes, per index; `flush` applies them all. */
export class TextIndexBatch implements TextBatchEntries {
  private readonly batches = new Map<number, TextBatch>();

  constructor(private readonly postingsOf: (def: IndexDef) => TextPostings) {}

  private of(def: IndexDef): TextBatch {
    let batch = this.batches.get(def.id);
    if (batch === undefined) {
      batch = this.postingsOf(def).batch();
      this.batches.set(def.id, batch);
    }
    return batch;
  }

  add(def: IndexDef, id: number, props: ValueObject): void {
    const text = props[def.spec.property];
    const tenantProperty = tenantPropertyOf(def);
    const tenant = tenantProperty === null ? null : tenantKey(props[tenantProperty]);
    const batch = this.of(def);
    if (typeof text !== 'string' || (tenantProperty !== null && tenant === null)) {
      batch.remove(id);
      return;
    }
    const breach = batch.put(id, tenant, text);
    if (breach !== null) {
      const subject = `${def.spec.label}.${def.spec.property} of ${elementOf(def.spec.kind)} ${id}, ${describeIndex(def.spec)}`;
      throw new GraphError('active_text_mutation_limit_exceeded', describeTextLimitBreach(breach, subject));
    }
  }

  remove(def: IndexDef, id: number): void {
    this.of(def).remove(id);
  }

  flush(): void {
    for (const batch of this.batches.values()) batch.flush();
  }
}
