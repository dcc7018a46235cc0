/**
 * The reader an execution sees: the transaction's reader, with the request's wall-clock
 * deadline checked as it works. Every unit of traversal work reads the store, so counting
 * store calls (and scanned keys) bounds any request in time without a check in every
 * executor loop; the clock is read once per 1024 calls.
 */
import { GraphError } from '../core/errors.js';
import type { Adjacent, ColumnBlock, Direction, EdgeRecord, GraphReader, NodeRecord } from '../store/types.js';

const CHECK_EVERY = 1024;

export class GuardedReader implements GraphReader {
  private calls = 0;

  constructor(
    private readonly inner: GraphReader,
    private readonly deadline: number,
    private readonly timeoutMs: number,
  ) {}

  /** Counts one unit of work; throws query_timeout once the deadline has passed. */
  tick(): void {
    if (++this.calls % CHECK_EVERY === 0 && Date.now() > this.deadline) {
      throw new GraphError(
        'query_timeout',
        `the query ran longer than its ${this.timeoutMs} ms budget and was stopped; nothing it wrote was kept`,
      );
    }
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
  labelId(label: string): number | undefined {
    return this.inner.labelId(label);
  }
  nodeCount(): number {
    return this.inner.nodeCount();
  }
  edgeCount(): number {
    return this.inner.edgeCount();
  }
}
