/**
 * A set of element ids, added in ascending order: the candidates of a `_within` search
 * made by a scan (rows.ts scanIds), without a row per element. Once complete it answers
 * `has` from a bitmap when the ids are dense enough (a bit per id of their span), else by
 * a binary search of the sorted list; `keys` lists them ascending either way.
 */
import type { Candidates } from '../../store/index.js';

/** A bitmap is used while its span is at most this many bits per id (and a small floor). */
const BITS_PER_ID = 64;
const MIN_SPAN = 4096;

export class IdSet implements Candidates {
  private ids = new Float64Array(1024);
  private count = 0;
  private bits: Uint32Array | null = null;
  private low = 0;

  get size(): number {
    return this.count;
  }

  /**
   * Adds the slots of a block of ids base, base + 1, ... that hold an element (`labels`
   * not 0) and pass `mask` (null: all do), all greater than every id added before.
   */
  pushSlots(base: number, size: number, labels: Uint32Array, mask: Uint8Array | null): void {
    if (this.count + size > this.ids.length) {
      const grown = new Float64Array(Math.max(this.ids.length * 2, this.count + size));
      grown.set(this.ids.subarray(0, this.count));
      this.ids = grown;
    }
    const ids = this.ids;
    let n = this.count;
    if (mask === null) {
      for (let i = 0; i < size; i++) if (labels[i] !== 0) ids[n++] = base + i;
    } else {
      for (let i = 0; i < size; i++) if (mask[i] !== 0 && labels[i] !== 0) ids[n++] = base + i;
    }
    this.count = n;
  }

  /** Adds an id greater than every id added before. */
  push(id: number): void {
    if (this.count === this.ids.length) {
      const grown = new Float64Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.count++] = id;
  }

  /** Makes the lookup structure: call once every id is added. */
  done(): this {
    if (this.count === 0) return this;
    this.low = this.ids[0]!;
    const span = this.ids[this.count - 1]! - this.low + 1;
    if (span <= Math.max(MIN_SPAN, BITS_PER_ID * this.count)) {
      const bits = new Uint32Array(Math.ceil(span / 32));
      for (let i = 0; i < this.count; i++) {
        const at = this.ids[i]! - this.low;
        bits[at >>> 5]! |= 1 << (at & 31);
      }
      this.bits = bits;
    }
    return this;
  }

  /** The memory it holds: its list and its bitmap. */
  get bytes(): number {
    return this.ids.byteLength + (this.bits?.byteLength ?? 0);
  }

  has(id: number): boolean {
    const bits = this.bits;
    if (bits !== null) {
      const at = id - this.low;
      return at >= 0 && at < bits.length * 32 && (bits[at >>> 5]! & (1 << (at & 31))) !== 0;
    }
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ids[mid]!;
      if (v === id) return true;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  *keys(): Generator<number> {
    for (let i = 0; i < this.count; i++) yield this.ids[i]!;
  }
}
