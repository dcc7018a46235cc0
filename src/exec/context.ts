/**
 * The state of one request's execution: the transaction's reader (and writer, for write
 * batches), parameters (a scope that for_each shadows), variables, and the dispatch to
 * each operation's executor.
 */
import { GraphError } from '../core/errors.js';
import type { OpKind, OpOf, PlanNode } from '../plan/ops.js';
import type { Catalog, EdgeRecord, GraphReader, GraphWriter, NodeRecord } from '../store/index.js';
import type { Value } from '../core/value.js';
import { LIMITS } from '../plan/limits.js';
import type { Flow, RowFlow } from './flow.js';
import { ScanCache } from './scan/label-view.js';
import { EDGE, NODE, type Row } from './row.js';
import { clip } from '../core/clip.js';

export type Executor<K extends OpKind> = (node: OpOf<K>, x: Exec, context: RowFlow | null) => Flow;
export type ExecutorTable = { readonly [K in OpKind]: Executor<K> };

/**
 * The parameters an operation sees: the request's, or inside a for_each body a scope that
 * reads the current element's fields first (batch.ts). Read through `get`, never copied.
 */
export interface Params {
  get(name: string): Value | undefined;
}

/**
 * A kind of value that executors derive from a plan object (a node, a scan, sort keys) and
 * from nothing else, made once per request by `Exec.derive`. Not a module-level WeakMap:
 * a plan lives for one request, and weak entries made by every request cost the garbage
 * collector more than the memo saves a query that runs once.
 */
export class Derived<K extends object, V> {
  constructor(readonly make: (key: K) => V) {}
}

/** Node records a read request keeps (Exec.readNode). */
const RECORDS_KEPT = 4096;

export class Exec {
  readonly vars = new Map<string, Flow>();
  /** The rows the traversal expressions being evaluated started from, innermost last (traversal-expr.ts). */
  readonly origins: Row[] = [];
  /** Fixed per request, so `timestamp` is the same in every row. */
  readonly now = Date.now();
  loopIterations = 0;
  /** What this read request keeps for its scans (label-view.ts); nothing in a write batch, which sees its own writes. */
  readonly scans: ScanCache | null;
  /** Per kind of derived value, the values made so far (see derive). */
  private readonly derived = new Map<Derived<object, unknown>, Map<object, unknown>>();

  constructor(
    readonly store: GraphReader,
    readonly writer: GraphWriter | null,
    /** The current parameter scope; a for_each swaps in its own for its body. */
    public params: Params,
    readonly executors: ExecutorTable,
    /** Paths are recorded only when the plan reads them (path, simple_path, other_n). */
    readonly trackPath: boolean,
    /** Counts one unit of work against the request's time budget (GuardedReader.tick). */
    readonly tick: () => void,
  ) {
    this.scans = writer === null ? new ScanCache(store) : null;
  }

  private catalog: Catalog | null = null;

  /**
   * The index catalogue. A read request runs on one snapshot, so it asks the store once; a
   * write batch asks every time, since its own DDL may have changed it.
   */
  indexCatalog(): Catalog {
    if (this.writer !== null) return this.store.indexCatalog();
    return (this.catalog ??= this.store.indexCatalog());
  }

  run(node: PlanNode, context: RowFlow | null): Flow {
    return (this.executors[node.op] as Executor<OpKind>)(node, this, context);
  }

  /** Runs `node` and requires a row stream (not folded, not a terminal's value). */
  rows(node: PlanNode, context: RowFlow | null, consumer: PlanNode): RowFlow {
    return this.expectRows(this.run(node, context), consumer);
  }

  expectRows(flow: Flow, consumer: PlanNode): RowFlow {
    if (flow.t !== 'rows')
      throw new GraphError(
        'invalid_query',
        `${consumer.path}: "${consumer.op}" needs a stream of nodes or edges, but its input yields ${flow.t === 'values' ? 'a list of values' : `a ${flow.t}`}`,
      );
    if (flow.folded)
      throw new GraphError('invalid_query', `${consumer.path}: "${consumer.op}" cannot take a folded stream; use unfold first`);
    return flow;
  }

  get writable(): GraphWriter {
    if (this.writer === null) throw new GraphError('internal_error', 'a mutation reached a read transaction');
    return this.writer;
  }

  /** What `what` derives from `key`, made the first time this request asks. */
  derive<K extends object, V>(what: Derived<K, V>, key: K): V {
    let table = this.derived.get(what as Derived<object, unknown>) as Map<K, V> | undefined;
    if (table === undefined) {
      table = new Map();
      this.derived.set(what as Derived<object, unknown>, table as Map<object, unknown>);
    }
    if (table.has(key)) return table.get(key)!;
    const value = what.make(key);
    table.set(key, value);
    return value;
  }

  param(name: string, path: string): Value {
    const v = this.params.get(name);
    if (v === undefined) throw new GraphError('invalid_query', `${path}: parameter "${clip(name)}" is not bound`);
    return v;
  }

  node(row: Row): NodeRecord | undefined {
    if (row.kind !== NODE) return undefined;
    if (this.writer !== null) return this.store.getNode(row.id);
    return (row.rec ??= this.readNode(row.id)) as NodeRecord | undefined;
  }

  /**
   * A node record this read request already holds (readNode), without reading the store
   * or keeping anything more: for readers that visit many nodes once, which would only
   * churn the kept records.
   */
  keptNode(id: number): NodeRecord | undefined {
    return this.writer === null ? (this.nodeRecords.get(id) ?? undefined) : undefined;
  }

  /** Whether a node exists; a read request answers from the records it holds when it can. */
  hasNode(id: number): boolean {
    const hit = this.writer === null ? this.nodeRecords.get(id) : undefined;
    if (hit === undefined) return this.store.hasNode(id);
    this.tick();
    return hit !== null;
  }

  /**
   * Node records a read request has read (null: no such node), so a loop that reads the
   * same nodes at every iteration decodes each once. The request's snapshot never
   * changes, so a record stays exact until the request ends; at most RECORDS_KEPT are
   * kept (then the map starts over), about what one result of that many rows holds.
   */
  private readonly nodeRecords = new Map<number, NodeRecord | null>();

  private readNode(id: number): NodeRecord | undefined {
    const hit = this.nodeRecords.get(id);
    if (hit !== undefined) {
      // No store call: the work still counts against the time budget.
      this.tick();
      return hit ?? undefined;
    }
    const rec = this.store.getNode(id);
    if (this.nodeRecords.size === RECORDS_KEPT) this.nodeRecords.clear();
    this.nodeRecords.set(id, rec ?? null);
    return rec;
  }

  edge(row: Row): EdgeRecord | undefined {
    if (row.kind !== EDGE) return undefined;
    if (this.writer !== null) return this.store.getEdge(row.id);
    return (row.rec ??= this.store.getEdge(row.id)) as EdgeRecord | undefined;
  }

  record(row: Row): NodeRecord | EdgeRecord | undefined {
    return row.kind === NODE ? this.node(row) : row.kind === EDGE ? this.edge(row) : undefined;
  }

  /** Guards memory for operations that must hold a whole stream. */
  checkSize(count: number, path: string): void {
    if (count > LIMITS.maxRowsInMemory) {
      throw new GraphError(
        'limit_exceeded',
        `${path}: more than ${LIMITS.maxRowsInMemory} rows would be held in memory; add a limit or filter`,
      );
    }
  }

  /** Drains `items` into an array, within the in-memory row limit. */
  collect<T>(items: Iterable<T>, path: string): T[] {
    if (Array.isArray(items)) {
      this.checkSize(items.length, path);
      return items;
    }
    const out: T[] = [];
    for (const item of items) {
      if (out.push(item) % 65536 === 0) this.checkSize(out.length, path);
    }
    return out;
  }
}
