/**
 * Top-k over a scan: `limit`/`range` over `order_by` over a scan (and Cypher's ORDER BY
 * ... LIMIT) keep a bounded heap of the best rows instead of sorting all of them, and
 * skip the blocks and slots that cannot enter the heap before building a row: by a
 * numeric first key's zone map, a string first key's best dictionary entry, the next
 * key's best where the first ties, then slot by slot. Deep pages of one numeric key sort
 * plain numbers instead; a gathered view's order is kept for the request.
 */
import type { Order } from '../../plan/expr.js';
import { bit, chunkValue, type ColumnChunk, type NumChunk, type StrChunk } from '../../store/index.js';
import type { Value } from '../../core/value.js';
import { compareStrings, totalOrder } from '../compare.js';
import { Derived, type Exec } from '../context.js';
import { SLOTS, type LabelView, type ScanBlock } from './label-view.js';
import { NODE, startRow, type Row } from '../row.js';
import { isPlainProperty } from './conjuncts.js';
import type { ScanSpec } from './recognise.js';
import { giveMask, takeMask, words } from './masks.js';
import { candidates, passes, prepare, scanProperties, viewOf, type Prepared } from './rows.js';

/** Pages ending past this many rows are cut from a sorted copy of the keys, not a heap. */
const DEEP_PAGE = 64;

/**
 * Rows [start, end) ordered by one key whose stored values are all numbers, for pages deep
 * enough that a heap of objects would cost more than sorting plain numbers: the keys are
 * gathered into typed arrays, a selection finds the value at the page's end, and only the
 * rows up to it are sorted. The order is order_by's: missing values first ascending and
 * last descending, NaN above every number, ties by id. Null when a chunk is not numeric.
 */
function numericPage(
  x: Exec,
  scan: Prepared,
  view: LabelView | null,
  key: string,
  order: Order,
  start: number,
  end: number,
  path: string,
): Row[] | null {
  const { residual } = scan;
  let values = new Float64Array(64);
  let ids = new Float64Array(64);
  let n = 0;
  const missing: number[] = [];
  const nan: number[] = [];
  for (const { block, mask } of candidates(x, scan, scanProperties(scan, [key]), view)) {
    const chunk = block.chunk(key);
    if (chunk !== null && chunk.kind !== 'num') return null;
    const { nodes, base, ids: slotIds, size } = block;
    for (let i = 0; i < size; i++) {
      if (nodes[i] === 0 || (mask !== null && mask[i] === 0)) continue;
      const id = slotIds === null ? base + i : slotIds[i]!;
      if (residual.length > 0 && !passes(x, startRow(NODE, id, false), residual)) continue;
      if (chunk === null || i >= chunk.n || !(chunk.dense || bit(chunk.present, i))) {
        missing.push(id);
        continue;
      }
      const v = chunk.values[i]!;
      if (v !== v) {
        nan.push(id);
        continue;
      }
      if (n === values.length) {
        const grownValues = new Float64Array(n * 2);
        grownValues.set(values);
        values = grownValues;
        const grownIds = new Float64Array(n * 2);
        grownIds.set(ids);
        ids = grownIds;
      }
      values[n] = v;
      ids[n++] = id;
    }
    if (end === Infinity) x.checkSize(n + missing.length + nan.length, path);
  }
  const desc = order === 'desc';
  // Groups in output order; each group's ids are ascending already.
  const first = desc ? nan : missing;
  const last = desc ? missing : nan;
  const wanted = Math.min(end, first.length + n + last.length);
  const fromNumbers = Math.max(0, Math.min(n, wanted - first.length));
  const order2 = sortedPrefix(values, ids, n, fromNumbers, desc);
  const all = [...first, ...Array.from(order2, (k) => ids[k]!), ...last];
  return all.slice(start, wanted).map((id) => startRow(NODE, id, x.trackPath));
}

/** Indices of the `take` best of the first `n` (value, id) pairs, in order. */
function sortedPrefix(values: Float64Array, ids: Float64Array, n: number, take: number, desc: boolean): Uint32Array {
  if (take === 0) return new Uint32Array(0);
  // The value at the cut: every pair at least as good as it may be in the prefix.
  const copy = values.slice(0, n);
  const cut = select(copy, desc ? n - take : take - 1);
  const chosen: number[] = [];
  for (let k = 0; k < n; k++) if (desc ? values[k]! >= cut : values[k]! <= cut) chosen.push(k);
  chosen.sort((a, b) => (desc ? values[b]! - values[a]! : values[a]! - values[b]!) || ids[a]! - ids[b]!);
  return Uint32Array.from(chosen.slice(0, take));
}

/** The k-th smallest of `a` (0-based); reorders `a` (Hoare's selection). */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

/** A sort key's value in a slot; numbers stay doubles (order is all that matters here). */
function keyValue(chunk: ColumnChunk | null, slot: number): Value | undefined {
  if (chunk === null || slot >= chunk.n || !bit(chunk.present, slot)) return undefined;
  if (chunk.kind === 'num') return chunk.values[slot]!;
  return chunkValue(chunk, slot);
}

interface Candidate {
  readonly id: number;
  readonly keys: (Value | undefined)[];
}

/**
 * order_by's order (bound.ts): missing first ascending, last descending; ties by id. With
 * `missingHigh`, Cypher's: a missing key (null) above every value, so last ascending.
 */
function compareCandidates(orders: readonly Order[], missingHigh = false): (a: Candidate, b: Candidate) => number {
  const low = missingHigh ? 1 : -1;
  return (a, b) => {
    for (let i = 0; i < orders.length; i++) {
      const va = a.keys[i];
      const vb = b.keys[i];
      const c = va === undefined || vb === undefined ? (va === vb ? 0 : va === undefined ? low : -low) : totalOrder(va, vb);
      if (c !== 0) return orders[i] === 'desc' ? -c : c;
    }
    return a.id - b.id;
  };
}

/**
 * The slots of a block that are nodes, pass the scan's mask and may still enter the heap:
 * with a numeric first key, a row whose key is strictly worse than the heap's worst cannot.
 * The threshold may have tightened since; the caller compares the survivors exactly.
 */
function contenders(
  { labels, size }: ScanBlock,
  mask: Uint8Array | null,
  numbers: NumChunk | null,
  threshold: number,
  desc: boolean,
  out: Uint8Array,
): Uint8Array {
  if (numbers === null || threshold !== threshold) {
    if (mask === null) for (let i = 0; i < size; i++) out[i] = labels[i] === 0 ? 0 : 1;
    else for (let i = 0; i < size; i++) out[i] = labels[i] === 0 ? 0 : mask[i]!;
    return out;
  }
  const { values, n, present, dense } = numbers;
  for (let i = 0; i < size; i++) {
    let open = labels[i] === 0 ? 0 : mask === null ? 1 : mask[i]!;
    if (open === 1 && i < n) {
      const v = values[i]!;
      if ((desc ? v < threshold : v > threshold) && (dense || bit(present, i))) open = 0;
    }
    out[i] = open;
  }
  return out;
}

/**
 * With a full heap whose worst row is `root`: closes the open slots that sort after it,
 * deciding from the chunks without building the row. Key by key, over the slots still tied
 * with the root (compareKey), then by id for those tied on every key. A key a chunk cannot
 * decide (missing, NaN, another kind than the root's) leaves the slot open for the exact
 * comparison, as does a slot that sorts before the root.
 */
function closeOutranked(
  open: Uint8Array,
  block: ScanBlock,
  chunks: readonly (ColumnChunk | null)[],
  orders: readonly Order[],
  root: Candidate,
  missingHigh: boolean,
): void {
  const { base, ids, size } = block;
  // The open slots, found a word at a time: after a numeric first key's filter few are left.
  const list = openSlots;
  let count = 0;
  const openWords = words(open);
  for (let w = 0; w < (size + 3) >> 2; w++) {
    if (openWords[w] === 0) continue;
    for (let i = w << 2; i < Math.min(size, (w + 1) << 2); i++) if (open[i] === 1) list[count++] = i;
  }
  if (count === 0) return;
  // Per listed slot: 0 tied with the root so far, 1 after it, -1 before it or undecidable.
  const state = rankState;
  state.fill(0, 0, count);
  for (let j = 0; j < chunks.length; j++) {
    const desc = orders[j] === 'desc';
    compareKey(chunks[j] ?? null, root.keys[j], desc, desc === missingHigh, count, state);
  }
  for (let k = 0; k < count; k++) {
    const s = state[k];
    const i = list[k]!;
    if (s === 1 || (s === 0 && (ids === null ? base + i : ids[i]!) > root.id)) open[i] = 0;
  }
}

const openSlots = new Uint16Array(SLOTS);
const rankState = new Int8Array(SLOTS);

/**
 * For the listed slots still tied (state 0): 1 when the slot's key sorts after `value` in
 * this order, 0 when equal, -1 before or undecidable. `value` undefined is a root without
 * the key: where a missing key sorts first (`missingBest`) a slot holding one sorts after
 * it and a slot without one ties; elsewhere the exact comparison decides.
 */
function compareKey(
  chunk: ColumnChunk | null,
  value: Value | undefined,
  desc: boolean,
  missingBest: boolean,
  count: number,
  state: Int8Array,
): void {
  const list = openSlots;
  const after = desc ? -1 : 1;
  if (value === undefined && missingBest) {
    for (let k = 0; k < count; k++) {
      if (state[k] !== 0) continue;
      const i = list[k]!;
      state[k] = chunk !== null && i < chunk.n && (chunk.dense || bit(chunk.present, i)) ? 1 : 0;
    }
  } else if (chunk !== null && chunk.kind === 'num' && typeof value === 'number' && value === value) {
    const { values, n, present, dense } = chunk;
    for (let k = 0; k < count; k++) {
      if (state[k] !== 0) continue;
      const i = list[k]!;
      const v = i < n && (dense || bit(present, i)) ? values[i]! : NaN;
      state[k] = v < value ? -after : v > value ? after : v === value ? 0 : -1;
    }
  } else if (chunk !== null && chunk.kind === 'str' && typeof value === 'string') {
    const { codes, n, present, dense, dict } = chunk;
    // Few slots: compare their strings; many: decide each distinct string once.
    const byCode = count * 8 < dict.length ? null : stringVerdicts(chunk, value, after);
    for (let k = 0; k < count; k++) {
      if (state[k] !== 0) continue;
      const i = list[k]!;
      if (!(i < n && (dense || bit(present, i)))) state[k] = -1;
      else if (byCode !== null) state[k] = byCode[codes[i]!]!;
      else state[k] = after * Math.sign(compareStrings(dict[codes[i]!]!, value));
    }
  } else for (let k = 0; k < count; k++) if (state[k] === 0) state[k] = -1;
}

let verdictTable = new Int8Array(SLOTS);

/** compareKey's verdict for each dictionary entry of a string chunk: two binary searches over its ranks, then one pass. */
function stringVerdicts(chunk: StrChunk, value: string, after: number): Int8Array {
  const { dict } = chunk;
  const { sorted, rank } = dictRanks(chunk);
  const count = (before: (order: number) => boolean) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(compareStrings(dict[sorted[mid]!]!, value))) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Ranks below `below` sort before `value`; ranks from `through` on sort after it.
  const below = count((order) => order < 0);
  const through = count((order) => order <= 0);
  // One table at a time is in use: a shared one, since a typed array of more than 64 bytes
  // is allocated outside the JS heap, slowly.
  if (verdictTable.length < dict.length) verdictTable = new Int8Array(dict.length);
  const out = verdictTable;
  for (let c = 0; c < dict.length; c++) {
    const r = rank[c]!;
    out[c] = r < below ? -after : r >= through ? after : 0;
  }
  return out;
}

interface DictRanks {
  /** Dictionary indices in string order. */
  readonly sorted: Uint16Array;
  /** Each dictionary index's place in that order. */
  readonly rank: Uint16Array;
}

/** Per decoded string chunk, which a reader keeps while its version holds. */
const DICT_RANKS = new WeakMap<StrChunk, DictRanks>();

function dictRanks(chunk: StrChunk): DictRanks {
  let ranks = DICT_RANKS.get(chunk);
  if (ranks === undefined) {
    const { dict } = chunk;
    const sorted = Uint16Array.from(dict.keys()).sort((a, b) => compareStrings(dict[a]!, dict[b]!));
    const rank = new Uint16Array(dict.length);
    sorted.forEach((c, r) => (rank[c] = r));
    ranks = { sorted, rank };
    DICT_RANKS.set(chunk, ranks);
  }
  return ranks;
}

/**
 * Whether no row of a block can beat a full heap whose worst row is `root`, by the zone of
 * each key in turn (compareZone): every row loses on the first key whose best in the block
 * is worse than the root's, after tying it on the keys before. Bests tying the root on every
 * key leave it to the ids, row by row. Beyond the first key, this is what lets a few-valued
 * first key (a status) skip blocks.
 */
function blockOutclassed(
  chunks: readonly (ColumnChunk | null)[],
  orders: readonly Order[],
  root: Candidate,
  size: number,
  missingHigh: boolean,
): boolean {
  for (let j = 0; j < chunks.length; j++) {
    const desc = orders[j] === 'desc';
    const order = compareZone(chunks[j] ?? null, root.keys[j], size, desc, desc === missingHigh);
    if (order !== 0) return order > 0;
  }
  return false;
}

/**
 * How the block's best row on one key compares with the root's key `worst`, in the key's
 * order: 1 worse, 0 tied, -1 better or undecidable (NaN, another kind, a general chunk).
 * The best is the zone's end (the smallest value ascending, the largest descending), or a
 * missing key where one sorts first (`missingBest`) and some slot lacks it; a block without
 * the chunk holds the key nowhere.
 */
function compareZone(chunk: ColumnChunk | null, worst: Value | undefined, size: number, desc: boolean, missingBest: boolean): number {
  const full = chunk !== null && chunk.dense && chunk.n === size;
  if (worst === undefined) {
    // The root lacks the key: rows holding it sort after it where a missing key is best, before it elsewhere.
    if (chunk === null) return 0;
    return missingBest ? (full ? 1 : 0) : -1;
  }
  if (chunk === null) return missingBest ? -1 : 1;
  if (missingBest && !full) return -1;
  let order: number;
  if (chunk.kind === 'num' && typeof worst === 'number' && worst === worst && !chunk.hasNaN && chunk.min <= chunk.max) {
    const best = desc ? chunk.max : chunk.min;
    order = best < worst ? -1 : best > worst ? 1 : 0;
  } else if (chunk.kind === 'str' && typeof worst === 'string') {
    const { sorted } = dictRanks(chunk);
    if (sorted.length === 0) return -1;
    order = Math.sign(compareStrings(chunk.dict[sorted[desc ? sorted.length - 1 : 0]!]!, worst));
  } else return -1;
  return desc ? -order : order;
}

/** The k-th best present, non-NaN first key among the open slots, or NaN when fewer exist. */
function kthBest(open: Uint8Array, numbers: NumChunk, k: number, desc: boolean): number {
  // The k best so far, worst first: a value displaces the worst when it is better. (An
  // array: a typed one of more than 64 bytes is allocated outside the JS heap, slowly.)
  const best: number[] = [];
  let size = 0;
  const better = (a: number, b: number) => (desc ? a > b : a < b);
  for (let i = 0; i < numbers.n; i++) {
    const v = numbers.values[i]!;
    if (open[i] !== 1 || v !== v || !(numbers.dense || bit(numbers.present, i))) continue;
    if (size < k) {
      let j = size++;
      while (j > 0 && better(best[j - 1]!, v)) {
        best[j] = best[j - 1]!;
        j--;
      }
      best[j] = v;
    } else if (better(v, best[0]!)) {
      let j = 0;
      while (j + 1 < k && better(v, best[j + 1]!)) {
        best[j] = best[j + 1]!;
        j++;
      }
      best[j] = v;
    }
  }
  return size < k ? NaN : best[0]!;
}

/**
 * Rows [start, end) of the scan sorted by `keys`, keeping only the best `end` in a heap
 * (`end` may be Infinity: the whole scan sorted, within the in-memory row limit, reported
 * at `path`); null when a key is not a plain property (the generic sort handles it).
 */
export function scanTopRows(
  x: Exec,
  spec: ScanSpec,
  keys: readonly (readonly [string, Order])[],
  start: number,
  end: number,
  path: string,
  /** Sort a missing key above every value (Cypher's nulls) rather than below (order_by's). */
  missingHigh = false,
): Row[] | null {
  const { names, key } = x.derive(SORTS, keys);
  if (names === null) return null;
  if (end <= start) return [];
  const scan = prepare(x, spec);
  const { residual } = scan;
  const properties = scanProperties(scan, names);
  const view = viewOf(x, scan, properties);
  // The view's order and the deep-page copy sort missing keys as order_by does.
  if (view !== null && residual.length === 0 && !missingHigh) return walkOrder(x, scan, view, keys, key, start, end, path);
  if (end > DEEP_PAGE && keys.length === 1 && !missingHigh) {
    const page = numericPage(x, scan, view, keys[0]![0], keys[0]![1], start, end, path);
    if (page !== null) return page;
  }
  const orders = keys.map(([, o]) => o);
  const cmp = compareCandidates(orders, missingHigh);
  // A max-heap under cmp: the root is the worst of the best `end` so far.
  const heap: Candidate[] = [];
  const worse = (i: number, j: number) => cmp(heap[i]!, heap[j]!) > 0;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j]!, heap[i]!]);
  const up = (i: number) => {
    while (i > 0 && worse(i, (i - 1) >> 1)) {
      swap(i, (i - 1) >> 1);
      i = (i - 1) >> 1;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(l, m)) m = l;
      if (r < heap.length && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  const desc = keys[0]![1] === 'desc';
  const scratch = takeMask();
  for (const { block, mask } of candidates(x, scan, properties, view)) {
    const { base, ids, size } = block;
    const chunks = names.map((k) => block.chunk(k));
    const first = chunks[0] ?? null;
    // Once the heap is full most rows lose on the first key alone: a block whose zones say
    // none can win is passed over, and in the others the keys are decided from the chunks
    // before a row's keys are built. Every block is judged against the heap's worst row as
    // the block starts (it only tightens while the block runs; survivors compare exactly).
    const root = heap.length === end ? heap[0]! : null;
    if (root !== null && blockOutclassed(chunks, orders, root, size, missingHigh)) continue;
    const worst = root?.keys[0];
    const threshold = typeof worst === 'number' ? worst : NaN;
    const numbers = first !== null && first.kind === 'num' ? first : null;
    let open = contenders(block, mask, numbers, threshold, desc, scratch);
    // Until the heap is full there is no threshold; the block's own k-th best first key is
    // one (k rows at least as good exist, when no record predicate can still drop them),
    // so the first block is not read row by row.
    if (root === null && numbers !== null && residual.length === 0 && end <= SLOTS) {
      const own = kthBest(open, numbers, end, desc);
      if (own === own) open = contenders(block, mask, numbers, own, desc, scratch);
    }
    if (root !== null) closeOutranked(open, block, chunks, orders, root, missingHigh);
    // Four slots at a time: once the heap is full, most blocks leave none open.
    const openWords = words(open);
    for (let i = 0; i < size; i++) {
      if ((i & 3) === 0 && openWords[i >> 2] === 0) {
        i += 3;
        continue;
      }
      if (open[i] === 0) continue;
      const candidate: Candidate = { id: ids === null ? base + i : ids[i]!, keys: chunks.map((c) => keyValue(c, i)) };
      if (heap.length === end && cmp(candidate, heap[0]!) >= 0) continue;
      if (residual.length > 0 && !passes(x, startRow(NODE, candidate.id, false), residual)) continue;
      if (heap.length < end) {
        if (heap.push(candidate) % 65536 === 0) x.checkSize(heap.length, path);
        up(heap.length - 1);
      } else {
        heap[0] = candidate;
        down(0);
      }
    }
  }
  giveMask(scratch);
  return heap
    .sort(cmp)
    .slice(start)
    .map((c) => startRow(NODE, c.id, x.trackPath));
}

/**
 * Rows [start, end) of a scan over a label view with no record predicate: the view's
 * order by `keys` (made once per request and view) walked from the front, keeping the
 * rows that pass the compiled conjuncts, so a sorted page costs no comparison at all.
 */
function walkOrder(
  x: Exec,
  scan: Prepared,
  view: LabelView,
  keys: readonly (readonly [string, Order])[],
  key: string,
  start: number,
  end: number,
  path: string,
): Row[] {
  const { blocks } = view;
  const order = view.order(key, () => orderOf(blocks, keys));
  const compiled = scan.compiled;
  // Each block's mask, made when the walk first reaches the block.
  const masks: (Uint8Array | undefined)[] = [];
  const rows: Row[] = [];
  let skipped = 0;
  for (let k = 0; k < order.length && rows.length < end - start; k++) {
    // The walk calls no store: every 1024 rows count as a stored block counts.
    if ((k & (SLOTS - 1)) === 0) x.tick();
    const at = order[k]!;
    const b = (at / SLOTS) | 0;
    const slot = at % SLOTS;
    const block = blocks[b]!;
    if (compiled !== null) {
      let mask = masks[b];
      if (mask === undefined) {
        mask = masks[b] = takeMask();
        compiled.mask(block, mask);
      }
      if (mask[slot] === 0) continue;
    }
    if (skipped < start) {
      skipped++;
      continue;
    }
    if (rows.push(startRow(NODE, block.ids![slot]!, x.trackPath)) % 65536 === 0) x.checkSize(rows.length, path);
  }
  for (const mask of masks) if (mask !== undefined) giveMask(mask);
  return rows;
}

/** What a sort's keys come to: their names (null when one is not a plain property) and their text. */
interface SortOf {
  readonly names: readonly string[] | null;
  readonly key: string;
}

/** Per keys array (each sort of a plan has one: bound.ts), made once per request. */
const SORTS = new Derived<readonly (readonly [string, Order])[], SortOf>((keys) => ({
  names: keys.every(([k]) => isPlainProperty(k)) ? keys.map(([k]) => k) : null,
  key: JSON.stringify(keys),
}));

/** The nodes of gathered blocks in order_by's order by `keys`, as block * SLOTS + slot. */
function orderOf(blocks: readonly ScanBlock[], keys: readonly (readonly [string, Order])[]): Uint32Array {
  const all: (Candidate & { at: number })[] = [];
  blocks.forEach((block, b) => {
    const chunks = keys.map(([k]) => block.chunk(k));
    for (let i = 0; i < block.size; i++) all.push({ id: block.ids![i]!, keys: chunks.map((c) => keyValue(c, i)), at: b * SLOTS + i });
  });
  all.sort(compareCandidates(keys.map(([, o]) => o)));
  return Uint32Array.from(all, (c) => c.at);
}
