/**
 * Growable columns of pending adjacency appends, and their order by key: a write batch
 * logs every append and writes the lists once, in key order, when it finishes.
 */
/** Entries the columns hold room for at their first growth. */
const FIRST_ROOM = 1024;

export class AppendLog {
  n = 0;
  // Empty until the first append: every write batch makes a log, and most small ones
  // (a node's properties) append nothing; four zeroed arrays of 1,024 per batch were
  // about 3% of a one-node batch's time on the writer thread.
  keys = new Float64Array(0);
  labels = new Uint32Array(0);
  others = new Float64Array(0);
  edges = new Float64Array(0);

  push(key: number, labelId: number, other: number, edge: number): void {
    if (this.n === this.keys.length) this.grow();
    const i = this.n++;
    this.keys[i] = key;
    this.labels[i] = labelId;
    this.others[i] = other;
    this.edges[i] = edge;
  }

  /** Makes room for `more` entries at once (a batch that knows how many it appends grows once, not by doubling). */
  reserve(more: number): void {
    if (this.n + more > this.keys.length) this.grow(this.n + more);
  }

  private grow(atLeast = 0): void {
    const size = Math.max(this.keys.length * 2, atLeast, FIRST_ROOM);
    const keys = new Float64Array(size);
    keys.set(this.keys);
    const labels = new Uint32Array(size);
    labels.set(this.labels);
    const others = new Float64Array(size);
    others.set(this.others);
    const edges = new Float64Array(size);
    edges.set(this.edges);
    Object.assign(this, { keys, labels, others, edges });
  }

  /**
   * The entries ordered by (key, append order), as columns of their own, so that the
   * writer then reads them front to back (gathering through an index permutation costs a
   * cache miss per entry and column). When the keys span a range not much larger than the
   * entries (a load into a fresh or dense graph), a counting sort scatters them in linear
   * time; otherwise keys below 2^31 and fewer than 2^22 entries pack into one exactly
   * representable double each for a typed-array sort, and anything larger takes the
   * comparator sort.
   */
  sorted(): SortedAppends {
    const n = this.n;
    const keys = this.keys;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      if (k < min) min = k;
      if (k > max) max = k;
    }
    const out = new SortedAppends(n);
    if (max - min < 4 * n + 1024) {
      const next = new Uint32Array(max - min + 2);
      for (let i = 0; i < n; i++) next[keys[i]! - min + 1]!++;
      for (let k = 1; k < next.length; k++) next[k]! += next[k - 1]!;
      for (let i = 0; i < n; i++) out.set(next[keys[i]! - min]!++, this, i);
      return out;
    }
    let order: Uint32Array | number[];
    if (n >= 2 ** 22 || max >= 2 ** 31) {
      order = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
    } else {
      const packed = new Float64Array(n);
      for (let i = 0; i < n; i++) packed[i] = keys[i]! * 2 ** 22 + i;
      packed.sort();
      order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[i] = packed[i]! % 2 ** 22;
    }
    for (let k = 0; k < n; k++) out.set(k, this, order[k]!);
    return out;
  }
}

/** Appends in key order (AppendLog.sorted). */
export class SortedAppends {
  readonly keys: Float64Array;
  readonly labels: Uint32Array;
  readonly others: Float64Array;
  readonly edges: Float64Array;

  constructor(readonly n: number) {
    this.keys = new Float64Array(n);
    this.labels = new Uint32Array(n);
    this.others = new Float64Array(n);
    this.edges = new Float64Array(n);
  }

  /** Entry `at` becomes entry `i` of `log`. */
  set(at: number, log: AppendLog | SortedAppends, i: number): void {
    this.keys[at] = log.keys[i]!;
    this.labels[at] = log.labels[i]!;
    this.others[at] = log.others[i]!;
    this.edges[at] = log.edges[i]!;
  }
}
