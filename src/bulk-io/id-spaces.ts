/**
 * Node keys by id space (neo4j-admin's `:ID(Space)`): an edge names its ends by key, and
 * the import looks the key up in its space. Integer keys that are small and dense (row
 * numbers, generated ids) live in a typed array indexed by the key; others in a Map.
 */
import type { Key } from './convert.js';

/** Dense keys are kept in an array while the largest is below this and at most 8 slots per key. */
const DENSE_LIMIT = 2 ** 28;

export class IdSpace {
  /** id + 1 by key (0: none), for integer keys 0 <= key < dense.length. */
  private dense = new Float64Array(1024);
  private denseCount = 0;
  private readonly map = new Map<Key, number>();
  private size = 0;

  /** Adds a key; false when the space already holds it. */
  add(key: Key, id: number): boolean {
    const k = normalKey(key);
    if (typeof k === 'number' && k >= 0 && k < DENSE_LIMIT && k <= 8 * (this.size + 1024)) {
      this.ensure(k);
      if (this.dense[k] !== 0 || this.map.has(k)) return false;
      this.dense[k] = id + 1;
      this.denseCount++;
      this.size++;
      return true;
    }
    if (this.map.has(k) || (typeof k === 'number' && k >= 0 && k < this.dense.length && this.dense[k] !== 0)) return false;
    this.map.set(k, id);
    this.size++;
    return true;
  }

  /** Sets the id of a key already added (added before its id was known). */
  set(key: Key, id: number): void {
    const k = normalKey(key);
    if (typeof k === 'number' && k >= 0 && k < this.dense.length && this.dense[k] !== 0) this.dense[k] = id + 1;
    else this.map.set(k, id);
  }

  get(key: Key): number | undefined {
    // Numbers first: every edge end is looked up here.
    if (typeof key === 'number') {
      if (key >= 0 && key < this.dense.length) {
        const v = this.dense[key]!;
        if (v !== 0) return v - 1;
      }
      return this.map.get(key);
    }
    const k = normalKey(key);
    if (typeof k === 'number') return this.get(k);
    return this.map.get(k);
  }

  private ensure(k: number): void {
    if (k < this.dense.length) return;
    let length = this.dense.length;
    while (length <= k) length *= 2;
    const grown = new Float64Array(length);
    grown.set(this.dense);
    this.dense = grown;
  }
}

/** A bigint within ±2^53 is the number; text stays text (so "1" and 1 are different keys). */
export function normalKey(key: Key): Key {
  return typeof key === 'bigint' && Number.isSafeInteger(Number(key)) ? Number(key) : key;
}

export class IdSpaces {
  private readonly spaces = new Map<string, IdSpace>();

  /** The space of that name, made on first use. */
  of(name: string): IdSpace {
    let space = this.spaces.get(name);
    if (space === undefined) this.spaces.set(name, (space = new IdSpace()));
    return space;
  }

  has(name: string): boolean {
    return this.spaces.has(name);
  }
}
