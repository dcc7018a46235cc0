/**
 * A store with vector indexes, driven through the query pipeline, for the vector engine's
 * tests: writes and searches, brute-force answers, and waiting for the builder.
 */
import { open } from 'lmdb';
import { preparePlan, runRead, runWrite } from '../../src/database.js';
import { openStore, type Store, type StoreOptions } from '../../src/store/index.js';
import { environmentOptions, openDbs } from '../../src/store/open.js';
import { decodePointer, pointerKey, type GraphPointer } from '../../src/store/vector-segments.js';
import { distance, type Metric } from '../../src/search/vector-math.js';
import { Rng } from './prng.js';
import { q } from './embedded.js';

const EXEC = { timeoutMs: 30_000 };

export interface VectorDb {
  readonly store: Store;
  write(entries: unknown[], returns?: string[]): Promise<Record<string, any>>;
  read(entries: unknown[], returns: string[], parameters?: Record<string, unknown>): Record<string, any>;
  close(): Promise<void>;
}

/** The pointers of these graphs in a closed store's folder (one process opens an environment once). */
export async function readPointers(path: string, graphs: readonly number[]): Promise<GraphPointer[]> {
  const env = open(environmentOptions(path, true));
  try {
    const queue = openDbs(env, path).vectorQueue;
    return graphs.map((graph) => decodePointer(queue.get(pointerKey(graph))!));
  } finally {
    await env.close();
  }
}

export async function openVectorDb(options: StoreOptions): Promise<VectorDb> {
  const store = await openStore(options);
  return wrapStore(store);
}

export function wrapStore(store: Store): VectorDb {
  return {
    store,
    write: async (entries, returns = []) =>
      JSON.parse(await runWrite(store, preparePlan({ request_type: 'write', query: { write: { entries, returns } } }), EXEC)),
    read: (entries, returns, parameters) =>
      JSON.parse(
        runRead(
          store,
          preparePlan({ request_type: 'read', query: { read: { entries, returns } }, ...(parameters ? { parameters } : {}) }),
          EXEC,
        ),
      ),
    close: () => store.close(),
  };
}

export type Spec = {
  label: string;
  property: string;
  dimension: number;
  metric: Metric;
  tenant_property?: string;
  ef_search?: number;
  m?: number;
  ef_construction?: number;
};

export const nodeVector = (spec: Spec) => ({ node_vector: spec });

/** Creates an index and waits until it is active. */
export async function createIndex(db: VectorDb, spec: Spec): Promise<void> {
  await db.write([q('r', { create_index: { spec: nodeVector(spec) } })], ['r']);
  await until(
    () => db.store.read((r) => r.indexCatalog().active('node_vector', spec.label, spec.property) !== undefined),
    'the index to be active',
  );
}

/** Polls `ready` every 10 ms until it holds (or fails after `ms`). */
export async function until(ready: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits until every vector index has nothing queued: every graph is served by its segment. */
export function built(db: VectorDb, ms = 60_000): Promise<void> {
  return until(() => db.store.read((r) => r.vectorBacklogs().every((b) => b.backlog.queued === 0)), 'the vector backlog to empty', ms);
}

/**
 * Waits until every vector index's reach sweep has ended a pass after its last add
 * (`backlog.reach_checked`): every element is then found by searches of the default beam.
 */
export function reachChecked(db: VectorDb, ms = 60_000): Promise<void> {
  return until(() => db.store.read((r) => r.vectorBacklogs().every((b) => b.backlog.reachChecked)), 'the reach sweep to end a pass', ms);
}

export function randomVectors(rng: Rng, n: number, dim: number): number[][] {
  return Array.from({ length: n }, () => Array.from({ length: dim }, () => Math.fround(rng.float() * 2 - 1)));
}

const CENTRES = new Map<string, number[][]>();

/**
 * `n` vectors around `centres` centres (clustered data, as embeddings are). The centres
 * are fixed per dimension and count, so every call of a test draws from one distribution:
 * queries come from the data's clusters, as real queries do. (A query far from every
 * cluster is a known weak spot of any HNSW: a beam can settle in the wrong cluster.)
 */
export function clusteredVectors(rng: Rng, n: number, dim: number, centres = 16): number[][] {
  const key = `${dim}:${centres}`;
  let c = CENTRES.get(key);
  if (c === undefined) CENTRES.set(key, (c = randomVectors(new Rng(dim * 1009 + centres), centres, dim)));
  return Array.from({ length: n }, () => {
    const centre = c[rng.int(centres)]!;
    return centre.map((x) => Math.fround(x + (rng.float() - 0.5) * 0.3));
  });
}

export const addDoc = (name: string | null, v: number[], extra: [string, unknown][] = []) =>
  q(name, { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: v } }], ...extra] } });

/** Adds documents in batches; answers their ids in order. */
export async function addDocs(db: VectorDb, vectors: number[][], extra: (n: number) => [string, unknown][] = () => [], batch = 250) {
  const ids: number[] = [];
  for (let n = 0; n < vectors.length; n += batch) {
    const chunk = vectors.slice(n, n + batch);
    const made = await db.write(
      chunk.map((v, k) => addDoc(`d${k}`, v, extra(n + k))),
      chunk.map((_, k) => `d${k}`),
    );
    for (let k = 0; k < chunk.length; k++) ids.push(made[`d${k}`][0].$id);
  }
  return ids;
}

export interface SearchOptions {
  readonly k: number;
  readonly ef?: number;
  readonly tenant?: string;
  readonly within?: unknown;
  readonly label?: string;
}

export function searchOp(v: number[], o: SearchOptions): unknown {
  const body = {
    label: o.label ?? 'Doc',
    property: 'emb',
    query_vector: { value: { f32_array: v } },
    k: { literal: o.k },
    ...(o.ef === undefined ? {} : { ef: { literal: o.ef } }),
    ...(o.tenant === undefined ? {} : { tenant_value: { value: { string: o.tenant } } }),
  };
  return o.within === undefined ? { vector_search_nodes: body } : { vector_search_nodes_within: { input: o.within, ...body } };
}

export interface Hit {
  readonly $id: number;
  readonly $distance: number;
}

export function search(db: VectorDb, v: number[], o: SearchOptions): Hit[] {
  return db.read([q('x', searchOp(v, o))], ['x']).x as Hit[];
}

/** The exact k nearest of `live` (id -> vector), with Trellis's distances and order. */
export function bruteForce(metric: Metric, live: Map<number, number[]>, query: number[], k: number): Hit[] {
  const qv = Float32Array.from(query);
  const all = [...live].map(([id, v]) => ({ $id: id, $distance: distance(metric, qv, Float32Array.from(v)) }));
  all.sort((a, b) => a.$distance - b.$distance || a.$id - b.$id);
  return all.slice(0, k);
}

/** Share of the exact top k that a search found. */
export function recall(got: readonly Hit[], want: readonly Hit[]): number {
  if (want.length === 0) return got.length === 0 ? 1 : 0;
  const ids = new Set(got.map((h) => h.$id));
  return want.filter((h) => ids.has(h.$id)).length / want.length;
}
