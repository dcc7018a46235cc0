/**
 * A row of a traversal stream (reference §5, "runtime data model"): the current element
 * (a node, an edge or none), the bindings made by `bind`, the path of elements visited,
 * the sack, and the virtual properties of a search hit. A plain hop allocates one Row and
 * shares everything else with its parent.
 */
import type { Value } from '../core/value.js';
import type { NodeRecord, EdgeRecord } from '../store/index.js';

export const NODE = 0;
export const EDGE = 1;
export const NONE = 2;
export type ElementKind = typeof NODE | typeof EDGE | typeof NONE;

/** An element on a path or in a binding: node id n is 2n, edge id e is 2e+1. */
export type ElementKey = number;
export const nodeKey = (id: number): ElementKey => id * 2;
export const edgeKey = (id: number): ElementKey => id * 2 + 1;
export const keyKind = (key: ElementKey): ElementKind => (key % 2 === 0 ? NODE : EDGE);
export const keyId = (key: ElementKey): number => Math.floor(key / 2);

export interface Binding {
  readonly key: ElementKey | null;
  readonly distance: number | undefined;
  readonly score: number | undefined;
}
export type Bindings = ReadonlyMap<string, Binding>;

export class Row {
  /** Cached record of the current element (read batches only; see ExecContext.cacheRecords). */
  rec: NodeRecord | EdgeRecord | undefined = undefined;

  constructor(
    readonly kind: ElementKind,
    readonly id: number,
    readonly bindings: Bindings | null = null,
    readonly path: readonly ElementKey[] | null = null,
    /** undefined: no sack set. */
    readonly sack: Value | undefined = undefined,
    readonly distance: number | undefined = undefined,
    readonly score: number | undefined = undefined,
  ) {}

  get key(): ElementKey | null {
    return this.kind === NODE ? nodeKey(this.id) : this.kind === EDGE ? edgeKey(this.id) : null;
  }

  /** The row moved to another element: bindings and sack carry over, virtual props clear. */
  moveTo(kind: typeof NODE | typeof EDGE, id: number, trackPath: boolean): Row {
    const path = trackPath ? [...(this.path ?? []), kind === NODE ? nodeKey(id) : edgeKey(id)] : null;
    return new Row(kind, id, this.bindings, path, this.sack);
  }

  withSack(sack: Value | undefined): Row {
    return new Row(this.kind, this.id, this.bindings, this.path, sack, this.distance, this.score);
  }

  withBindings(bindings: Bindings): Row {
    return new Row(this.kind, this.id, bindings, this.path, this.sack, this.distance, this.score);
  }
}

export function startRow(kind: typeof NODE | typeof EDGE, id: number, trackPath: boolean): Row {
  return new Row(kind, id, null, trackPath ? [kind === NODE ? nodeKey(id) : edgeKey(id)] : null);
}
