/**
 * Moving full-text indexes to this build's layout (layout.ts TEXT_FORMAT). The postings of
 * an earlier layout are derived data: every document they index is still stored with its
 * element. So a writer that opens a folder of an earlier layout rebuilds its text indexes
 * from the stored elements, in one write transaction before it takes any other write:
 * a crash during it leaves the folder as it was (the old layout, unstamped), and the next
 * open starts over. Nothing a client wrote is touched, and searches answer as before once
 * the open returns.
 */
import { elementOf, familyOf } from '../core/index-spec.js';
import { idsOfLabel, propsOf, type IndexWorkView } from './index-work.js';

export interface TextRebuildCounts {
  readonly indexes: number;
  readonly documents: number;
}

/**
 * Re-indexes, in `w`'s transaction (whose text index sub-database the caller has emptied),
 * every element of each text index: all of an active index's label, and the part of a
 * building index's label its build has passed (the build goes on from its cursor). A
 * dropping index needs nothing: its entries are already gone.
 */
export function rebuildTextIndexes(w: IndexWorkView): TextRebuildCounts {
  let indexes = 0;
  let documents = 0;
  for (const def of w.indexCatalog().defs) {
    if (familyOf(def.spec.kind) !== 'text' || def.state === 'dropping') continue;
    const upTo = def.state === 'active' ? Infinity : (w.operationRecord(def.operation)?.cursor ?? 0);
    const element = elementOf(def.spec.kind);
    indexes++;
    for (const id of idsOfLabel(w, def, 0)) {
      if (id >= upTo) break;
      const props = propsOf(w, element, id);
      if (props === undefined) continue;
      w.indexes.build(def, element, id, props);
      documents++;
    }
  }
  return { indexes, documents };
}
