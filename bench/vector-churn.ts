/**
 * A vector index under a long insert, update and delete churn (issue 31: memory stays
 * bounded): a live set of `--n` vectors is loaded, then for `--minutes` each round is one
 * write batch that deletes `--batch` random live nodes, inserts as many new ones and gives
 * `--batch` / 2 others a new vector, followed by `--searches` searches (k 10, the default
 * beam), all through `Database.query` in this process, as an embedded user would.
 *
 *   node dist/bench/vector-churn.js [--n 20000] [--dim 128] [--minutes 10] [--batch 250]
 *        [--searches 10] [--sample-s 15] [--seed 1]
 *
 * Every `--sample-s` seconds it records the process's memory (resident, anonymous, and
 * the JavaScript heap), the data file's and the segment folder's sizes, the index's
 * backlog, the rounds and searches done since the last sample, and the recall@10 of 20
 * searches against brute force over the live set at that moment. The summary gives the
 * anonymous memory's slope over the second half (MiB a minute: flat is about 0) and the
 * growth of each figure between the middle and the end. Prints one JSON document.
 */
import { readdirSync, rmSync, statSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { open } from '../src/index.js';
import { machine, progress } from './lib/cli.js';
import { processMemory } from './lib/proc-memory.js';
import { round, slope } from './lib/stats.js';
import {
  backpressure,
  CENTRES,
  createIndex,
  draw,
  entry,
  insertAll,
  read,
  searchText,
  seeded,
  settled,
  SPEC,
  writeRetrying,
} from './lib/vector-data.js';

const MIB = 2 ** 20;
const K = 10;

interface Sample {
  minute: number;
  rounds: number;
  live: number;
  rss_mib: number;
  anon_mib: number;
  heap_mib: number;
  data_mdb_mib: number;
  segments_mib: number;
  segment_files: number;
  queued: number;
  recall: number;
  searches_per_s: number;
  changes_per_s: number;
  backpressure_retries: number;
}

function folderMiB(dir: string): { mib: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const name of readdirSync(dir)) {
    bytes += statSync(join(dir, name)).size;
    files++;
  }
  return { mib: bytes / MIB, files };
}

const cosine = (a: Float32Array, b: Float32Array): number => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return 1 - dot / Math.sqrt(na * nb);
};

/** One round's write: deletes `gone`, inserts `rows` (answered as `n`), gives `updates` their new vectors. */
const CHURN = [
  entry(null, { drop: { input: { nodes: { reference: { param: 'gone' } } } } }),
  { for_each: { param: 'rows', body: [entry('n', { add_n: { label: 'Doc', properties: [['emb', { expr: { param: 'emb' } }]] } })] } },
  {
    for_each: {
      param: 'updates',
      body: [
        entry(null, {
          set_property: { input: { nodes: { reference: { param: 'id' } } }, name: 'emb', value: { expr: { param: 'emb' } } },
        }),
      ],
    },
  },
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      n: { type: 'string', default: '20000' },
      dim: { type: 'string', default: '128' },
      minutes: { type: 'string', default: '10' },
      batch: { type: 'string', default: '250' },
      searches: { type: 'string', default: '10' },
      'sample-s': { type: 'string', default: '15' },
      seed: { type: 'string', default: '1' },
    },
  });
  const n = Number(values.n);
  const dim = Number(values.dim);
  const batch = Number(values.batch);
  const searchesPerRound = Number(values.searches);
  const sampleMs = Number(values['sample-s']) * 1000;
  const durationMs = Number(values.minutes) * 60_000;
  const random = seeded(Number(values.seed));
  const centres = draw(random, [], CENTRES, dim, false);
  const fresh = (count: number) => draw(random, centres, count, dim, true);

  const dir = mkdtempSync(join(tmpdir(), 'trellis-vector-churn-'));
  const db = await open(dir);
  try {
    const operation = await createIndex(db, SPEC(dim));
    await settled(db, operation);
    const initial = fresh(n);
    progress(`loading ${n} x ${dim} into ${dir}`);
    const loaded = await insertAll(db, { n, vectors: initial, bucket: new Uint8Array(n) });
    await settled(db, operation);
    // The live set: node id -> vector, and the ids as an array for random picks.
    const live = new Map<number, Float32Array>();
    initial.forEach((v, i) => live.set(loaded.idOf(i), v));
    const ids = [...live.keys()];
    const pick = (): number => {
      const at = Math.floor(random() * ids.length);
      const id = ids[at]!;
      ids[at] = ids[ids.length - 1]!;
      ids.pop();
      return id;
    };

    const samples: Sample[] = [];
    const started = performance.now();
    let rounds = 0;
    let searches = 0;
    let changes = 0;
    let lastSample = started;
    let searchesAtSample = 0;
    let changesAtSample = 0;
    const sample = async (): Promise<void> => {
      const now = performance.now();
      const memory = processMemory();
      const op = (await read(db, [entry('op', { get_index_operation: { operation_id: operation } })], ['op']))['op'] as {
        backlog?: { queued: string };
      };
      // Recall of 20 searches against brute force over the live set as it is now.
      let hits = 0;
      const probes = fresh(20);
      for (const q of probes) {
        const got = JSON.parse(await db.queryText(searchText(q, K))) as { x: { $id: number }[] };
        const truth = [...live].map(([id, v]) => [id, cosine(q, v)] as const).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
        const want = new Set(truth.slice(0, K).map(([id]) => id));
        for (const h of got.x) if (want.has(h.$id)) hits++;
      }
      const seconds = (now - lastSample) / 1000;
      const segments = folderMiB(join(dir, 'vectors'));
      samples.push({
        minute: round((now - started) / 60_000, 2),
        rounds,
        live: live.size,
        rss_mib: round(memory.rss, 1),
        anon_mib: round(memory.anon, 1),
        heap_mib: round(process.memoryUsage().heapUsed / MIB, 1),
        data_mdb_mib: round(statSync(join(dir, 'data.mdb')).size / MIB, 1),
        segments_mib: round(segments.mib, 1),
        segment_files: segments.files,
        queued: Number(op.backlog?.queued ?? 0),
        recall: round(hits / (probes.length * K), 4),
        searches_per_s: round((searches - searchesAtSample) / seconds),
        changes_per_s: round((changes - changesAtSample) / seconds),
        backpressure_retries: backpressure.retries,
      });
      progress(`  ${JSON.stringify(samples[samples.length - 1])}`);
      lastSample = performance.now();
      searchesAtSample = searches;
      changesAtSample = changes;
    };

    await sample();
    while (performance.now() - started < durationMs) {
      const gone: number[] = [];
      for (let i = 0; i < batch; i++) gone.push(pick());
      const rows = fresh(batch).map((v) => ({ emb: Array.from(v) }));
      const updated: { id: number; emb: number[] }[] = [];
      const updateVectors = fresh(Math.floor(batch / 2));
      for (const v of updateVectors) updated.push({ id: ids[Math.floor(random() * ids.length)]!, emb: Array.from(v) });
      // One update per id: the last vector given to an id wins, and the live set must agree.
      const byId = new Map(updated.map((u) => [u.id, u]));
      const r = await writeRetrying(db, CHURN, ['n'], { gone, rows, updates: [...byId.values()] });
      for (const id of gone) live.delete(id);
      // `n` is the last row's node; a batch's new ids follow one by one (one transaction).
      const first = (r['n'] as { $id: number }[])[0]!.$id - (rows.length - 1);
      rows.forEach((row, i) => {
        live.set(first + i, Float32Array.from(row.emb));
        ids.push(first + i);
      });
      for (const u of byId.values()) live.set(u.id, Float32Array.from(u.emb));
      changes += gone.length + rows.length + byId.size;
      for (let i = 0; i < searchesPerRound; i++) {
        await db.queryText(searchText(fresh(1)[0]!, K));
        searches++;
      }
      rounds++;
      if (performance.now() - lastSample >= sampleMs) await sample();
    }
    await sample();

    const half = samples.filter((s) => s.minute >= samples[samples.length - 1]!.minute / 2);
    const middle = half[0]!;
    const last = samples[samples.length - 1]!;
    const summary = {
      rounds,
      changes,
      turnover: round(changes / n, 1),
      anon_slope_mib_per_min_second_half: round(slope(half.map((s) => [s.minute, s.anon_mib])), 2),
      growth_middle_to_end: {
        rss_mib: round(last.rss_mib - middle.rss_mib, 1),
        anon_mib: round(last.anon_mib - middle.anon_mib, 1),
        heap_mib: round(last.heap_mib - middle.heap_mib, 1),
        data_mdb_mib: round(last.data_mdb_mib - middle.data_mdb_mib, 1),
        segments_mib: round(last.segments_mib - middle.segments_mib, 1),
      },
      recall_min: Math.min(...samples.map((s) => s.recall)),
      recall_median: [...samples.map((s) => s.recall)].sort((a, b) => a - b)[Math.floor(samples.length / 2)],
    };
    process.stdout.write(
      `${JSON.stringify({ bench: 'vector-churn', machine: machine(), settings: { n, dim, batch, searchesPerRound, minutes: Number(values.minutes) }, summary, samples }, null, 2)}\n`,
    );
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
