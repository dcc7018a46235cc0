/**
 * Label and property names <-> small ids, so keys and chunks carry 4-byte ids instead of
 * strings. Ids are allocated by the writer, never reused, and a name never changes id, so
 * every thread may cache what it has read: a name it has not cached is looked up in the
 * current transaction, and a name that is not there does not exist in that snapshot.
 *
 * Keys: "l:<label>" -> id, "L:<id>" -> label, and "p:" / "P:" for property names.
 */
import { MAX_NAME_BYTES, META, type DictionaryDb, type MetaDb } from './layout.js';

export type NameKind = 'label' | 'property';

const NAME_KEY = { label: 'l:', property: 'p:' } as const;
const ID_KEY = { label: 'L:', property: 'P:' } as const;
const COUNTER = { label: META.nextLabel, property: META.nextProperty } as const;

/** A name the store can hold: at most MAX_NAME_BYTES of UTF-8 (a dictionary key). */
export function storableName(name: string): boolean {
  return name.length <= MAX_NAME_BYTES / 3 || Buffer.byteLength(name) <= MAX_NAME_BYTES;
}

/** The committed names one thread has seen. */
export class Dictionary {
  private readonly ids = { label: new Map<string, number>(), property: new Map<string, number>() };
  private readonly names = { label: new Map<number, string>(), property: new Map<number, string>() };

  constructor(
    private readonly db: DictionaryDb,
    private readonly meta: MetaDb,
  ) {}

  /** The id of a name in the current transaction, or undefined when it has none. */
  id(kind: NameKind, name: string): number | undefined {
    const cached = this.ids[kind].get(name);
    if (cached !== undefined) return cached;
    if (!storableName(name)) return undefined;
    const id = this.db.get(NAME_KEY[kind] + name) as number | undefined;
    if (id !== undefined) this.remember(kind, name, id);
    return id;
  }

  name(kind: NameKind, id: number): string {
    const cached = this.names[kind].get(id);
    if (cached !== undefined) return cached;
    const name = this.db.get(ID_KEY[kind] + id) as string | undefined;
    if (name === undefined) throw new Error(`storage: ${kind} id ${id} has no name in the dictionary`);
    this.remember(kind, name, id);
    return name;
  }

  /** Forgets every cached name (after a failed commit whose names it may have cached). */
  forget(): void {
    for (const kind of ['label', 'property'] as const) {
      this.ids[kind].clear();
      this.names[kind].clear();
    }
  }

  remember(kind: NameKind, name: string, id: number): void {
    this.ids[kind].set(name, id);
    this.names[kind].set(id, name);
  }

  /** Next free id of a kind, as stored. */
  storedNext(kind: NameKind): number {
    return this.meta.get(COUNTER[kind]) ?? 1;
  }

  /** Writes a new entry and the counter (inside the caller's write transaction). */
  put(kind: NameKind, name: string, id: number): void {
    this.db.putSync(NAME_KEY[kind] + name, id);
    this.db.putSync(ID_KEY[kind] + id, name);
    this.meta.putSync(COUNTER[kind], id + 1);
  }
}

/**
 * A write batch's view of the dictionary: names it adds are its own until the batch
 * finishes, so a rolled-back batch leaves no trace in any thread's cache.
 */
export class BatchDictionary {
  private readonly added: { kind: NameKind; name: string; id: number }[] = [];
  private readonly pending = { label: new Map<string, number>(), property: new Map<string, number>() };
  private readonly pendingNames = { label: new Map<number, string>(), property: new Map<number, string>() };

  constructor(
    private readonly shared: Dictionary,
    /** Next free ids, kept by the store across batches (a rolled-back id is never handed out again). */
    private readonly next: Record<NameKind, number>,
  ) {}

  id(kind: NameKind, name: string): number | undefined {
    return this.pending[kind].get(name) ?? this.shared.id(kind, name);
  }

  name(kind: NameKind, id: number): string {
    return this.pendingNames[kind].get(id) ?? this.shared.name(kind, id);
  }

  /** The id of a name, allocating one if it has none yet. */
  assign(kind: NameKind, name: string): number {
    const known = this.id(kind, name);
    if (known !== undefined) return known;
    if (!storableName(name)) throw new Error(`storage: a ${kind} name is at most ${MAX_NAME_BYTES} bytes of UTF-8`);
    const id = Math.max(this.next[kind], this.shared.storedNext(kind));
    this.next[kind] = id + 1;
    this.shared.put(kind, name, id);
    this.pending[kind].set(name, id);
    this.pendingNames[kind].set(id, name);
    this.added.push({ kind, name, id });
    return id;
  }

  /** Called at the end of a batch that succeeded: its names become shared knowledge. */
  publish(): void {
    for (const { kind, name, id } of this.added) this.shared.remember(kind, name, id);
  }
}
