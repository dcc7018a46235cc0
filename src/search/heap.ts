/**
 * Binary heaps of (distance, id) pairs, ordered by distance then id, so equal distances
 * come out in one order on every run. Parallel arrays, no object per entry: a search
 * pushes thousands of them.
 */

/** a before b: smaller distance, or equal distance and smaller id. */
export const before = (da: number, ia: number, db: number, ib: number): boolean => da < db || (da === db && ia < ib);

abstract class PairHeap {
  protected readonly d: number[] = [];
  protected readonly ids: number[] = [];

  get size(): number {
    return this.d.length;
  }

  /** True when the entry at i belongs above the entry at j. */
  protected abstract above(i: number, j: number): boolean;

  /** Distance of the top entry (the heap must not be empty). */
  topDistance(): number {
    return this.d[0]!;
  }

  topId(): number {
    return this.ids[0]!;
  }

  push(distance: number, id: number): void {
    const d = this.d;
    const ids = this.ids;
    let i = d.length;
    d.push(distance);
    ids.push(id);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.above(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  /** Removes the top entry; read it first with topDistance/topId. */
  pop(): void {
    const d = this.d;
    const ids = this.ids;
    const last = d.length - 1;
    d[0] = d[last]!;
    ids[0] = ids[last]!;
    d.pop();
    ids.pop();
    const n = d.length;
    let i = 0;
    while (true) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.above(r, l) ? r : l;
      if (!this.above(c, i)) break;
      this.swap(i, c);
      i = c;
    }
  }

  private swap(i: number, j: number): void {
    const d = this.d;
    const ids = this.ids;
    const td = d[i]!;
    d[i] = d[j]!;
    d[j] = td;
    const ti = ids[i]!;
    ids[i] = ids[j]!;
    ids[j] = ti;
  }

  /** The entries, nearest first. */
  sorted(): { id: number; distance: number }[] {
    const out = this.d.map((distance, i) => ({ id: this.ids[i]!, distance }));
    return out.sort((a, b) => a.distance - b.distance || a.id - b.id);
  }
}

/** Nearest on top: the candidates a search expands next. */
export class MinHeap extends PairHeap {
  protected above(i: number, j: number): boolean {
    return before(this.d[i]!, this.ids[i]!, this.d[j]!, this.ids[j]!);
  }
}

/** Farthest on top: the best `ef` found so far, whose top is the bar to beat. */
export class MaxHeap extends PairHeap {
  protected above(i: number, j: number): boolean {
    return before(this.d[j]!, this.ids[j]!, this.d[i]!, this.ids[i]!);
  }
}
