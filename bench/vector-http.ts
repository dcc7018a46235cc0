/**
 * What HTTP adds around a vector search, against what it adds around a point read
 * (issue 31: "over HTTP with one keep-alive client, the search's own share of the latency
 * at most the same share as a point read's").
 *
 *   node dist/bench/vector-http.js [--n 100000] [--dim 128] [--queries 300] [--rounds 5] [--ef 48]
 *
 * A database of clustered vectors (bench/lib/vector-data.ts, as vector-engines.ts loads
 * them) and 1,000 small nodes is loaded embedded. Each kind of request is timed embedded
 * first (`Database.queryText`: the request's text in, the answer's text out; for the
 * search also the store's search alone), in alternating rounds; then the database is
 * closed, a server is started on it, and the same request texts are timed over HTTP by one
 * keep-alive client (bench/lib/raw-client.ts), again alternating. Reported per kind: the
 * median latencies, what HTTP adds (over HTTP less embedded), and the share of the HTTP
 * latency that the work itself takes (embedded over HTTP).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { open, type Database } from '../src/index.js';
import { startChild } from './lib/child.js';
import { RawConnection } from './lib/raw-client.js';
import { median, percentile, round } from './lib/stats.js';
import { addRowBody, CENTRES, createIndex, draw, entry, insertAll, seeded, settled, SPEC, write } from './lib/vector-data.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const K = 10;
const SMALL_NODES = 1000;

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    dim: { type: 'string', default: '128' },
    queries: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '5' },
    ef: { type: 'string', default: '48' },
  },
});
const n = Number(values.n);
const dim = Number(values.dim);
const queryCount = Number(values.queries);
const rounds = Number(values.rounds);
const ef = Number(values.ef);
const progress = (line: string) => process.stderr.write(`${line}\n`);

const read = (root: unknown) => JSON.stringify({ request_type: 'read', query: { read: { entries: [entry('r', root)], returns: ['r'] } } });

/** Latencies in µs of running each of `requests` once, one after another. */
async function timed<T>(requests: readonly T[], run: (request: T) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (const request of requests) {
    const started = performance.now();
    await run(request);
    out.push((performance.now() - started) * 1000);
  }
  return out;
}

/** Alternating rounds of each kind (which goes first alternates too): the median of each round's median, µs. */
async function alternate(kinds: Record<string, () => Promise<number[]>>): Promise<Record<string, { p50: number; p99: number }>> {
  const names = Object.keys(kinds);
  const medians = new Map<string, number[]>(names.map((k) => [k, []]));
  const p99s = new Map<string, number[]>(names.map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 === 0 ? names : [...names].reverse()) {
      const latencies = (await kinds[name]!()).sort((a, b) => a - b);
      medians.get(name)!.push(percentile(latencies, 50));
      p99s.get(name)!.push(percentile(latencies, 99));
    }
  }
  return Object.fromEntries(names.map((k) => [k, { p50: round(median(medians.get(k)!)), p99: round(median(p99s.get(k)!)) }]));
}

async function load(dir: string): Promise<{ db: Database; centres: Float32Array[]; firstSmall: number }> {
  const random = seeded(1000 + n);
  const centres = draw(random, [], CENTRES, dim, false);
  const vectors = draw(random, centres, n, dim, true);
  const bucket = Uint8Array.from({ length: n }, () => Math.floor(random() * 100));
  const db = await open(dir);
  const operation = await createIndex(db, SPEC(dim));
  await insertAll(db, { n, vectors, bucket });
  await settled(db, operation);
  // Small nodes, as the peer benchmark's users: what a point read reads.
  const rows = Array.from({ length: SMALL_NODES }, (_, i) => ({
    name: `user${i}`,
    age: 20 + (i % 50),
    status: i % 3 === 0 ? 'active' : 'idle',
  }));
  const body = addRowBody('u', 'User', ['name', 'age', 'status']);
  const r = await write(db, [{ for_each: { param: 'rows', body } }], ['u'], { rows });
  const last = (r['u'] as { $id: number }[])[0]!.$id;
  return { db, centres, firstSmall: last - (SMALL_NODES - 1) };
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'trellis-vector-http-'));
  try {
    progress(`loading ${n} x ${dim}`);
    const { db, centres, firstSmall } = await load(dir);
    // Queries from the data's clusters, drawn apart from the data.
    const queries = draw(seeded(7), centres, queryCount, dim, true);
    const searches = queries.map((q) =>
      read({
        vector_search_nodes: {
          label: 'Doc',
          property: 'emb',
          query_vector: { value: { f32_array: Array.from(q) } },
          k: { literal: K },
          ef: { literal: ef },
        },
      }),
    );
    const points = queries.map((_, i) =>
      read({ value_map: { input: { nodes: { reference: { ids: [firstSmall + (i % SMALL_NODES)] } } } } }),
    );
    const def = db.store.read((r) => r.indexCatalog().active('node_vector', 'Doc', 'emb'))!;
    const searchAlone = (q: Float32Array) =>
      db.store.read((r) => r.vectorSearch(def, { tenant: null, vector: q, k: K, candidates: null, ef }));
    // Warm-up, untimed.
    for (let i = 0; i < 50; i++) {
      await db.queryText(searches[i % queryCount]!);
      await db.queryText(points[i % queryCount]!);
    }
    progress('embedded');
    const embedded = await alternate({
      point: () => timed(points, (t) => db.queryText(t)),
      search: () => timed(searches, (t) => db.queryText(t)),
      search_alone: () => timed(queries, searchAlone),
    });
    await db.close();
    progress('over HTTP');
    const server = await startChild(
      'trellis',
      [],
      CLI,
      ['--port', '0', '--data', dir],
      /listening on http:\/\/[^:]+:(\d+)/,
      /trellis ready/,
    );
    try {
      const client = await RawConnection.open(server.port);
      const post = async (body: string) => {
        const answer = await client.post(body);
        if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${answer.body}`);
      };
      for (let i = 0; i < 50; i++) {
        await post(searches[i % queryCount]!);
        await post(points[i % queryCount]!);
      }
      const http = await alternate({ point: () => timed(points, post), search: () => timed(searches, post) });
      client.close();
      const added = {
        point: round(http['point']!.p50 - embedded['point']!.p50),
        search: round(http['search']!.p50 - embedded['search']!.p50),
      };
      const share = {
        point: round(embedded['point']!.p50 / http['point']!.p50, 3),
        search: round(embedded['search']!.p50 / http['search']!.p50, 3),
        search_alone: round(embedded['search_alone']!.p50 / http['search']!.p50, 3),
      };
      const report = {
        when: new Date().toISOString(),
        machine: { cpus: cpus().length, node: process.version, loadavgBefore: loadBefore, loadavgAfter: loadavg() },
        settings: { n, dim, queries: queryCount, rounds, ef, k: K },
        latencyUs: { embedded, http },
        httpAddsUs: added,
        shareOfHttpLatency: share,
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
