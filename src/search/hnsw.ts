/**
 * HNSW (Malkov & Yashunin, "Efficient and robust approximate nearest neighbor search using
 * Hierarchical Navigable Small World graphs") over abstract storage: the database keeps
 * one record per element in LMDB (src/store/hnsw-records.ts), tests keep them in a Map.
 *
 * Every link is also recorded at its target (`inbound`), so removing an element finds
 * everything that pointed at it without a scan and repairs those lists at once. HelixDB
 * users meet "no entry point" and dangling-link failures after deletes; here, after any
 * sequence of operations, every link x→y at level l has y stored at level ≥ l with x in
 * y.inbound[l], every inbound entry matches a link, and the entry point is an element of
 * the greatest level, or absent exactly when the index is empty (hnsw-check.ts states it).
 *
 * Operations run inside whatever transaction the storage is in; each reads a record once
 * (a per-operation working set) and writes each record it changed once, at its end.
 */
import { before, MaxHeap, MinHeap } from './heap.js';
import { distanceFrom, distanceOf, type Distance, type Metric } from './vector-math.js';

export interface HnswRecord {
  level: number;
  vector: Float32Array;
  /** Per level 0..level: the ids this element links to. */
  neighbours: number[][];
  /** Per level 0..level: the ids whose lists at that level hold this element. */
  inbound: number[][];
  /** A tombstone: still navigated through, never returned by a search. */
  deleted: boolean;
}

export interface HnswStorage {
  get(id: number): HnswRecord | undefined;
  put(id: number, record: HnswRecord): void;
  remove(id: number): void;
  entry(): { id: number; level: number } | undefined;
  setEntry(entry: { id: number; level: number } | undefined): void;
  /** Every stored id (fallback only: choosing a new entry point when the old one had no neighbours). */
  ids(): Iterable<number>;
}

export interface HnswConfig {
  readonly metric: Metric;
  /** Links a new element makes per level, and the most an element keeps above level 0. */
  readonly m: number;
  /** The most links an element keeps at level 0. */
  readonly m0: number;
  /** Candidates a new element's search keeps per level before choosing its links. */
  readonly efConstruction: number;
  /** Uniform in [0, 1): draws levels. Tests pass a seeded one for repeatable graphs. */
  readonly random: () => number;
  /** Fill a pruned list back up to its size with the candidates the heuristic rejected. */
  readonly keepPrunedConnections: boolean;
}

export interface Neighbour {
  readonly id: number;
  readonly distance: number;
}

export const HNSW_M = 16;
export const HNSW_M0 = 32;
export const HNSW_EF_CONSTRUCTION = 200;
/** Searches keep at least this many candidates (ef = max(k, 100)). */
export const HNSW_SEARCH_EF = 100;
/**
 * Levels are capped: with M = 16 a level above 12 has odds below 1e-14 per element, and
 * the cap bounds a record's size whatever the random source returns.
 */
export const HNSW_MAX_LEVEL = 16;

export function hnswConfig(metric: Metric, options: Partial<Omit<HnswConfig, 'metric'>> = {}): HnswConfig {
  return {
    metric,
    m: options.m ?? HNSW_M,
    m0: options.m0 ?? HNSW_M0,
    efConstruction: options.efConstruction ?? HNSW_EF_CONSTRUCTION,
    random: options.random ?? Math.random,
    keepPrunedConnections: options.keepPrunedConnections ?? false,
  };
}

export const searchEf = (k: number): number => Math.max(k, HNSW_SEARCH_EF);

/** floor(-ln(U) / ln(M)), U uniform in (0, 1]. */
export function drawLevel(config: HnswConfig): number {
  const level = Math.floor(-Math.log(1 - config.random()) / Math.log(config.m));
  return level >= 0 && level <= HNSW_MAX_LEVEL ? level : level > HNSW_MAX_LEVEL ? HNSW_MAX_LEVEL : 0;
}

const maxLinks = (config: HnswConfig, level: number): number => (level === 0 ? config.m0 : config.m);

interface RecordSource {
  get(id: number): HnswRecord | undefined;
}

/**
 * The records one operation reads and changes: each read once, each changed one written
 * once when the operation ends.
 */
class WorkingSet implements RecordSource {
  private readonly loaded = new Map<number, HnswRecord>();
  private readonly dirty = new Set<number>();

  constructor(private readonly storage: HnswStorage) {}

  get(id: number): HnswRecord | undefined {
    let r = this.loaded.get(id);
    if (r === undefined) {
      r = this.storage.get(id);
      if (r !== undefined) this.loaded.set(id, r);
    }
    return r;
  }

  /** A record a link points at: its absence is a broken index. */
  linked(id: number): HnswRecord {
    const r = this.get(id);
    if (r === undefined) throw new Error(`hnsw: element ${id} is linked to but not stored`);
    return r;
  }

  add(id: number, record: HnswRecord): void {
    this.loaded.set(id, record);
    this.dirty.add(id);
  }

  changed(id: number): void {
    this.dirty.add(id);
  }

  forget(id: number): void {
    this.loaded.delete(id);
    this.dirty.delete(id);
  }

  write(): void {
    for (const id of this.dirty) this.storage.put(id, this.loaded.get(id)!);
    this.dirty.clear();
  }
}

type Keep = (id: number, record: HnswRecord) => boolean;

const live: Keep = (_id, record) => !record.deleted;

function checkId(id: number): void {
  if (!Number.isSafeInteger(id) || id < 0) throw new Error(`hnsw: element ids are integers in [0, 2^53), got ${id}`);
}

function emptyLists(level: number): number[][] {
  const lists: number[][] = [];
  for (let l = 0; l <= level; l++) lists.push([]);
  return lists;
}

function removeValue(list: number[] | undefined, value: number): void {
  if (list === undefined) return;
  const i = list.indexOf(value);
  if (i >= 0) list.splice(i, 1);
}

/** Where a greedy descent stands: the nearest element found so far. */
interface Position {
  id: number;
  distance: number;
}

/** Greedy descent (ef = 1) from `from` down to just above `toLevel`. */
function descend(src: RecordSource, dq: (v: Float32Array) => number, at: Position, fromLevel: number, toLevel: number): Position {
  for (let l = fromLevel; l > toLevel; l--) {
    let moved = true;
    while (moved) {
      moved = false;
      const links = src.get(at.id)?.neighbours[l];
      if (links === undefined) break;
      for (let i = 0; i < links.length; i++) {
        const n = links[i]!;
        const r = src.get(n);
        if (r === undefined) continue;
        const d = dq(r.vector);
        if (before(d, n, at.distance, at.id)) {
          at = { id: n, distance: d };
          moved = true;
        }
      }
    }
  }
  return at;
}

/**
 * Best-first search of one level (the paper's SEARCH-LAYER). Every reached element is
 * navigated through; only those `keep` accepts (or all, when null) enter the result, and
 * the search stops expanding once `ef` results are found and the nearest candidate left is
 * farther than all of them.
 */
function searchLayer(
  src: RecordSource,
  dq: (v: Float32Array) => number,
  entries: readonly Position[],
  ef: number,
  level: number,
  keep: Keep | null,
): MaxHeap {
  const visited = new Set<number>();
  const candidates = new MinHeap();
  const found = new MaxHeap();
  for (const e of entries) {
    if (visited.has(e.id)) continue;
    visited.add(e.id);
    candidates.push(e.distance, e.id);
    const r = src.get(e.id);
    if (r !== undefined && (keep === null || keep(e.id, r))) {
      found.push(e.distance, e.id);
      if (found.size > ef) found.pop();
    }
  }
  while (candidates.size > 0) {
    const cd = candidates.topDistance();
    const cid = candidates.topId();
    if (found.size >= ef && before(found.topDistance(), found.topId(), cd, cid)) break;
    candidates.pop();
    const links = src.get(cid)?.neighbours[level];
    if (links === undefined) continue;
    for (let i = 0; i < links.length; i++) {
      const n = links[i]!;
      if (visited.has(n)) continue;
      visited.add(n);
      const r = src.get(n);
      if (r === undefined) continue;
      const d = dq(r.vector);
      if (found.size < ef || before(d, n, found.topDistance(), found.topId())) {
        candidates.push(d, n);
        if (keep === null || keep(n, r)) {
          found.push(d, n);
          if (found.size > ef) found.pop();
        }
      }
    }
  }
  return found;
}

/**
 * The neighbour-selection heuristic (the paper's algorithm 4): take candidates nearest
 * first, and keep one only if it is nearer to the base than to every one kept so far, so
 * the links spread in different directions instead of into one cluster.
 */
function selectNeighbours(src: WorkingSet, dist: Distance, candidates: readonly Neighbour[], max: number, keepPruned: boolean): number[] {
  const chosen: number[] = [];
  const vectors: Float32Array[] = [];
  const pruned: number[] = [];
  for (const c of candidates) {
    if (chosen.length >= max) break;
    const v = src.linked(c.id).vector;
    let good = true;
    for (let i = 0; i < vectors.length; i++) {
      if (dist(v, vectors[i]!) < c.distance) {
        good = false;
        break;
      }
    }
    if (good) {
      chosen.push(c.id);
      vectors.push(v);
    } else if (keepPruned) pruned.push(c.id);
  }
  for (let i = 0; i < pruned.length && chosen.length < max; i++) chosen.push(pruned[i]!);
  return chosen;
}

const byDistance = (a: Neighbour, b: Neighbour): number => a.distance - b.distance || a.id - b.id;

/** `ids` as candidates around `base`, nearest first. */
function around(src: WorkingSet, dist: Distance, base: Float32Array, ids: Iterable<number>): Neighbour[] {
  const out: Neighbour[] = [];
  for (const id of ids) out.push({ id, distance: dist(base, src.linked(id).vector) });
  return out.sort(byDistance);
}

/**
 * Sets x's list at `level` to `chosen` and keeps the targets' inbound lists in step:
 * dropped targets forget x, new ones learn it.
 */
function relink(src: WorkingSet, x: number, record: HnswRecord, level: number, chosen: number[]): void {
  const old = record.neighbours[level]!;
  const kept = new Set(chosen);
  for (const n of old) {
    if (kept.has(n)) continue;
    removeValue(src.linked(n).inbound[level], x);
    src.changed(n);
  }
  const had = new Set(old);
  for (const n of chosen) {
    if (had.has(n)) continue;
    src.linked(n).inbound[level]!.push(x);
    src.changed(n);
  }
  record.neighbours[level] = chosen;
  src.changed(x);
}

/**
 * Links a new element (an id the index does not hold). The index keeps `vector` itself:
 * do not change it afterwards. Its length must match the index's other vectors.
 */
export function insert(storage: HnswStorage, config: HnswConfig, id: number, vector: Float32Array): void {
  checkId(id);
  const src = new WorkingSet(storage);
  if (src.get(id) !== undefined) throw new Error(`hnsw: element ${id} is already in the index`);
  const level = drawLevel(config);
  const record: HnswRecord = { level, vector, neighbours: emptyLists(level), inbound: emptyLists(level), deleted: false };
  const entry = storage.entry();
  if (entry === undefined) {
    storage.put(id, record);
    storage.setEntry({ id, level });
    return;
  }
  const entryRecord = src.linked(entry.id);
  if (entryRecord.vector.length !== vector.length) {
    throw new Error(`hnsw: element ${id} has ${vector.length} components, the index holds vectors of ${entryRecord.vector.length}`);
  }
  src.add(id, record);
  const dist = distanceOf(config.metric);
  const dq = distanceFrom(config.metric, vector);
  let entries: Position[] = [descend(src, dq, { id: entry.id, distance: dq(entryRecord.vector) }, entry.level, level)];
  for (let l = Math.min(level, entry.level); l >= 0; l--) {
    // Link to live elements; tombstones only when nothing else is reachable (their
    // removal will repair the links anyway, but would have to repair more).
    let found = searchLayer(src, dq, entries, config.efConstruction, l, live);
    if (found.size === 0) found = searchLayer(src, dq, entries, config.efConstruction, l, null);
    const candidates = found.sorted();
    const chosen = selectNeighbours(src, dist, candidates, config.m, config.keepPrunedConnections);
    record.neighbours[l] = chosen;
    for (const e of chosen) connectBack(src, dist, config, id, e, l);
    entries = candidates;
  }
  src.write();
  if (level > entry.level) storage.setEntry({ id, level });
}

/** The link id → e was just made: record it at e, then link e → id, shrinking e's list if full. */
function connectBack(src: WorkingSet, dist: Distance, config: HnswConfig, id: number, e: number, level: number): void {
  const record = src.linked(id);
  const er = src.linked(e);
  er.inbound[level]!.push(id);
  const links = er.neighbours[level]!;
  if (links.length < maxLinks(config, level)) {
    links.push(id);
    record.inbound[level]!.push(e);
    src.changed(e);
    return;
  }
  const candidates = around(src, dist, er.vector, [...links, id]);
  const chosen = selectNeighbours(src, dist, candidates, maxLinks(config, level), config.keepPrunedConnections);
  relink(src, e, er, level, chosen);
}

/** Tombstones an element: searches pass through it but never return it. False if absent. */
export function markDeleted(storage: HnswStorage, id: number): boolean {
  const record = storage.get(id);
  if (record === undefined) return false;
  if (!record.deleted) {
    record.deleted = true;
    storage.put(id, record);
  }
  return true;
}

/**
 * Unlinks an element and repairs its neighbourhood: each element that linked to it
 * chooses its list again (heuristic) from its remaining links and the removed element's
 * links at that level. A removed entry point is replaced by an element of the greatest
 * level. False if the element is absent.
 */
export function remove(storage: HnswStorage, config: HnswConfig, id: number): boolean {
  const src = new WorkingSet(storage);
  const record = src.get(id);
  if (record === undefined) return false;
  const dist = distanceOf(config.metric);
  for (let l = 0; l <= record.level; l++) {
    const out = record.neighbours[l] ?? [];
    for (const y of out) {
      if (y === id) continue;
      removeValue(src.linked(y).inbound[l], id);
      src.changed(y);
    }
    for (const x of record.inbound[l] ?? []) {
      if (x === id) continue;
      const xr = src.linked(x);
      const links = xr.neighbours[l]!;
      removeValue(links, id);
      const pool = new Set<number>(links);
      for (const y of out) pool.add(y);
      pool.delete(x);
      pool.delete(id);
      const chosen = selectNeighbours(src, dist, around(src, dist, xr.vector, pool), maxLinks(config, l), config.keepPrunedConnections);
      relink(src, x, xr, l, chosen);
    }
  }
  src.forget(id);
  src.write();
  storage.remove(id);
  const entry = storage.entry();
  if (entry !== undefined && entry.id === id) storage.setEntry(nextEntry(storage, id, record));
  return true;
}

/**
 * The entry point after removing `id`, which was it. Elements linked with it at its level
 * are of that level, the greatest; only when there are none does it scan every id.
 */
function nextEntry(storage: HnswStorage, id: number, record: HnswRecord): { id: number; level: number } | undefined {
  const top = record.level;
  for (const lists of [record.neighbours, record.inbound]) {
    for (const n of lists[top] ?? []) if (n !== id && storage.get(n) !== undefined) return { id: n, level: top };
  }
  let best: { id: number; level: number } | undefined;
  for (const n of storage.ids()) {
    if (n === id) continue;
    const r = storage.get(n);
    if (r !== undefined && (best === undefined || r.level > best.level)) best = { id: n, level: r.level };
    if (best !== undefined && best.level >= top) break;
  }
  return best;
}

/**
 * The k nearest stored elements to `query`, nearest first (ties by id). Tombstones and ids
 * `accept` refuses are navigated through but never returned; with a very selective
 * `accept` this degrades towards visiting everything, so callers use brute force there.
 */
export function search(
  storage: HnswStorage,
  config: HnswConfig,
  query: Float32Array,
  k: number,
  ef: number = searchEf(k),
  accept?: (id: number) => boolean,
): Neighbour[] {
  if (k <= 0) return [];
  const entry = storage.entry();
  if (entry === undefined) return [];
  const entryRecord = storage.get(entry.id);
  if (entryRecord === undefined) throw new Error(`hnsw: the entry point ${entry.id} is not stored`);
  if (entryRecord.vector.length !== query.length) {
    throw new Error(`hnsw: the query has ${query.length} components, the index holds vectors of ${entryRecord.vector.length}`);
  }
  const dq = distanceFrom(config.metric, query);
  const start = descend(storage, dq, { id: entry.id, distance: dq(entryRecord.vector) }, entry.level, 0);
  const keep: Keep = accept === undefined ? live : (n, r) => !r.deleted && accept(n);
  const found = searchLayer(storage, dq, [start], Math.max(ef, k), 0, keep).sorted();
  if (found.length > k) found.length = k;
  return found;
}
