/**
 * Graph access over the LMDB sub-databases. Every lmdb-js call here runs in whatever
 * transaction is current: the write transaction inside `Store.write`, otherwise the
 * thread's read snapshot that `Store.read` renewed.
 */
import type { Database } from 'lmdb';
import type { ValueObject } from '../value.js';
import type { Adjacent, EdgeRecord, GraphReader, GraphWriter, NodeRecord } from './types.js';
import { HIGH, META } from './layout.js';
import type { AdjacencyKey, LabelKey, StoredEdge, StoredNode } from './layout.js';

export interface Dbs {
  readonly nodes: Database<StoredNode, number>;
  readonly edges: Database<StoredEdge, number>;
  readonly out: Database<Uint8Array, AdjacencyKey>;
  readonly in: Database<Uint8Array, AdjacencyKey>;
  readonly nodeLabels: Database<Uint8Array, LabelKey>;
  readonly edgeLabels: Database<Uint8Array, LabelKey>;
  readonly meta: Database<number, string>;
}

/** Next free ids, owned by the store so they advance across write batches. */
export interface IdState {
  nextNode: number;
  nextEdge: number;
}

/** Index entries carry everything in the key. */
const EMPTY = new Uint8Array(0);

const secondOf = (k: LabelKey): number => k[1];

/**
 * Labels longer than this cannot be stored (the query layer caps them at 512 bytes), so a
 * lookup for one finds nothing, without building a key LMDB would refuse.
 */
const MAX_STORED_LABEL_BYTES = 1024;
const storable = (label: string): boolean => label.length <= MAX_STORED_LABEL_BYTES / 3 || Buffer.byteLength(label) <= MAX_STORED_LABEL_BYTES;
const toAdjacent = (k: AdjacencyKey): Adjacent => ({ edge: k[3], label: k[1], other: k[2] });

export class GraphReadView implements GraphReader {
  constructor(protected readonly dbs: Dbs) {}

  getNode(id: number): NodeRecord | undefined {
    const v = this.dbs.nodes.get(id);
    return v === undefined ? undefined : { id, label: v[0], props: v[1] as ValueObject };
  }

  getEdge(id: number): EdgeRecord | undefined {
    const v = this.dbs.edges.get(id);
    return v === undefined ? undefined : { id, label: v[0], from: v[1], to: v[2], props: v[3] as ValueObject };
  }

  hasNode(id: number): boolean {
    return this.dbs.nodes.doesExist(id);
  }

  hasEdge(id: number): boolean {
    return this.dbs.edges.doesExist(id);
  }

  nodeIds(): Iterable<number> {
    return this.dbs.nodes.getKeys();
  }

  nodeIdsByLabel(label: string): Iterable<number> {
    if (!storable(label)) return [];
    return this.dbs.nodeLabels.getKeys({ start: [label] as unknown as LabelKey, end: [label, HIGH] as unknown as LabelKey }).map(secondOf);
  }

  edgeIds(): Iterable<number> {
    return this.dbs.edges.getKeys();
  }

  edgeIdsByLabel(label: string): Iterable<number> {
    if (!storable(label)) return [];
    return this.dbs.edgeLabels.getKeys({ start: [label] as unknown as LabelKey, end: [label, HIGH] as unknown as LabelKey }).map(secondOf);
  }

  outEdges(node: number, label?: string): Iterable<Adjacent> {
    return adjacency(this.dbs.out, node, label);
  }

  inEdges(node: number, label?: string): Iterable<Adjacent> {
    return adjacency(this.dbs.in, node, label);
  }

  nodeCount(): number {
    return this.dbs.meta.get(META.nodeCount) ?? 0;
  }

  edgeCount(): number {
    return this.dbs.meta.get(META.edgeCount) ?? 0;
  }
}

function adjacency(db: Database<Uint8Array, AdjacencyKey>, node: number, label: string | undefined): Iterable<Adjacent> {
  if (label !== undefined && !storable(label)) return [];
  // [n] sorts before every [n, ...] and [n + 1] after them; with a label, HIGH closes the range.
  const range =
    label === undefined
      ? { start: [node], end: [node + 1] }
      : { start: [node, label], end: [node, label, HIGH] };
  return db.getKeys(range as unknown as { start: AdjacencyKey; end: AdjacencyKey }).map(toAdjacent);
}

/**
 * One write batch. Counts and the id high-water marks are kept here and written to
 * `meta` once, in `finish`, inside the same child transaction as the data.
 */
export class GraphWriteView extends GraphReadView implements GraphWriter {
  private nodeDelta = 0;
  private edgeDelta = 0;
  private idsSynced = false;
  private allocated = false;

  constructor(dbs: Dbs, private readonly ids: IdState) {
    super(dbs);
  }

  override nodeCount(): number {
    return super.nodeCount() + this.nodeDelta;
  }

  override edgeCount(): number {
    return super.edgeCount() + this.edgeDelta;
  }

  createNode(label: string, props: ValueObject): number {
    this.syncIds();
    const id = this.ids.nextNode++;
    this.dbs.nodes.putSync(id, [label, props]);
    this.dbs.nodeLabels.putSync([label, id], EMPTY);
    this.nodeDelta++;
    return id;
  }

  createEdge(label: string, from: number, to: number, props: ValueObject): number {
    this.syncIds();
    const id = this.ids.nextEdge++;
    this.dbs.edges.putSync(id, [label, from, to, props]);
    this.dbs.out.putSync([from, label, to, id], EMPTY);
    this.dbs.in.putSync([to, label, from, id], EMPTY);
    this.dbs.edgeLabels.putSync([label, id], EMPTY);
    this.edgeDelta++;
    return id;
  }

  putNode(node: NodeRecord): void {
    const old = this.dbs.nodes.get(node.id);
    if (old === undefined) throw new Error(`putNode: node ${node.id} does not exist`);
    if (old[0] !== node.label) {
      this.dbs.nodeLabels.removeSync([old[0], node.id]);
      this.dbs.nodeLabels.putSync([node.label, node.id], EMPTY);
    }
    this.dbs.nodes.putSync(node.id, [node.label, node.props]);
  }

  putEdgeProps(id: number, props: ValueObject): void {
    const old = this.dbs.edges.get(id);
    if (old === undefined) throw new Error(`putEdgeProps: edge ${id} does not exist`);
    this.dbs.edges.putSync(id, [old[0], old[1], old[2], props]);
  }

  deleteNode(id: number): boolean {
    const old = this.dbs.nodes.get(id);
    if (old === undefined) return false;
    // Collected before deleting: removing entries under an open cursor is not safe.
    const outgoing = [...this.outEdges(id)];
    for (const a of outgoing) this.removeEdge(a.edge, a.label, id, a.other);
    const incoming = [...this.inEdges(id)];
    for (const a of incoming) this.removeEdge(a.edge, a.label, a.other, id);
    this.dbs.nodeLabels.removeSync([old[0], id]);
    this.dbs.nodes.removeSync(id);
    this.nodeDelta--;
    return true;
  }

  deleteEdge(id: number): boolean {
    const old = this.dbs.edges.get(id);
    if (old === undefined) return false;
    this.removeEdge(id, old[0], old[1], old[2]);
    return true;
  }

  /** Called after the batch's function returned, still inside its transaction. */
  finish(): void {
    const meta = this.dbs.meta;
    if (this.allocated) {
      meta.putSync(META.nextNode, this.ids.nextNode);
      meta.putSync(META.nextEdge, this.ids.nextEdge);
    }
    if (this.nodeDelta !== 0) meta.putSync(META.nodeCount, super.nodeCount() + this.nodeDelta);
    if (this.edgeDelta !== 0) meta.putSync(META.edgeCount, super.edgeCount() + this.edgeDelta);
  }

  private removeEdge(id: number, label: string, from: number, to: number): void {
    this.dbs.out.removeSync([from, label, to, id]);
    this.dbs.in.removeSync([to, label, from, id]);
    this.dbs.edgeLabels.removeSync([label, id]);
    this.dbs.edges.removeSync(id);
    this.edgeDelta--;
  }

  /**
   * Another handle (or process) may have allocated since this one last did, so `meta`
   * is consulted once per batch; the in-memory counters keep ids that a rolled-back
   * batch was given from being handed out again.
   */
  private syncIds(): void {
    if (this.idsSynced) return;
    this.idsSynced = true;
    this.allocated = true;
    const meta = this.dbs.meta;
    this.ids.nextNode = Math.max(this.ids.nextNode, meta.get(META.nextNode) ?? 0);
    this.ids.nextEdge = Math.max(this.ids.nextEdge, meta.get(META.nextEdge) ?? 0);
  }
}
