/**
 * Facts about a label's columns that a top-k needs and that change only when the columns
 * do: whether every node a scan could yield holds each sort key as one kind of value.
 * A reader works each out once per columns generation (GraphReader.columnsFact).
 */
import { bit, type ColumnChunk, type NumChunk } from '../../store/index.js';
import type { Exec } from '../context.js';
import type { ScanSpec } from './recognise.js';
import { prepare } from './rows.js';

/**
 * Whether every node the scan could yield (every node of its pinned label, or every node)
 * that holds one of `names` holds it as a value of one kind for that name: every one a
 * number other than NaN, or every one a string. Then order_by's order by those keys, with
 * missing keys sorted high (scanTopRows' `missingHigh`), is also Cypher's ORDER BY order:
 * numbers compare by value and strings by compareStrings in both, a missing key is null,
 * ties by id; only NaN, another kind or two kinds under one name (order_by puts numbers
 * first, Cypher strings) would sort differently.
 */
export function scanKeysOfOneKind(x: Exec, spec: ScanSpec, names: readonly string[]): boolean {
  const { label } = prepare(x, spec);
  const labelId = label === null ? null : x.store.labelId(label);
  if (labelId === undefined) return true; // no node has the label: nothing to order
  // Every request of a top-k asks this; a reader answers it once per change of the columns.
  const fact = `keys of one kind:${labelId ?? '*'}:${JSON.stringify(names)}`;
  return x.store.columnsFact(fact, () => keysOfOneKind(x, labelId, names));
}

function keysOfOneKind(x: Exec, labelId: number | null, names: readonly string[]): boolean {
  const counts = (l: number) => l !== 0 && (labelId === null || l === labelId);
  const kinds: ('num' | 'str' | undefined)[] = names.map(() => undefined);
  for (const { labels, uniform, columns } of x.store.nodeColumns(names)) {
    if (labelId !== null && uniform !== 0 && uniform !== labelId) continue; // only other labels' nodes
    for (let k = 0; k < columns.length; k++) {
      const chunk = columns[k] ?? null;
      if (chunk === null) continue; // no node of the block holds the key: nulls
      for (let i = 0; i < chunk.n; i++) {
        if (!counts(labels[i]!) || !bit(chunk.present, i)) continue; // a missing key is null
        const kind = slotKind(chunk, i);
        if (kind === null || (kinds[k] ??= kind) !== kind) return false;
        // The usual block: one kind, present in every slot; the first slot decided it.
        if (chunk.kind === kind && chunk.dense && !(kind === 'num' && (chunk as NumChunk).hasNaN)) break;
      }
    }
  }
  return true;
}

/**
 * The kind of a present key for scanKeysOfOneKind: 'num' (an integer or a float other than
 * NaN), 'str', or null for anything else. A general chunk (a block whose nodes hold several
 * kinds under the name) is read value by value.
 */
function slotKind(chunk: ColumnChunk, slot: number): 'num' | 'str' | null {
  if (chunk.kind === 'num') return Number.isNaN(chunk.values[slot]) ? null : 'num';
  if (chunk.kind === 'str') return 'str';
  const v = chunk.values[slot];
  if (typeof v === 'string') return 'str';
  return typeof v === 'bigint' || (typeof v === 'number' && !Number.isNaN(v)) ? 'num' : null;
}
