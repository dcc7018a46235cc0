/**
 * Graph access over the LMDB sub-databases (layout.ts). Every lmdb-js call here runs in
 * whatever transaction is current: the write transaction inside `Store.write`, otherwise
 * the thread's read snapshot that `Store.read` renewed.
 *
 * A write batch (GraphWriteView) keeps edge blocks, adjacency appends and column chunks in
 * memory and writes each once when it finishes; its own reads of that data first write
 * out what they would read, so a batch always sees its own writes.
 */
import { asBinary } from 'lmdb';
import type { Value, ValueObject } from '../core/value.js';
import { markNegativeZeros } from '../core/value-msgpack.js';
import { AdjacencyEdits, AdjacencyReader, type Pairs } from './adjacency.js';
import { cellOf, cellsOf, PropertyMapWriter, type BulkColumn } from './bulk-columns.js';
import { type ChunkCache, ColumnEdits, ColumnReader, type SlotCache, type ColumnBlock, type LabelChunk } from './columns.js';
import { BatchDictionary, type Dictionary, storableName, type NameKind } from './dictionary.js';
import { EdgeEdits, EdgeReader, type StoredEdge } from './edge-blocks.js';
import { readU64, scratchIdKey as idKey } from './keys.js';
import { COLUMN_BLOCK, IN, META, NODE_ID_LIMIT, OUT, type Dbs, type Dir } from './layout.js';
import type {
  Adjacent,
  Direction,
  EdgeRecord,
  GraphReader,
  GraphWriter,
  NodeRecord,
  IndexBacklog,
  TextHit,
  VectorBacklog,
  VectorHit,
  VectorQuery,
} from './types.js';
import {
  CatalogWriter,
  operationStatus,
  type Catalog,
  type CatalogReader,
  type IndexDef,
  type IndexOperation,
  type IndexReceipt,
} from './index-catalog.js';
import { elementOf, familyOf, identityOf, type IndexSpec } from '../core/index-spec.js';

import { IndexMaintainer, type ElementState } from './index-maintenance.js';
import type { IndexWorkView } from './index-work.js';
import type { IndexedElements, TextBatchEntries, TextFamily, VectorFamily } from './index-families.js';
import { SecondaryEntries, type RangeBound } from './secondary-index.js';

/** What a write batch needs to keep indexes current, shared by the batches of a store. */
export interface IndexContext {
  readonly catalog: CatalogReader;
  readonly text: TextFamily | null;
  readonly vector: VectorFamily | null;
}

/** Next free ids, owned by the store so they advance across write batches. */
export interface IdState {
  nextNode: number;
  nextEdge: number;
  next: Record<NameKind, number>;
}

const dirByte = (d: Direction): Dir => (d === 'out' ? OUT : IN);

/** A backlog as get_index_operation shows it (counts as decimal strings, like `progress`). */
function backlogStatus(b: VectorBacklog): Record<string, unknown> {
  return { queued: String(b.queued), applied: String(b.applied), applied_per_s: b.appliedPerSecond, reach_checked: b.reachChecked };
}

/** Ascending distinct values (parallel edges reach a neighbour once). */
function sortedDistinct(values: ArrayLike<number>, sorted: boolean): number[] {
  const out = Array.from(values);
  if (!sorted) out.sort((a, b) => a - b);
  let w = 0;
  for (let r = 0; r < out.length; r++) if (r === 0 || out[r] !== out[r - 1]) out[w++] = out[r]!;
  out.length = w;
  return out;
}

function isAscending(values: ArrayLike<number>): boolean {
  for (let i = 1; i < values.length; i++) if (values[i]! < values[i - 1]!) return false;
  return true;
}

/** Rows [start, end) made one by one by `make`, which answers each one's id: the first's. */
function oneByOne(start: number, end: number, make: (i: number) => number): number {
  const first = make(start);
  for (let i = start + 1; i < end; i++) make(i);
  return first;
}

const nodeIdsExhausted = (): Error => new Error(`node ids are exhausted (the store allocates ids below ${NODE_ID_LIMIT})`);

/** lmdb-js's put option for a key after every key of its database. */
const APPEND = { append: true } as const;

export class GraphReadView implements GraphReader {
  protected readonly catalogReader: CatalogReader;
  protected readonly secondary: SecondaryEntries;
  protected readonly adjacency: AdjacencyReader;
  protected readonly edgeReader: EdgeReader;
  protected readonly columnReader: ColumnReader;

  constructor(
    protected readonly dbs: Dbs,
    protected readonly dict: Dictionary | BatchDictionary,
    /** Decoded column chunks of this thread; write batches read the database directly. */
    cache: ChunkCache | null,
    /** The index catalogue (one decoded copy per thread) and the search families. */
    protected readonly index: IndexContext,
  ) {
    this.catalogReader = index.catalog;
    this.secondary = new SecondaryEntries(dbs.indexEntries);
    this.adjacency = new AdjacencyReader(dbs.adjacency, dbs.adjacencyLists);
    this.edgeReader = new EdgeReader(dbs.edges);
    this.columnReader = new ColumnReader(dbs.columns, dbs.meta, cache);
  }

  indexCatalog(): Catalog {
    return this.catalogReader.current();
  }

  indexOperation(id: string): Record<string, unknown> | undefined {
    const op = this.catalogReader.operation(id);
    if (op === undefined) return undefined;
    const status = operationStatus(op);
    // A vector index's queued work (vector-index.ts): written and searchable, not yet linked.
    const def = this.indexCatalog().defs.find((d) => d.id === op.indexId);
    if (def !== undefined && familyOf(def.spec.kind) === 'vector' && this.index.vector !== null) {
      status['backlog'] = backlogStatus(this.index.vector.backlog(def));
    }
    return status;
  }

  vectorBacklogs(): readonly IndexBacklog[] {
    const vector = this.index.vector;
    if (vector === null) return [];
    const defs = this.indexCatalog().defs.filter((d) => familyOf(d.spec.kind) === 'vector');
    return defs.map(({ spec }, i) => ({
      element: elementOf(spec.kind),
      label: spec.label,
      property: spec.property,
      backlog: vector.backlog(defs[i]!),
    }));
  }

  secondaryEqual(indexId: number, value: Value, limit: number): number[] | null {
    return this.secondary.equal(indexId, value, limit);
  }

  secondaryRange(indexId: number, low: RangeBound | null, high: RangeBound | null, limit: number): number[] | null {
    return this.secondary.range(indexId, low, high, limit);
  }

  vectorSearch(def: IndexDef, query: VectorQuery): VectorHit[] {
    if (this.index.vector === null) throw new Error('vector search is not available in this store');
    return this.index.vector.search(def, query, this.indexedElements);
  }

  /** The elements as vector searches read them: the stored vectors are the exact ones. */
  private readonly indexedElements: IndexedElements = {
    element: (kind, id) => (kind === 'node' ? this.getNode(id) : this.getEdge(id)),
    idsByLabel: (kind, label) => (kind === 'node' ? this.nodeIdsByLabel(label) : this.edgeIdsByLabel(label)),
    committed: () => this.readsCommitted(),
  };

  /** Whether this view reads committed data only (false in a write batch, which sees its own writes). */
  protected readsCommitted(): boolean {
    return true;
  }

  textSearch(def: IndexDef, tenant: Value | null, query: string, k: number, accept: ((id: number) => boolean) | null): TextHit[] {
    if (this.index.text === null) throw new Error('text search is not available in this store');
    return this.index.text.search(def, tenant, query, k, accept);
  }

  getNode(id: number): NodeRecord | undefined {
    const v = this.dbs.nodes.get(idKey(id));
    return v === undefined ? undefined : { id, label: this.dict.name('label', v[0]), props: v[1] as ValueObject };
  }

  hasNode(id: number): boolean {
    return this.dbs.nodes.doesExist(idKey(id));
  }

  getEdge(id: number): EdgeRecord | undefined {
    const e = this.storedEdge(id);
    return e === undefined ? undefined : { id, label: this.dict.name('label', e.labelId), from: e.from, to: e.to, props: e.props };
  }

  hasEdge(id: number): boolean {
    return this.edgeReader.has(id);
  }

  edgePropsReader(): (id: number) => ValueObject | undefined {
    return this.edgeReader.propsReader();
  }

  protected storedEdge(id: number): StoredEdge | undefined {
    return this.edgeReader.get(id);
  }

  nodeIds(): Iterable<number> {
    return this.idsInLabelColumn(undefined);
  }

  /** Ids of the label's nodes from id `from` on (an index build's cursor), ascending. */
  nodeIdsByLabel(label: string, from = 0): Iterable<number> {
    const labelId = this.labelId(label);
    return labelId === undefined ? [] : this.idsInLabelColumn(labelId, from);
  }

  private *idsInLabelColumn(labelId: number | undefined, from = 0): Generator<number> {
    for (const { block, labels } of this.labelBlocks(Math.floor(from / COLUMN_BLOCK))) {
      const base = block * COLUMN_BLOCK;
      for (let i = Math.max(0, from - base); i < COLUMN_BLOCK; i++) {
        const l = labels.labels[i]!;
        if (l !== 0 && (labelId === undefined || l === labelId)) yield base + i;
      }
    }
  }

  protected labelBlocks(from = 0): Iterable<{ block: number; labels: LabelChunk }> {
    return this.columnReader.labelBlocks(from);
  }

  edgeIds(): Iterable<number> {
    return this.edgeReader.ids();
  }

  /** Ids of the label's edges from id `from` on, ascending. */
  edgeIdsByLabel(label: string, from = 0): Iterable<number> {
    const labelId = this.labelId(label);
    return labelId === undefined ? [] : this.edgeReader.ids(labelId, from);
  }

  *nodeRecords(): Iterable<NodeRecord> {
    for (const { key, value } of this.dbs.nodes.getRange({})) {
      yield { id: readU64(key, 0), label: this.dict.name('label', value[0]), props: value[1] as ValueObject };
    }
  }

  *edgeRecords(): Iterable<EdgeRecord> {
    for (const e of this.edgeReader.records())
      yield { id: e.id, label: this.dict.name('label', e.labelId), from: e.from, to: e.to, props: e.props };
  }

  labelId(label: string): number | undefined {
    return this.dict.id('label', label);
  }

  protected list(node: number, dir: Dir, labelId: number): Pairs {
    return this.adjacency.list(node, dir, labelId);
  }

  protected lists(node: number, dir: Dir): { labelId: number; pairs: Pairs }[] {
    return this.adjacency.lists(node, dir);
  }

  /** The lists a hop reads: one label's, or every label's. */
  private pairsOf(node: number, dir: Direction, label: string | undefined): Pairs[] {
    const d = dirByte(dir);
    if (label === undefined) return this.lists(node, d).map((l) => l.pairs);
    const labelId = this.labelId(label);
    return labelId === undefined ? [] : [this.list(node, d, labelId)];
  }

  neighbourIds(node: number, dir: Direction, label?: string): number[] {
    const lists = this.pairsOf(node, dir, label);
    if (lists.length === 1) {
      const others = lists[0]!.others;
      return sortedDistinct(others, isAscending(others));
    }
    const all: number[] = [];
    for (const l of lists) for (let i = 0; i < l.others.length; i++) all.push(l.others[i]!);
    return sortedDistinct(all, false);
  }

  incidentEdgeIds(node: number, dir: Direction, label?: string): number[] {
    const lists = this.pairsOf(node, dir, label);
    // One list is already in edge id order; several are merged.
    if (lists.length === 1) return Array.from(lists[0]!.edges);
    const all: number[] = [];
    for (const l of lists) for (let i = 0; i < l.edges.length; i++) all.push(l.edges[i]!);
    return all.sort((a, b) => a - b);
  }

  outEdges(node: number, label?: string): Iterable<Adjacent> {
    return this.adjacent(node, OUT, label);
  }

  inEdges(node: number, label?: string): Iterable<Adjacent> {
    return this.adjacent(node, IN, label);
  }

  /** One label's edges in edge id order; without a label, label by label (label id order). */
  private adjacent(node: number, dir: Dir, label: string | undefined): Adjacent[] {
    let lists: { labelId: number; pairs: Pairs }[];
    if (label === undefined) {
      lists = this.lists(node, dir);
    } else {
      const labelId = this.labelId(label);
      lists = labelId === undefined ? [] : [{ labelId, pairs: this.list(node, dir, labelId) }];
    }
    const out: Adjacent[] = [];
    for (const { labelId, pairs } of lists) {
      const name = this.dict.name('label', labelId);
      for (let i = 0; i < pairs.edges.length; i++) out.push({ edge: pairs.edges[i]!, label: name, other: pairs.others[i]! });
    }
    return out;
  }

  *nodeColumns(properties: readonly string[]): Iterable<ColumnBlock> {
    const ids = properties.map((p) => (storableName(p) ? this.dict.id('property', p) : undefined));
    const generation = this.columnsGeneration();
    for (const block of this.columnReader.blocks(generation)) {
      const labels = this.columnReader.labels(block, generation)!;
      const columns = ids.map((id) => (id === undefined ? null : this.columnReader.chunk(id, block, generation)));
      yield { base: block * COLUMN_BLOCK, labels: labels.labels, nodes: labels.nodes, uniform: labels.uniform, columns };
    }
  }

  columnsFact<T>(key: string, make: () => T, weigh?: (value: T) => number): T {
    return this.columnReader.fact(key, this.columnsGeneration(), make, weigh);
  }

  protected columnsGeneration(): number {
    return this.columnReader.generation();
  }

  nodeCount(): number {
    return this.dbs.meta.get(META.nodeCount) ?? 0;
  }

  edgeCount(): number {
    return this.dbs.meta.get(META.edgeCount) ?? 0;
  }
}

/**
 * One write batch. Counts and the id high-water marks are kept here and written to
 * `meta` once, in `finish`, inside the same child transaction as the data.
 */
export class GraphWriteView extends GraphReadView implements GraphWriter, IndexWorkView {
  private nodeDelta = 0;
  private edgeDelta = 0;
  private idsSynced = false;
  private readonly batchDict: BatchDictionary;
  private readonly adjacencyEdits: AdjacencyEdits;
  private readonly edgeEdits: EdgeEdits;
  private readonly columnEdits: ColumnEdits;
  /** Keeps the indexes current with this batch's writes. */
  readonly indexes: IndexMaintainer;
  /** This batch's text index writes, applied in `finish` (or before a search in the batch). */
  private readonly textBatch: TextBatchEntries | null;
  private readonly catalogWriter: CatalogWriter;

  constructor(
    dbs: Dbs,
    shared: Dictionary,
    private readonly ids: IdState,
    slots: SlotCache,
    newVersion: () => number,
    index: IndexContext,
  ) {
    const batchDict = new BatchDictionary(shared, ids.next);
    super(dbs, batchDict, null, index);
    this.catalogWriter = new CatalogWriter(dbs.indexes, index.catalog);
    this.batchDict = batchDict;
    this.adjacencyEdits = new AdjacencyEdits(dbs.adjacency, dbs.adjacencyLists);
    this.edgeEdits = new EdgeEdits(dbs.edges);
    this.columnEdits = new ColumnEdits(dbs.columns, dbs.meta, this.columnReader, slots, newVersion);
    this.textBatch = index.text?.batch() ?? null;
    this.indexes = new IndexMaintainer(index.catalog, {
      secondary: this.secondary,
      text: this.textBatch,
      vector: index.vector,
      valueOf: (element, id, property) => (element === 'node' ? this.getNode(id) : this.getEdge(id))?.props[property],
    });
  }
  protected override readsCommitted(): boolean {
    return false;
  }

  override nodeCount(): number {
    return super.nodeCount() + this.nodeDelta;
  }

  override edgeCount(): number {
    return super.edgeCount() + this.edgeDelta;
  }

  override hasNode(id: number): boolean {
    return Number.isSafeInteger(id) && id >= 0 && this.columnEdits.labelOf(id) !== 0;
  }

  protected override storedEdge(id: number): StoredEdge | undefined {
    const edited = this.edgeEdits.edited(id);
    return edited === null ? super.storedEdge(id) : edited;
  }

  /** A batch sees its own edits, which the stored blocks do not hold yet: edge by edge. */
  override edgePropsReader(): (id: number) => ValueObject | undefined {
    return (id) => this.storedEdge(id)?.props;
  }

  override hasEdge(id: number): boolean {
    const edited = this.edgeEdits.edited(id);
    return edited === null ? super.hasEdge(id) : edited !== undefined;
  }

  override textSearch(def: IndexDef, tenant: Value | null, query: string, k: number, accept: ((id: number) => boolean) | null): TextHit[] {
    this.textBatch?.flush();
    return super.textSearch(def, tenant, query, k, accept);
  }

  override edgeIds(): Iterable<number> {
    this.edgeEdits.flush();
    return super.edgeIds();
  }

  override edgeRecords(): Iterable<EdgeRecord> {
    this.edgeEdits.flush();
    return super.edgeRecords();
  }

  override edgeIdsByLabel(label: string, from = 0): Iterable<number> {
    this.edgeEdits.flush();
    return super.edgeIdsByLabel(label, from);
  }

  protected override labelBlocks(from = 0): Iterable<{ block: number; labels: LabelChunk }> {
    this.columnEdits.flush();
    return super.labelBlocks(from);
  }

  protected override columnsGeneration(): number {
    this.columnEdits.flush();
    return super.columnsGeneration();
  }

  protected override list(node: number, dir: Dir, labelId: number): Pairs {
    this.adjacencyEdits.flush();
    return super.list(node, dir, labelId);
  }

  protected override lists(node: number, dir: Dir): { labelId: number; pairs: Pairs }[] {
    this.adjacencyEdits.flush();
    return super.lists(node, dir);
  }

  /** The label assigned last: batches create runs of elements with one label. */
  private lastLabel: { readonly name: string; readonly id: number } | null = null;

  private labelIdFor(label: string): number {
    if (this.lastLabel?.name === label) return this.lastLabel.id;
    const id = this.batchDict.assign('label', label);
    this.lastLabel = { name: label, id };
    return id;
  }

  createNode(label: string, props: ValueObject): number {
    this.syncIds();
    if (this.ids.nextNode >= NODE_ID_LIMIT) throw nodeIdsExhausted();
    const id = this.ids.nextNode++;
    const labelId = this.labelIdFor(label);
    this.dbs.nodes.putSync(idKey(id), [labelId, markNegativeZeros(props)]);
    this.columnEdits.setLabel(id, labelId);
    for (const key in props) this.columnEdits.set(this.batchDict.assign('property', key), id, props[key]);
    this.nodeDelta++;
    if (!this.indexes.idle) this.indexes.changed('node', id, null, { label, props });
    return id;
  }

  /**
   * Nodes of one label for rows [start, end) of the columns: the same records and column
   * values as createNode of each row, the records written from the columns
   * (bulk-columns.ts) instead of one object per row, as the offline build writes them.
   * Ids are consecutive; returns the first.
   */
  createNodes(label: string, columns: readonly BulkColumn[], start: number, end: number): number {
    // Index maintenance takes each element's properties as an object.
    if (this.indexes.watches('node', label)) return oneByOne(start, end, (i) => this.createNode(label, cellsOf(columns, i)));
    this.syncIds();
    const first = this.ids.nextNode;
    const count = end - start;
    if (first + count > NODE_ID_LIMIT) throw nodeIdsExhausted();
    const labelId = this.labelIdFor(label);
    const propertyIds = columns.map((c) => this.batchDict.assign('property', c.name));
    const writer = new PropertyMapWriter(columns);
    for (let i = start; i < end; i++) {
      const id = first + i - start;
      // Ids only grow: each record goes after the last (LMDB's append skips the search).
      this.dbs.nodes.putSync(idKey(id), asBinary(writer.nodeRecord(labelId, i)) as never, APPEND);
      this.columnEdits.setLabel(id, labelId);
      for (let c = 0; c < columns.length; c++) {
        const v = cellOf(columns[c]!, i);
        if (v !== undefined) this.columnEdits.set(propertyIds[c]!, id, v);
      }
    }
    this.ids.nextNode = first + count;
    this.nodeDelta += count;
    return first;
  }

  /**
   * Edges of one label for rows [start, end): row i from `from[i]` to `to[i]` (existing
   * nodes: the caller checks), its properties the columns' cells i. The same as createEdge
   * of each row, the property maps written from the columns; returns the first id.
   */
  createEdges(
    label: string,
    from: ArrayLike<number>,
    to: ArrayLike<number>,
    columns: readonly BulkColumn[],
    start: number,
    end: number,
  ): number {
    if (this.indexes.watches('edge', label)) {
      return oneByOne(start, end, (i) => this.createEdge(label, from[i]!, to[i]!, cellsOf(columns, i)));
    }
    this.syncIds();
    const first = this.ids.nextEdge;
    const labelId = this.labelIdFor(label);
    for (const c of columns) this.batchDict.assign('property', c.name);
    const writer = new PropertyMapWriter(columns);
    this.adjacencyEdits.reserve(2 * (end - start));
    for (let i = start; i < end; i++) {
      const id = first + i - start;
      // The map first: writing it may grow the buffer.
      const length = writer.edgeMap(i);
      this.edgeEdits.putEncoded(id, labelId, from[i]!, to[i]!, writer.buffer, length);
      this.adjacencyEdits.append(from[i]!, OUT, labelId, to[i]!, id);
      this.adjacencyEdits.append(to[i]!, IN, labelId, from[i]!, id);
    }
    this.ids.nextEdge = first + end - start;
    this.edgeDelta += end - start;
    return first;
  }

  createEdge(label: string, from: number, to: number, props: ValueObject): number {
    this.syncIds();
    const id = this.ids.nextEdge++;
    const labelId = this.labelIdFor(label);
    this.edgeEdits.put(id, labelId, from, to, props);
    this.adjacencyEdits.append(from, OUT, labelId, to, id);
    this.adjacencyEdits.append(to, IN, labelId, from, id);
    this.edgeDelta++;
    if (!this.indexes.idle) this.indexes.changed('edge', id, null, { label, props });
    return id;
  }

  putNode(node: NodeRecord): void {
    const old = this.dbs.nodes.get(idKey(node.id));
    if (old === undefined) throw new Error(`putNode: node ${node.id} does not exist`);
    if (!this.indexes.idle) this.indexes.changed('node', node.id, this.stateOf(old), node);
    const labelId = this.batchDict.assign('label', node.label);
    if (old[0] !== labelId) this.columnEdits.setLabel(node.id, labelId);
    for (const k in old[1]) {
      if (!Object.hasOwn(node.props, k)) this.columnEdits.set(this.batchDict.assign('property', k), node.id, undefined);
    }
    for (const k in node.props) this.columnEdits.set(this.batchDict.assign('property', k), node.id, node.props[k]);
    this.dbs.nodes.putSync(idKey(node.id), [labelId, markNegativeZeros(node.props)]);
  }

  putEdgeProps(id: number, props: ValueObject): void {
    if (!this.indexes.idle) {
      const edge = this.storedEdge(id);
      if (edge === undefined) throw new Error(`putEdgeProps: edge ${id} does not exist`);
      const before = this.stateOf([edge.labelId, edge.props]);
      this.indexes.changed('edge', id, before, { label: before.label, props });
    } else if (!this.hasEdge(id)) throw new Error(`putEdgeProps: edge ${id} does not exist`);
    this.edgeEdits.setProps(id, props);
  }

  deleteNode(id: number): boolean {
    const old = this.dbs.nodes.get(idKey(id));
    if (old === undefined) return false;
    if (!this.indexes.idle) this.indexes.changed('node', id, this.stateOf(old), null);
    for (const dir of [OUT, IN] as const) {
      for (const { labelId, pairs } of this.lists(id, dir)) {
        for (let i = 0; i < pairs.edges.length; i++) {
          const edge = pairs.edges[i]!;
          const other = pairs.others[i]!;
          // The other end's list loses the edge; this node's lists go as a whole below.
          if (other !== id) this.adjacencyEdits.remove(other, dir === OUT ? IN : OUT, labelId, edge);
          if (this.hasEdge(edge)) {
            if (!this.indexes.idle) this.indexes.changed('edge', edge, this.getEdge(edge)!, null);
            this.edgeEdits.remove(edge);
            this.edgeDelta--;
          }
        }
      }
      this.adjacencyEdits.removeAll(id, dir);
    }
    this.columnEdits.setLabel(id, 0);
    for (const k in old[1]) this.columnEdits.set(this.batchDict.assign('property', k), id, undefined);
    this.dbs.nodes.removeSync(idKey(id));
    this.nodeDelta--;
    return true;
  }

  deleteEdge(id: number): boolean {
    const edge = this.storedEdge(id);
    if (edge === undefined) return false;
    if (!this.indexes.idle) this.indexes.changed('edge', id, this.stateOf([edge.labelId, edge.props]), null);
    this.adjacencyEdits.remove(edge.from, OUT, edge.labelId, id);
    this.adjacencyEdits.remove(edge.to, IN, edge.labelId, id);
    this.edgeEdits.remove(id);
    this.edgeDelta--;
    return true;
  }

  createIndex(spec: IndexSpec, ifNotExists: boolean, anyBuildParameters = false): IndexReceipt {
    const receipt = this.catalogWriter.create(spec, ifNotExists, anyBuildParameters);
    if (receipt.kind === 'accepted') this.buildIfEmpty(spec);
    this.ddlDone();
    return receipt;
  }

  /**
   * An index of a label that has no element yet has nothing to build: it is active at
   * once, in the transaction that created it, so the writes after it in the same batch
   * are indexed as they happen and a search right after the commit finds them (the
   * reference allows builds to complete synchronously; the receipt and the operation
   * status are the same, the status already `succeeded`).
   */
  private buildIfEmpty(spec: IndexSpec): void {
    const ids = elementOf(spec.kind) === 'node' ? this.nodeIdsByLabel(spec.label) : this.edgeIdsByLabel(spec.label);
    for (const _id of ids) return;
    const def = this.catalogReader.current().byIdentity.get(identityOf(spec));
    const op = def === undefined ? undefined : this.catalogReader.operation(def.operation);
    if (def === undefined || op === undefined) return;
    this.catalogWriter.putOperation({ ...op, status: 'succeeded', stage: 'finalize' });
    this.catalogWriter.putDef({ ...def, state: 'active' });
  }

  dropIndex(spec: IndexSpec): IndexReceipt {
    const receipt = this.catalogWriter.drop(spec);
    this.ddlDone();
    return receipt;
  }

  retryIndexOperation(id: string): Record<string, unknown> {
    const op = this.catalogWriter.retry(id);
    this.ddlDone();
    return operationStatus(op);
  }

  abortIndexOperation(id: string): Record<string, unknown> {
    const op = this.catalogWriter.abort(id);
    this.ddlDone();
    return operationStatus(op);
  }

  // The background work's access to the catalogue (index-work.ts).
  operationRecord(id: string): IndexOperation | undefined {
    return this.catalogReader.operation(id);
  }

  saveOperation(op: IndexOperation): void {
    this.catalogWriter.putOperation(op);
  }

  activateIndex(def: IndexDef): void {
    this.catalogWriter.putDef({ ...def, state: 'active' });
  }

  removeIndexDef(id: number): void {
    this.catalogWriter.removeDef(id);
  }

  deleteSecondaryEntries(indexId: number, limit: number): number {
    return this.secondary.deleteSome(indexId, limit);
  }

  private ddlDone(): void {
    this.indexes.refresh();
    this.indexes.queued = true;
  }

  /** A stored `[labelId, props]` as the maintainer sees it. */
  private stateOf([labelId, props]: readonly [number, unknown]): ElementState {
    return { label: this.dict.name('label', labelId), props: props as ValueObject };
  }

  /** Called after the batch's function returned, still inside its transaction. */
  finish(): void {
    this.textBatch?.flush();
    this.adjacencyEdits.flush();
    this.edgeEdits.flush();
    this.columnEdits.flush();
    const meta = this.dbs.meta;
    if (this.idsSynced) {
      meta.putSync(META.nextNode, this.ids.nextNode);
      meta.putSync(META.nextEdge, this.ids.nextEdge);
    }
    if (this.nodeDelta !== 0) meta.putSync(META.nodeCount, super.nodeCount() + this.nodeDelta);
    if (this.edgeDelta !== 0) meta.putSync(META.edgeCount, super.edgeCount() + this.edgeDelta);
  }

  /** Called once the batch's transaction has committed: its new names become shared. */
  committed(): void {
    this.batchDict.publish();
  }

  /**
   * Another handle (or process) may have allocated since this one last did, so `meta`
   * is consulted once per batch; the in-memory counters keep ids that a rolled-back
   * batch was given from being handed out again.
   */
  private syncIds(): void {
    if (this.idsSynced) return;
    this.idsSynced = true;
    const meta = this.dbs.meta;
    this.ids.nextNode = Math.max(this.ids.nextNode, meta.get(META.nextNode) ?? 0);
    this.ids.nextEdge = Math.max(this.ids.nextEdge, meta.get(META.nextEdge) ?? 0);
  }
}
