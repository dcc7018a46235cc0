/**
 * The vectors of the vector benchmarks (vector-engines.ts, vector-http.ts): seeded
 * clustered or uniform data, and how a Trellis database is loaded with them as a new user
 * would (the documented index DDL, `for_each` inserts of 1,000 rows).
 */
import type { Database } from '../../src/index.js';

/** Rows per `for_each` insert. */
export const BATCH = 1000;

/** What the loads need of a workload: the vectors and each one's bucket (0..99, for filters). */
export interface VectorSet {
  readonly n: number;
  readonly vectors: Float32Array[];
  readonly bucket: Uint8Array;
}

/** mulberry32: a seeded uniform source in [0, 1). */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const CENTRES = 64;
const SIGMA = 0.15;

export function draw(random: () => number, centres: Float32Array[], n: number, dim: number, clustered: boolean): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const v = new Float32Array(dim);
    if (clustered) {
      // Gaussian around a random centre (Box-Muller), as embeddings cluster by topic.
      const c = centres[Math.floor(random() * centres.length)]!;
      for (let j = 0; j < dim; j++) v[j] = c[j]! + SIGMA * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    } else {
      for (let j = 0; j < dim; j++) v[j] = random() * 2 - 1;
    }
    out.push(v);
  }
  return out;
}

/** The cosine index of the benchmarks, with its default build beam unless one is given. */
export const SPEC = (dim: number, efConstruction?: number) => ({
  node_vector: {
    label: 'Doc',
    property: 'emb',
    dimension: dim,
    metric: 'cosine',
    ...(efConstruction === undefined ? {} : { ef_construction: efConstruction }),
  },
});
/** The same index partitioned by the nodes' `tenant` property. */
export const TENANT_SPEC = (dim: number, efConstruction?: number) => ({
  node_vector: { ...SPEC(dim, efConstruction).node_vector, tenant_property: 'tenant' },
});
export const RANGE = { node_range: { label: 'Doc', property: 'bucket' } };
export const entry = (name: string | null, root: unknown) => ({ query: { ...(name === null ? {} : { name }), root } });

export async function write(db: Database, entries: unknown[], returns: string[] = [], parameters?: Record<string, unknown>) {
  return db.query({ request_type: 'write', query: { write: { entries, returns } }, ...(parameters ? { parameters } : {}) });
}

export async function read(db: Database, entries: unknown[], returns: string[]) {
  return db.query({ request_type: 'read', query: { read: { entries, returns } } });
}

/** Times a write was refused with 429 `index_backpressure` and sent again (insertAll), in this process. */
export const backpressure = { retries: 0, waitedMs: 0 };

/**
 * A write sent again while the index's queue is full (429 `index_backpressure`, retryable:
 * inserts outran the builder), as a client should; what it waited is in `backpressure`.
 */
export async function writeRetrying(db: Database, entries: unknown[], returns: string[], parameters: Record<string, unknown>) {
  for (;;) {
    try {
      return await write(db, entries, returns, parameters);
    } catch (err) {
      if ((err as { code?: string }).code !== 'index_backpressure') throw err;
      backpressure.retries++;
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 50));
      backpressure.waitedMs += performance.now() - started;
    }
  }
}

/** The text of a `vector_search_nodes` request for the `k` nearest of `vector` (the index's default beam), answered as `x`. */
export function searchText(vector: Float32Array, k = 10): string {
  const root = {
    vector_search_nodes: { label: 'Doc', property: 'emb', query_vector: { value: { f32_array: Array.from(vector) } }, k: { literal: k } },
  };
  return JSON.stringify({ request_type: 'read', query: { read: { entries: [entry('x', root)], returns: ['x'] } } });
}

/** Creates an index and answers its operation id. */
export async function createIndex(db: Database, spec: unknown): Promise<string> {
  const r = await write(db, [entry('r', { create_index: { spec } })], ['r']);
  return (r['r'] as { operation_id: string }).operation_id;
}

/** Polls an index operation until it succeeded with nothing queued (every vector in the index). */
export async function settled(db: Database, operation: string): Promise<void> {
  for (;;) {
    const r = await read(db, [entry('op', { get_index_operation: { operation_id: operation } })], ['op']);
    const op = r['op'] as { status: string; backlog?: { queued: string } };
    if (op.status === 'succeeded' && (op.backlog === undefined || op.backlog.queued === '0')) return;
    if (op.status === 'blocked' || op.status === 'aborted') throw new Error(`index operation ${JSON.stringify(op)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits until the index's reach sweep has ended after its last add (`backlog.reach_checked`,
 * docs/queries.md): the builder is then idle, as it is between a database's loads, and
 * no longer takes both cores while queries are timed. The milliseconds waited.
 */
export async function reachChecked(db: Database, operation: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const r = await read(db, [entry('op', { get_index_operation: { operation_id: operation } })], ['op']);
    const op = r['op'] as { backlog?: { reach_checked: boolean } };
    if (op.backlog === undefined || op.backlog.reach_checked) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The body of a `for_each` that adds a node of `label` per row, each property from the row's field of its name. */
export function addRowBody(name: string, label: string, properties: readonly string[]): unknown[] {
  return [entry(name, { add_n: { label, properties: properties.map((p) => [p, { expr: { param: p } }]) } })];
}

/**
 * Where each vector went: the ids of one batch follow one by one (one transaction), but a
 * batch refused and sent again may leave a gap (ids are never reused).
 */
export interface LoadedIds {
  /** The node id of vector i. */
  idOf(i: number): number;
  /** The vector of a node id. */
  indexOf(id: number): number;
}

/**
 * Inserts every vector with its bucket in `for_each` batches, and with `tenantOf`, a
 * `tenant` property too (the partition of a tenant index); answers where each went.
 */
export async function insertAll(
  db: Database,
  w: Pick<VectorSet, 'n' | 'vectors' | 'bucket'>,
  tenantOf?: (i: number) => string,
): Promise<LoadedIds> {
  const body = addRowBody('n', 'Doc', tenantOf === undefined ? ['emb', 'bucket'] : ['emb', 'bucket', 'tenant']);
  // The node id of each batch's first vector, ascending.
  const bases: number[] = [];
  for (let from = 0; from < w.n; from += BATCH) {
    const to = Math.min(w.n, from + BATCH);
    const rows = [];
    for (let i = from; i < to; i++) {
      const row: Record<string, unknown> = { emb: Array.from(w.vectors[i]!), bucket: w.bucket[i]! };
      if (tenantOf !== undefined) row['tenant'] = tenantOf(i);
      rows.push(row);
    }
    const r = await writeRetrying(db, [{ for_each: { param: 'rows', body } }], ['n'], { rows });
    bases.push((r['n'] as { $id: number }[])[0]!.$id - (to - 1 - from));
  }
  return {
    idOf: (i) => bases[Math.floor(i / BATCH)]! + (i % BATCH),
    indexOf: (id) => {
      let lo = 0;
      let hi = bases.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (bases[mid]! <= id) lo = mid;
        else hi = mid - 1;
      }
      return lo * BATCH + (id - bases[lo]!);
    },
  };
}
