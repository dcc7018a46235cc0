/**
 * BM25 text search against SQLite FTS5 (better-sqlite3 12, bench/peers): the same Zipf
 * corpus (bench/lib/text-corpus.ts) built in both, then query sets of rare, frequent and
 * mixed terms, top 10, one query at a time.
 *
 *   npm run bench:text -- [--docs 100000] [--queries 100] [--rounds 5] [--builds 3]
 *        [--batch 5000] [--seed 20260131] [--sets rare,frequent,...] [--http yes|no]
 *        [--systems trellis,fts5]
 *
 * - **Build until searchable.** Trellis: open a fresh folder, create the `node_text` index
 *   through `/v2/query` DDL and wait for it to succeed, then insert the documents with
 *   `for_each` write requests of `--batch` rows; the time ends when the last write is
 *   acknowledged, and a write acknowledged is searchable. FTS5: a fresh file, WAL with
 *   `synchronous = NORMAL` (commits are not flushed to disk one by one, as Trellis
 *   acknowledges a write once visible, before its flush), one transaction of `--batch`
 *   prepared inserts at a time. Builds alternate between the systems, `--builds` times
 *   each; medians. With FTS5, the same Trellis inserts without the text index are timed
 *   too (`trellis_without_index`): what the index itself adds.
 * - **Queries.** Trellis embedded through its whole pipeline (`db.query` with the
 *   request as an object and the text as a parameter: planning, search, encoding and
 *   parsing the answer back; and `trellis-prepared`, the same request prepared once with
 *   `db.prepare` and run with the text as its parameter, as FTS5's statement is prepared
 *   once), and over HTTP (the server CLI as a child process on the
 *   same folder, one keep-alive connection); FTS5 with a prepared
 *   `SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10`.
 *   Each round runs every set on every system, the order of the systems rotating; q/s are
 *   medians over rounds, and ratios are Trellis over FTS5 in the same phase.
 * - **Cross-check.** FTS5's bm25 uses idf ln((N − df + 0.5)/(df + 0.5)) (floored at
 *   1e-6); Trellis (tantivy's, HelixDB's) ln(1 + (N − df + 0.5)/(df + 0.5)). The rest of
 *   the formula (k1 1.2, b 0.75, exact lengths and average) is the same. For every query,
 *   each term's FTS5 bm25 over all its documents is re-weighted by the ratio of the two
 *   idfs and summed; Trellis's top 10 must equal that ranking up to ties, and its scores
 *   must equal those sums (relative 1e-5, Trellis's are f32). For a single term the
 *   re-weighting is one positive factor, so this is FTS5's own ranking. How often FTS5's
 *   own OR ranking has the same top 10 is reported too. Without FTS5 (`--systems trellis`,
 *   as the smoke test runs it), Trellis's answers are checked against BM25 computed from the
 *   corpus itself (src/search/bm25.ts's scoreDocument over every matching document).
 *
 * Prints one JSON document; progress goes to stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { open, type Database } from '../src/index.js';
import { idf, scoreDocument } from '../src/search/bm25.js';
import { analyzeDocument, type DocumentAnalysis } from '../src/search/text-analysis.js';
import { startChild } from './lib/child.js';
import { machine, positiveInt, progress, runBench } from './lib/cli.js';
import { RawConnection } from './lib/raw-client.js';
import { median, round } from './lib/stats.js';
import { DEFAULT_CORPUS, QUERY_SET_NAMES, textCorpus, type QuerySetName, type TextCorpus } from './lib/text-corpus.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const K = 10;
/** FTS5's bm25 floors an idf at or below zero (terms in more than half the rows) to this. */
const FTS5_IDF_FLOOR = 1e-6;
const SCORE_TOLERANCE = 1e-5;

interface Args {
  docs: number;
  queries: number;
  rounds: number;
  builds: number;
  batch: number;
  seed: number;
  sets: QuerySetName[];
  http: boolean;
  fts5: boolean;
}

function parse(argv: string[]): Args {
  const names = ['docs', 'queries', 'rounds', 'builds', 'batch', 'seed', 'sets', 'http', 'systems'];
  const options = Object.fromEntries(names.map((n) => [n, { type: 'string' as const }]));
  const { values: v } = parseArgs({ args: argv, options, strict: true });
  const sets = (v.sets?.split(',') ?? QUERY_SET_NAMES) as QuerySetName[];
  for (const s of sets) if (!QUERY_SET_NAMES.includes(s)) throw new Error(`--sets: unknown set ${s}; known: ${QUERY_SET_NAMES.join(', ')}`);
  if (v.http !== undefined && v.http !== 'yes' && v.http !== 'no') throw new Error('--http must be yes or no');
  const systems = v.systems?.split(',') ?? ['trellis', 'fts5'];
  if (!systems.includes('trellis') || systems.some((n) => n !== 'trellis' && n !== 'fts5'))
    throw new Error('--systems: trellis, and optionally fts5');
  return {
    docs: positiveInt(v.docs, DEFAULT_CORPUS.documents, 'docs'),
    queries: positiveInt(v.queries, DEFAULT_CORPUS.queries, 'queries'),
    rounds: positiveInt(v.rounds, 5, 'rounds'),
    builds: positiveInt(v.builds, 3, 'builds'),
    batch: positiveInt(v.batch, 5_000, 'batch'),
    seed: positiveInt(v.seed, DEFAULT_CORPUS.seed, 'seed'),
    sets,
    http: v.http !== 'no',
    fts5: systems.includes('fts5'),
  };
}

// ---- SQLite FTS5 through better-sqlite3 (bench/peers) ----

interface Statement {
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
}
interface SqliteDb {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  pragma(sql: string): unknown;
  transaction<T extends (...a: never[]) => unknown>(fn: T): T;
  close(): void;
}
type SqliteCtor = new (path: string) => SqliteDb;

function loadSqlite(): SqliteCtor {
  const peers = createRequire(join(ROOT, 'bench/peers/package.json'));
  try {
    return peers('better-sqlite3') as SqliteCtor;
  } catch (err) {
    throw new Error(`better-sqlite3 is not installed in bench/peers (npm run bench:text installs it): ${String(err)}`, { cause: err });
  }
}

/** An FTS5 MATCH expression ORing the terms, each quoted (so no word is read as an operator). */
const ftsMatch = (terms: readonly string[]): string => terms.map((t) => `"${t}"`).join(' OR ');

interface Hit {
  readonly id: number;
  readonly score: number;
}

class Fts5 {
  private readonly search: Statement;
  private readonly termHits: Statement;

  private constructor(
    readonly db: SqliteDb,
    readonly file: string,
  ) {
    this.search = db.prepare('SELECT rowid AS id, bm25(docs) AS score FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10');
    this.termHits = db.prepare('SELECT rowid AS id, bm25(docs) AS score FROM docs WHERE docs MATCH ?');
  }

  static build(Sqlite: SqliteCtor, dir: string, corpus: TextCorpus, batch: number): { fts: Fts5; ms: number } {
    const file = join(dir, 'fts5.db');
    const start = performance.now();
    const db = new Sqlite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE VIRTUAL TABLE docs USING fts5(body)');
    const insert = db.prepare('INSERT INTO docs(rowid, body) VALUES (?, ?)');
    const load = db.transaction((from: number, to: number) => {
      for (let d = from; d < to; d++) insert.run(d, corpus.documents[d]);
    });
    for (let from = 0; from < corpus.documents.length; from += batch) load(from, Math.min(from + batch, corpus.documents.length));
    const ms = performance.now() - start;
    return { fts: new Fts5(db, file), ms };
  }

  /** FTS5's top 10, best first (bm25() is negated: smaller is better). */
  top(terms: readonly string[]): Hit[] {
    return (this.search.all(ftsMatch(terms)) as Hit[]).map((h) => ({ id: h.id, score: -h.score }));
  }

  /** Every document of one term with its FTS5 bm25 (positive). */
  termScores(term: string): Hit[] {
    return (this.termHits.all(ftsMatch([term])) as Hit[]).map((h) => ({ id: h.id, score: -h.score }));
  }

  close(): void {
    this.db.close();
  }
}

// ---- Trellis, embedded and over HTTP ----

const LABEL = 'Doc';
const PROPERTY = 'body';

const createIndexRequest = {
  request_type: 'write',
  query: {
    write: {
      entries: [{ query: { name: 'r', root: { create_index: { spec: { node_text: { label: LABEL, property: PROPERTY } } } } } }],
      returns: ['r'],
    },
  },
};

const operationRequest = (id: string) => ({
  request_type: 'read',
  query: { read: { entries: [{ query: { name: 'r', root: { get_index_operation: { operation_id: id } } } }], returns: ['r'] } },
});

const insertRequest = (rows: readonly { body: string }[]) => ({
  request_type: 'write',
  query: {
    write: {
      entries: [
        {
          for_each: {
            param: 'rows',
            body: [{ query: { root: { add_n: { label: LABEL, properties: [[PROPERTY, { expr: { param: 'body' } }]] } } } }],
          },
        },
      ],
      returns: [],
    },
  },
  parameters: { rows },
});

const searchRequest = (text: string) => ({
  request_type: 'read',
  query: {
    read: {
      entries: [
        {
          query: {
            name: 'hits',
            root: { text_search_nodes: { label: LABEL, property: PROPERTY, query_text: { expr: { param: 'q' } }, k: { literal: K } } },
          },
        },
      ],
      returns: ['hits'],
    },
  },
  parameters: { q: text },
});

interface TrellisHit {
  readonly $id: number;
  readonly $score: number;
}

const hitsOf = (answer: Record<string, unknown>): Hit[] => (answer['hits'] as TrellisHit[]).map((h) => ({ id: h.$id, score: h.$score }));

async function buildTrellis(dir: string, corpus: TextCorpus, batch: number, index = true): Promise<{ db: Database; ms: number }> {
  const start = performance.now();
  const db = await open(join(dir, 'trellis'));
  const receipt = index ? ((await db.query(createIndexRequest))['r'] as { operation_id: string }) : null;
  for (let polls = 0; receipt !== null; polls++) {
    const status = (await db.query(operationRequest(receipt.operation_id)))['r'] as { status: string };
    if (status.status === 'succeeded') break;
    if ((status.status !== 'queued' && status.status !== 'running') || polls > 10_000)
      throw new Error(`the text index build did not succeed: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  for (let from = 0; from < corpus.documents.length; from += batch) {
    const rows = corpus.documents.slice(from, from + batch).map((body) => ({ body }));
    await db.query(insertRequest(rows));
  }
  return { db, ms: performance.now() - start };
}

// ---- The cross-check ----

interface CheckFigures {
  queries: number;
  /** Queries whose top 10 equals FTS5's re-weighted ranking up to ties, scores included. */
  equal: number;
  /** Queries whose top 10 (as a set of ids) equals FTS5's own bm25 top 10. */
  sameAsFts5Ranking: number;
  failures: string[];
}

/**
 * FTS5's bm25 of every document of the query, each term's share re-weighted from FTS5's idf
 * to Trellis's: the ranking Trellis must produce.
 */
function reference(fts: Fts5, terms: readonly string[], documents: number): Map<number, number> {
  const scores = new Map<number, number>();
  for (const term of terms) {
    const hits = fts.termScores(term);
    const df = hits.length;
    if (df === 0) continue;
    const ftsIdf = Math.max(FTS5_IDF_FLOOR, Math.log((documents - df + 0.5) / (df + 0.5)));
    const factor = idf(documents, df) / ftsIdf;
    for (const h of hits) scores.set(h.id, (scores.get(h.id) ?? 0) + h.score * factor);
  }
  return scores;
}

/** BM25 from the corpus itself (scoreDocument over every document holding a query term). */
class CorpusReference {
  private readonly analyses: DocumentAnalysis[];
  private readonly postings = new Map<string, number[]>();
  private readonly stats: { documents: number; totalLength: number };

  constructor(corpus: TextCorpus) {
    this.analyses = corpus.documents.map(analyzeDocument);
    let total = 0;
    this.analyses.forEach((a, d) => {
      total += a.length;
      for (const term of a.terms.keys()) {
        const list = this.postings.get(term) ?? [];
        list.push(d);
        this.postings.set(term, list);
      }
    });
    this.stats = { documents: corpus.documents.length, totalLength: total };
  }

  scores(terms: readonly string[]): Map<number, number> {
    const dfs = new Map(terms.map((t) => [t, this.postings.get(t)?.length ?? 0]));
    const scores = new Map<number, number>();
    for (const t of terms)
      for (const d of this.postings.get(t) ?? []) scores.set(d, scoreDocument(this.stats, terms, dfs, this.analyses[d]!));
    return scores;
  }
}

const near = (a: number, b: number): boolean => Math.abs(a - b) <= SCORE_TOLERANCE * Math.max(1, Math.abs(b));

/**
 * Equal up to ties: the same number of hits, every Trellis hit's reference score equals
 * its own, and the i-th best reference score equals the i-th Trellis score (so the ids may
 * differ only among documents whose scores tie).
 */
function compareTop(got: readonly Hit[], want: Map<number, number>): string | null {
  const best = [...want.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, K);
  if (got.length !== best.length) return `${got.length} hits, FTS5 has ${best.length}`;
  for (let i = 0; i < got.length; i++) {
    const hit = got[i]!;
    const ref = want.get(hit.id);
    if (ref === undefined) return `hit ${i} (doc ${hit.id}) does not match the query in FTS5`;
    if (!near(hit.score, ref)) return `hit ${i} (doc ${hit.id}) scores ${hit.score}, FTS5 re-weighted ${ref}`;
    if (!near(hit.score, best[i]![1])) return `hit ${i} scores ${hit.score}, FTS5's ${i}-th best is ${best[i]![1]} (doc ${best[i]![0]})`;
  }
  return null;
}

async function crossCheck(db: Database, against: Fts5 | CorpusReference, corpus: TextCorpus, set: QuerySetName): Promise<CheckFigures> {
  const figures: CheckFigures = { queries: 0, equal: 0, sameAsFts5Ranking: 0, failures: [] };
  for (const terms of corpus.queries[set]) {
    figures.queries++;
    const got = hitsOf(await db.query(searchRequest(terms.join(' '))));
    const want = against instanceof Fts5 ? reference(against, terms, corpus.documents.length) : against.scores(terms);
    const problem = compareTop(got, want);
    if (problem === null) figures.equal++;
    else if (figures.failures.length < 5) figures.failures.push(`${set} [${terms.join(' ')}]: ${problem}`);
    if (!(against instanceof Fts5)) continue;
    const own = new Set(against.top(terms).map((h) => h.id));
    if (got.every((h) => own.has(h.id)) && own.size === got.length) figures.sameAsFts5Ranking++;
  }
  return figures;
}

/** Node ids are allocated from 0 in a fresh folder, so document d is node d: checked on a sample. */
async function checkIds(db: Database, corpus: TextCorpus): Promise<void> {
  for (const d of [0, corpus.documents.length >> 1, corpus.documents.length - 1]) {
    const answer = await db.query({
      request_type: 'read',
      query: {
        read: {
          entries: [{ query: { name: 'b', root: { values: { input: { nodes: { reference: { ids: [d] } } }, properties: [PROPERTY] } } } }],
          returns: ['b'],
        },
      },
    });
    const body = (answer['b'] as { body: string }[])[0]?.body;
    if (body !== corpus.documents[d]) throw new Error(`node ${d} is not document ${d}`);
  }
}

// ---- Timing ----

type Runner = (terms: readonly string[]) => Promise<unknown> | unknown;

/** Runs every query of the set once; q/s. */
async function timeSet(run: Runner, queries: readonly (readonly string[])[]): Promise<number> {
  const start = performance.now();
  for (const terms of queries) await run(terms);
  return queries.length / ((performance.now() - start) / 1000);
}

async function timeRounds(
  systems: Record<string, Runner>,
  corpus: TextCorpus,
  args: Args,
): Promise<Record<string, Record<QuerySetName, number>>> {
  const names = Object.keys(systems);
  const samples: Record<string, Record<string, number[]>> = Object.fromEntries(names.map((n) => [n, {}]));
  // One warm-up pass, then the timed rounds.
  for (const set of args.sets) for (const n of names) await timeSet(systems[n]!, corpus.queries[set]);
  for (let r = 0; r < args.rounds; r++) {
    for (const set of args.sets) {
      for (let i = 0; i < names.length; i++) {
        const n = names[(i + r) % names.length]!;
        (samples[n]![set] ??= []).push(await timeSet(systems[n]!, corpus.queries[set]));
      }
    }
    progress(`round ${r + 1}/${args.rounds} done`);
  }
  const out: Record<string, Record<QuerySetName, number>> = {};
  for (const n of names) {
    out[n] = {} as Record<QuerySetName, number>;
    // Three significant digits: FTS5 answers some sets a few times a second, and ratios divide these.
    for (const set of args.sets) out[n][set] = Number(median(samples[n]![set]!).toPrecision(3));
  }
  return out;
}

function ratios(
  figures: Record<string, Record<QuerySetName, number>>,
  system: string,
  peer: string,
  sets: readonly QuerySetName[],
): Record<string, number> {
  return Object.fromEntries(sets.map((s) => [s, round(figures[system]![s] / figures[peer]![s], 2)]));
}

/** The query sets over HTTP: the server CLI on the built folder, one keep-alive connection, in rounds with FTS5. */
async function timeHttp(
  folder: string,
  corpus: TextCorpus,
  args: Args,
  fts: Fts5 | null,
  children: { stop(): Promise<void> }[],
): Promise<Record<string, Record<QuerySetName, number>>> {
  const server = await startChild(
    'trellis',
    [],
    CLI,
    ['--port', '0', '--data', folder],
    /listening on http:\/\/[^:]+:(\d+)/,
    /trellis ready/,
  );
  children.push(server);
  let connection = await RawConnection.open(server.port);
  // The server closes a connection idle for a while (while FTS5 runs a slow set, say): open another.
  const post = async (body: string) => {
    try {
      return await connection.post(body);
    } catch {
      connection.close();
      connection = await RawConnection.open(server.port);
      return connection.post(body);
    }
  };
  try {
    const systems: Record<string, Runner> = {
      'trellis-http': async (terms) => {
        const answer = await post(JSON.stringify(searchRequest(terms.join(' '))));
        if (answer.status !== 200) throw new Error(`HTTP search failed: ${answer.status} ${answer.body}`);
      },
    };
    if (fts !== null) systems['fts5'] = (terms) => fts.top(terms);
    return await timeRounds(systems, corpus, args);
  } finally {
    connection.close();
  }
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const Sqlite = args.fts5 ? loadSqlite() : null;
  progress(`generating ${args.docs} documents`);
  const corpus = textCorpus({ ...DEFAULT_CORPUS, documents: args.docs, queries: args.queries, seed: args.seed });
  const tokens = corpus.documents.reduce((n, d) => n + d.split(' ').length, 0);
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'trellis-text-bench-'));
    dirs.push(dir);
    return dir;
  };
  const children: { stop(): Promise<void> }[] = [];
  try {
    // Builds, alternating; the last of each is searched, the folders of the others removed.
    const buildMs: Record<'trellis' | 'fts5' | 'trellis-no-index', number[]> = { trellis: [], fts5: [], 'trellis-no-index': [] };
    let db: Database | null = null;
    let fts: Fts5 | null = null;
    let trellisDir = '';
    const systems = args.fts5 ? (['fts5', 'trellis', 'trellis-no-index'] as const) : (['trellis'] as const);
    for (let b = 0; b < args.builds; b++) {
      for (const system of b % 2 === 0 ? systems : [...systems].reverse()) {
        const dir = fresh();
        if (system === 'fts5') {
          fts?.close();
          if (fts !== null) rmSync(dirname(fts.file), { recursive: true, force: true });
          const built = Fts5.build(Sqlite!, dir, corpus, args.batch);
          fts = built.fts;
          buildMs.fts5.push(built.ms);
        } else if (system === 'trellis-no-index') {
          // The same inserts without the text index: what the index adds to the load.
          const bare = await buildTrellis(dir, corpus, args.batch, false);
          buildMs[system].push(bare.ms);
          await bare.db.close();
          rmSync(dir, { recursive: true, force: true });
        } else {
          await db?.close();
          if (trellisDir !== '') rmSync(dirname(trellisDir), { recursive: true, force: true });
          const built = await buildTrellis(dir, corpus, args.batch);
          db = built.db;
          trellisDir = join(dir, 'trellis');
          buildMs.trellis.push(built.ms);
        }
        progress(`build ${b + 1}/${args.builds} ${system}: ${round(buildMs[system].at(-1)!, 0)} ms`);
      }
    }
    if (db === null) throw new Error('no build ran');
    const trellisDb = db;
    const ftsDb = fts;

    await checkIds(trellisDb, corpus);
    const against = ftsDb ?? new CorpusReference(corpus);
    const check: Record<string, CheckFigures> = {};
    for (const set of args.sets) {
      check[set] = await crossCheck(trellisDb, against, corpus, set);
      progress(`cross-check ${set}: ${check[set].equal}/${check[set].queries} equal`);
    }

    // The same request prepared once (Database.prepare), as FTS5's statement is; it must
    // answer every query as the request does.
    const { parameters: _unused, ...searchTemplate } = searchRequest('');
    const prepared = trellisDb.prepare(searchTemplate);
    const preparedCheck = { queries: 0, equal: 0 };
    for (const set of args.sets) {
      for (const terms of corpus.queries[set]) {
        const text = terms.join(' ');
        const want = JSON.stringify(hitsOf(await trellisDb.query(searchRequest(text))));
        preparedCheck.queries++;
        if (JSON.stringify(hitsOf(await prepared.query({ q: text }))) === want) preparedCheck.equal++;
      }
    }
    progress(`prepared: ${preparedCheck.equal}/${preparedCheck.queries} answers equal to the request's`);
    const embeddedSystems: Record<string, Runner> = {
      trellis: async (terms) => hitsOf(await trellisDb.query(searchRequest(terms.join(' ')))),
      'trellis-prepared': async (terms) => hitsOf(await prepared.query({ q: terms.join(' ') })),
    };
    if (ftsDb !== null) embeddedSystems['fts5'] = (terms) => ftsDb.top(terms);
    const embedded = await timeRounds(embeddedSystems, corpus, args);
    progress(`embedded q/s: ${JSON.stringify(embedded)}`);
    await trellisDb.close();

    let http: Record<string, Record<QuerySetName, number>> | null = null;
    let httpError: string | null = null;
    if (args.http) {
      try {
        http = await timeHttp(trellisDir, corpus, args, ftsDb, children);
      } catch (err) {
        // A server another process stopped, say: the embedded figures still stand.
        httpError = String(err);
        progress(`HTTP phase failed: ${httpError}`);
      }
    }
    ftsDb?.close();

    const report = {
      bench: 'text-search',
      machine: machine(),
      load_average: loadavg().map((l) => round(l, 2)),
      corpus: { ...corpus.options, tokens },
      batch: args.batch,
      build_ms: {
        trellis: round(median(buildMs.trellis), 0),
        fts5: ftsDb === null ? null : round(median(buildMs.fts5), 0),
        trellis_without_index: ftsDb === null ? null : round(median(buildMs['trellis-no-index']), 0),
        runs: Object.fromEntries(Object.entries(buildMs).map(([system, runs]) => [system, runs.map((m) => round(m, 0))])),
        ratio_trellis_over_fts5: ftsDb === null ? null : round(median(buildMs.trellis) / median(buildMs.fts5), 2),
      },
      cross_check: check,
      prepared_check: preparedCheck,
      qps_embedded: embedded,
      ratio_embedded: ftsDb === null ? null : ratios(embedded, 'trellis', 'fts5', args.sets),
      ratio_embedded_prepared: ftsDb === null ? null : ratios(embedded, 'trellis-prepared', 'fts5', args.sets),
      qps_http: http,
      ratio_http: http === null || ftsDb === null ? null : ratios(http, 'trellis-http', 'fts5', args.sets),
      http_error: httpError,
    };
    console.log(JSON.stringify(report, null, 2));
    const failed = Object.values(check).some((c) => c.equal !== c.queries) || preparedCheck.equal !== preparedCheck.queries;
    if (failed) throw new Error('the cross-check failed (see cross_check and prepared_check in the report)');
  } finally {
    for (const child of children) await child.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

await runBench(main);
