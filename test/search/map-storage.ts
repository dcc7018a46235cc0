/**
 * An in-memory HnswStorage for the search tests. With `copying`, records go in and come
 * out as copies, as they do through LMDB: an operation that changes a record and forgets
 * to put it back then shows up as a broken invariant instead of passing by aliasing.
 */
import type { HnswRecord, HnswStorage } from '../../src/search/hnsw.js';

const copy = (r: HnswRecord): HnswRecord => ({
  level: r.level,
  vector: r.vector.slice(),
  neighbours: r.neighbours.map((l) => l.slice()),
  inbound: r.inbound.map((l) => l.slice()),
  deleted: r.deleted,
});

export class MapStorage implements HnswStorage {
  readonly records = new Map<number, HnswRecord>();
  private top: { id: number; level: number } | undefined;
  gets = 0;

  constructor(private readonly copying = false) {}

  get(id: number): HnswRecord | undefined {
    this.gets++;
    const r = this.records.get(id);
    return r === undefined || !this.copying ? r : copy(r);
  }

  put(id: number, record: HnswRecord): void {
    this.records.set(id, this.copying ? copy(record) : record);
  }

  remove(id: number): void {
    this.records.delete(id);
  }

  entry(): { id: number; level: number } | undefined {
    return this.top === undefined ? undefined : { ...this.top };
  }

  setEntry(entry: { id: number; level: number } | undefined): void {
    this.top = entry === undefined ? undefined : { ...entry };
  }

  ids(): Iterable<number> {
    return [...this.records.keys()];
  }
}
