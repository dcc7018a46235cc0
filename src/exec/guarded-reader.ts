/**
 * The reader an execution sees: the transaction's reader, with the request's wall-clock
 * deadline checked as it works. Every unit of traversal work reads the store, so counting
 * store calls (and scanned keys) bounds any request in time without a check in every
 * executor loop; the clock is read once per 64 calls (a scan counts one per block of 1024
 * nodes, so checking more rarely would let a scan run tens of milliseconds unchecked).
 *
 * A read may also have a time slice: past it, the execution stops with `Preempted`, and
 * the read pool runs the request again, from the start, in the lane for long queries
 * (reads change nothing, so starting over is safe). Short reads then never wait behind a
 * long one in the same worker.
 */
import { GraphError } from '../core/errors.js';
import type { Value, ValueObject } from '../core/value.js';
import type {
  Adjacent,
  Catalog,
  ColumnBlock,
  Direction,
  EdgeRecord,
  GraphReader,
  IndexDef,
  NodeRecord,
  RangeBound,
  TextHit,
  VectorHit,
  IndexBacklog,
  VectorQuery,
} from '../store/index.js';

const CHECK_EVERY = 64;

/** Thrown when a read outruns its time slice: not an error, a request to move it. */
export class Preempted extends Error {
  constructor() {
    super('the read ran past its time slice');
    this.name = 'Preempted';
  }
}

export class GuardedReader implements GraphReader {
  private calls = 0;

  constructor(
    private readonly inner: GraphReader,
    /** performance.now() past which the query times out. */
    private readonly deadline: number,
    private readonly timeoutMs: number,
    /** performance.now() past which the read is preempted (Infinity: never). */
    private readonly sliceEnd = Number.POSITIVE_INFINITY,
  ) {}

  /** Counts one unit of work; throws query_timeout once the deadline has passed. */
  tick(): void {
    if (++this.calls % CHECK_EVERY !== 0) return;
    const now = performance.now();
    if (now > this.deadline) {
      throw new GraphError(
        'query_timeout',
        `the query ran longer than its ${this.timeoutMs} ms budget and was stopped; nothing it wrote was kept`,
      );
    }
    if (now > this.sliceEnd) throw new Preempted();
  }

  private *scan<T>(items: Iterable<T>): Generator<T> {
    for (const item of items) {
      this.tick();
      yield item;
    }
  }

  getNode(id: number): NodeRecord | undefined {
    this.tick();
    return this.inner.getNode(id);
  }
  getEdge(id: number): EdgeRecord | undefined {
    this.tick();
    return this.inner.getEdge(id);
  }
  hasNode(id: number): boolean {
    this.tick();
    return this.inner.hasNode(id);
  }
  hasEdge(id: number): boolean {
    this.tick();
    return this.inner.hasEdge(id);
  }
  edgePropsReader(): (id: number) => ValueObject | undefined {
    const read = this.inner.edgePropsReader();
    return (id) => {
      this.tick();
      return read(id);
    };
  }
  nodeIds(): Iterable<number> {
    return this.scan(this.inner.nodeIds());
  }
  nodeIdsByLabel(label: string): Iterable<number> {
    return this.scan(this.inner.nodeIdsByLabel(label));
  }
  edgeIds(): Iterable<number> {
    return this.scan(this.inner.edgeIds());
  }
  edgeIdsByLabel(label: string): Iterable<number> {
    return this.scan(this.inner.edgeIdsByLabel(label));
  }
  outEdges(node: number, label?: string): Iterable<Adjacent> {
    this.tick();
    return this.inner.outEdges(node, label);
  }
  inEdges(node: number, label?: string): Iterable<Adjacent> {
    this.tick();
    return this.inner.inEdges(node, label);
  }
  neighbourIds(node: number, dir: Direction, label?: string): number[] {
    this.tick();
    return this.inner.neighbourIds(node, dir, label);
  }
  incidentEdgeIds(node: number, dir: Direction, label?: string): number[] {
    this.tick();
    return this.inner.incidentEdgeIds(node, dir, label);
  }
  nodeColumns(properties: readonly string[]): Iterable<ColumnBlock> {
    return this.scan(this.inner.nodeColumns(properties));
  }
  columnsFact<T>(key: string, make: () => T, weigh?: (value: T) => number): T {
    return this.inner.columnsFact(key, make, weigh);
  }
  labelId(label: string): number | undefined {
    return this.inner.labelId(label);
  }
  nodeCount(): number {
    return this.inner.nodeCount();
  }
  edgeCount(): number {
    return this.inner.edgeCount();
  }
  indexCatalog(): Catalog {
    return this.inner.indexCatalog();
  }
  indexOperation(id: string): Record<string, unknown> | undefined {
    return this.inner.indexOperation(id);
  }
  vectorBacklogs(): readonly IndexBacklog[] {
    return this.inner.vectorBacklogs();
  }
  secondaryEqual(indexId: number, value: Value, limit: number): number[] | null {
    this.tick();
    return this.inner.secondaryEqual(indexId, value, limit);
  }
  secondaryRange(indexId: number, low: RangeBound | null, high: RangeBound | null, limit: number): number[] | null {
    this.tick();
    return this.inner.secondaryRange(indexId, low, high, limit);
  }
  vectorSearch(def: IndexDef, query: VectorQuery): VectorHit[] {
    this.tick();
    // An exact search reads many elements in one call: it counts them as it goes.
    return this.inner.vectorSearch(def, { ...query, tick: this.tickFn });
  }
  private readonly tickFn = () => this.tick();
  textSearch(def: IndexDef, tenant: Value | null, query: string, k: number, accept: ((id: number) => boolean) | null): TextHit[] {
    this.tick();
    return this.inner.textSearch(def, tenant, query, k, accept);
  }
}
