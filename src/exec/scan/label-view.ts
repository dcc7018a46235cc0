/**
 * Label views: the nodes of one label gathered out of the property columns into blocks of
 * their own, for a read request that scans the same label more than once (a `for_each`
 * body runs its scan once per element). A stored block holds 1024 consecutive node ids
 * whatever their labels, so a scan of a 50-node label in a 10,000-node database visits ten
 * blocks and tests 10,240 slots; the label's gathered block holds those 50 nodes and
 * nothing else, with their values of each property the scans read as one chunk per
 * property, in the store's own chunk format (src/store/columns.ts), so the scan's compiled
 * predicates and its top-k run on it unchanged.
 *
 * A view belongs to one read request (one Exec): the request reads one snapshot, which no
 * write can change, so what was gathered stays exact until the request ends, and nothing
 * outlives it. Write batches, which see their own writes, have no views.
 */
import { chunkValue, decodeChunk, encodeChunk, type ColumnChunk, COLUMN_BLOCK, type GraphReader } from '../../store/index.js';
import type { Value } from '../../core/value.js';

/** Slots of a block: a stored block holds this many consecutive node ids (store/columns.ts). */
export const SLOTS = COLUMN_BLOCK;

/** One block of nodes as a scan reads it: stored (1024 consecutive ids) or gathered (one label's nodes). */
export interface ScanBlock {
  /** The id of slot 0 of a stored block. */
  readonly base: number;
  /** The node id of every slot of a gathered block; null for a stored one, whose slot i is base + i. */
  readonly ids: Float64Array | null;
  /** Slots in use: 1024 in a stored block, the nodes it holds in a gathered one (slots past it hold none). */
  readonly size: number;
  /** Label id per slot; 0 where there is no node. */
  readonly labels: Uint32Array;
  /** 1 where the slot holds a node, else 0. */
  readonly nodes: Uint8Array;
  /** The label of every node of the block when they share one, else 0. */
  readonly uniform: number;
  /** A property's chunk over the block's slots; null when no node of the block has it. */
  chunk(property: string): ColumnChunk | null;
}

export class GatheredBlock implements ScanBlock {
  readonly base = 0;
  readonly labels = new Uint32Array(SLOTS);
  readonly nodes = new Uint8Array(SLOTS);
  /** Per gathered property: its chunk, or null when no node has it. */
  readonly chunks = new Map<string, ColumnChunk | null>();
  readonly size: number;

  constructor(
    readonly ids: Float64Array,
    readonly uniform: number,
  ) {
    this.size = ids.length;
    this.labels.fill(uniform, 0, this.size);
    this.nodes.fill(1, 0, this.size);
  }

  chunk(property: string): ColumnChunk | null {
    return this.chunks.get(property) ?? null;
  }
}

/** Labels with more nodes than this are scanned from the stored blocks every time. */
const MAX_GATHERED = 1 << 20;

/** One label's gathered nodes. */
export class LabelView {
  /** Orders of the nodes by sort keys, built once per request (scan.ts). */
  private readonly orders = new Map<string, Uint32Array>();

  constructor(
    /** Ascending by id; empty when the label has no node. */
    readonly blocks: readonly GatheredBlock[],
  ) {}

  /** The order cached under `key`, made by `make` the first time. */
  order(key: string, make: () => Uint32Array): Uint32Array {
    let order = this.orders.get(key);
    if (order === undefined) {
      order = make();
      this.orders.set(key, order);
    }
    return order;
  }
}

/** What one read request keeps for its scans: label views, and preparations of scans. */
export class ScanCache {
  /** Scans of each label so far in this request. */
  private readonly scans = new Map<string, number>();
  /** Gathered nodes per label; null once the label proved too large to gather. */
  private readonly views = new Map<string, LabelView | null>();
  /** Per scan of the plan, what scan.ts prepared for it, when that depends on no parameter. */
  private readonly prepared = new Map<object, object>();

  constructor(private readonly store: GraphReader) {}

  /** What `make` prepares for the scan `key`, made once per request. */
  preparation<T extends object>(key: object, make: () => T): T {
    let found = this.prepared.get(key) as T | undefined;
    if (found === undefined) {
      found = make();
      this.prepared.set(key, found);
    }
    return found;
  }

  /**
   * The nodes of `label` gathered with the chunks of `properties`; null when the scan
   * should read the stored blocks: the first scan of a label in a request (a scan that
   * runs once gains nothing from gathering first), or a label with more than
   * MAX_GATHERED nodes.
   */
  view(label: string, properties: readonly string[]): LabelView | null {
    let view = this.views.get(label);
    if (view === undefined) {
      const scans = (this.scans.get(label) ?? 0) + 1;
      this.scans.set(label, scans);
      if (scans < 2) return null;
      const blocks = this.gather(label, properties);
      view = blocks === null ? null : new LabelView(blocks);
      this.views.set(label, view);
      return view;
    }
    const first = view?.blocks[0];
    if (first === undefined) return view; // too large to gather, or no node has the label
    let missing: string[] | undefined;
    for (const p of properties) if (!first.chunks.has(p)) (missing ??= []).push(p);
    if (missing !== undefined) this.addProperties(view!.blocks, missing);
    return view;
  }

  /** Gathers the label's nodes into blocks with the chunks of `properties`. */
  private gather(label: string, properties: readonly string[]): GatheredBlock[] | null {
    const labelId = this.store.labelId(label);
    if (labelId === undefined) return [];
    const read = this.read(labelId, properties);
    if (read === null) return null;
    const { ids, values } = read;
    const blocks: GatheredBlock[] = [];
    for (let at = 0; at < ids.length; at += SLOTS) {
      const block = new GatheredBlock(Float64Array.from(ids.slice(at, at + SLOTS)), labelId);
      properties.forEach((p, k) => block.chunks.set(p, chunkOf(values[k]!.slice(at, at + SLOTS))));
      blocks.push(block);
    }
    return blocks;
  }

  /** Gathers more properties into a view: one snapshot, so the same nodes come in the same order. */
  private addProperties(view: readonly GatheredBlock[], properties: readonly string[]): void {
    const { values } = this.read(view[0]!.uniform, properties)!;
    view.forEach((block, b) =>
      properties.forEach((p, k) => block.chunks.set(p, chunkOf(values[k]!.slice(b * SLOTS, b * SLOTS + block.size)))),
    );
  }

  /**
   * One pass over the stored blocks: the ids of the label's nodes, ascending, and per
   * property their values (undefined where missing); null past MAX_GATHERED nodes.
   */
  private read(labelId: number, properties: readonly string[]): { ids: number[]; values: (Value | undefined)[][] } | null {
    const ids: number[] = [];
    const values: (Value | undefined)[][] = properties.map(() => []);
    for (const block of this.store.nodeColumns(properties)) {
      if (block.uniform !== 0 && block.uniform !== labelId) continue;
      for (let i = 0; i < SLOTS; i++) {
        if (block.labels[i] !== labelId) continue;
        if (ids.length === MAX_GATHERED) return null;
        ids.push(block.base + i);
        for (let p = 0; p < properties.length; p++) {
          const chunk = block.columns[p] ?? null;
          values[p]!.push(chunk === null ? undefined : chunkValue(chunk, i));
        }
      }
    }
    return { ids, values };
  }
}

/** The chunk of one gathered block's values (undefined: the node lacks the property). */
function chunkOf(values: readonly (Value | undefined)[]): ColumnChunk | null {
  const bytes = encodeChunk(values);
  return bytes === null ? null : decodeChunk(bytes);
}
