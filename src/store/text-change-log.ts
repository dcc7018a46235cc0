/**
 * The posting changes one write batch makes to one partition of a text index, collected
 * until the batch flushes (text-postings.ts). A bulk load changes millions of postings
 * per batch, so they go into three growing typed arrays (term number, element id, change)
 * rather than a list per term: a change costs one Map look-up of its term and three
 * stores, and the garbage collector sees a handful of objects. `terms()` hands each term's
 * changes over by ascending element id, the last change of an element winning.
 */

export interface TermRun {
  readonly term: string;
  /** Ascending element ids, each once. */
  readonly ids: ArrayLike<number>;
  /** The change of each: a packed posting or REMOVED (text-term-writer.ts). */
  readonly changes: ArrayLike<number>;
}

export class ChangeLog {
  private readonly numbers = new Map<string, number>();
  private readonly names: string[] = [];
  private termOf = new Int32Array(1024);
  private idOf = new Float64Array(1024);
  private changeOf = new Float64Array(1024);
  private length = 0;

  get size(): number {
    return this.length;
  }

  add(term: string, id: number, change: number): void {
    let number = this.numbers.get(term);
    if (number === undefined) {
      number = this.names.length;
      this.numbers.set(term, number);
      this.names.push(term);
    }
    if (this.length === this.termOf.length) this.grow();
    this.termOf[this.length] = number;
    this.idOf[this.length] = id;
    this.changeOf[this.length] = change;
    this.length++;
  }

  private grow(): void {
    const size = this.termOf.length * 2;
    const termOf = new Int32Array(size);
    termOf.set(this.termOf);
    const idOf = new Float64Array(size);
    idOf.set(this.idOf);
    const changeOf = new Float64Array(size);
    changeOf.set(this.changeOf);
    this.termOf = termOf;
    this.idOf = idOf;
    this.changeOf = changeOf;
  }

  /** Each term's changes, terms in the order first changed (sorting them by key measured no faster). */
  *terms(): Iterable<TermRun> {
    const n = this.names.length;
    // A counting sort by term keeps each term's changes in the order they were made.
    const start = new Int32Array(n + 1);
    for (let i = 0; i < this.length; i++) start[this.termOf[i]! + 1]!++;
    for (let t = 0; t < n; t++) start[t + 1]! += start[t]!;
    const fill = start.slice(0, n);
    const ids = new Float64Array(this.length);
    const changes = new Float64Array(this.length);
    for (let i = 0; i < this.length; i++) {
      const at = fill[this.termOf[i]!]!++;
      ids[at] = this.idOf[i]!;
      changes[at] = this.changeOf[i]!;
    }
    for (let t = 0; t < n; t++) {
      const from = start[t]!;
      const to = start[t + 1]!;
      let ascending = true;
      for (let i = from + 1; i < to && ascending; i++) ascending = ids[i - 1]! < ids[i]!;
      if (ascending) yield { term: this.names[t]!, ids: ids.subarray(from, to), changes: changes.subarray(from, to) };
      else yield { term: this.names[t]!, ...lastChanges(ids.subarray(from, to), changes.subarray(from, to)) };
    }
  }
}

/** The last change of each element, by ascending id. */
function lastChanges(ids: Float64Array, changes: Float64Array): { ids: number[]; changes: number[] } {
  const last = new Map<number, number>();
  for (let i = 0; i < ids.length; i++) last.set(ids[i]!, changes[i]!);
  const sorted = [...last.keys()].sort((a, b) => a - b);
  return { ids: sorted, changes: sorted.map((id) => last.get(id)!) };
}
