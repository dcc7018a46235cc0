/**
 * Trellis side by side with embedded peer graph databases (bench/peers/): the same
 * dataset, the same queries, answers cross-checked against the generator before timing.
 * Every system runs in its own child process so peak RSS is per system.
 *
 *   node dist/bench/compare.js [--sizes small,medium] [--systems trellis,kuzu,surrealdb]
 *        [--seed N] [--budget-ms 3000] [--max-ops 20000] [--load-repeat N] [--markdown FILE]
 *
 * `--load-repeat N` loads each system N times into fresh stores and reports each load
 * phase's median (loads over 30 s are not repeated); the last store serves the queries.
 *
 * Prints one JSON document to stdout; progress goes to stderr. `npm run bench:peers`
 * installs and builds the peers first. Child mode: `--child trellis --size S --out FILE`.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, type Database } from '../src/index.js';
import { DEFAULT_SEED, SIZES, type DatasetSize, type SizeName, type UserProps } from './lib/dataset.js';
import { loadRequests, loadTrellis } from './lib/load-trellis.js';
import { writeDatasetCsv } from './lib/import-files.js';
import {
  crossCheck,
  measurePaired,
  measureReads,
  parseChildArgs,
  referenceAnswers,
  repeatLoads,
  runEmbedded,
  summarize,
  toMarkdown,
  type Adapter,
  type ChildArgs,
  type Failure,
  type Reader,
  type SystemReport,
} from './lib/peer-types.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PEERS: Record<string, string> = { kuzu: 'kuzu.js', surrealdb: 'surreal.js' };
const PROPS = ['uid', 'name', 'age', 'status', 'score'];

const node = { nodes: { reference: { param: 'x' } } };
const out = (input: unknown) => ({ out: { input, label: 'FOLLOWS' } });
const user = { eq: { left: { property: '$label' }, right: { constant: { string: 'User' } } } };
const read = (root: unknown) =>
  JSON.stringify({ request_type: 'read', query: { read: { entries: [{ query: { name: 'r', root } }], returns: ['r'] } } });
/** Parameters spliced into a fixed request text, as a client with a prepared request would. */
const withX = (body: string) => (x: number) => `{"parameters":{"x":${x}},${body.slice(1)}`;

const REQUESTS = {
  point: withX(read({ value_map: { input: node, properties: PROPS } })),
  oneHop: withX(read({ values: { input: out(node), properties: ['uid'] } })),
  twoHop: withX(read({ count: { input: out(out(node)) } })),
  filtered: read({
    count: {
      input: {
        nodes_where: {
          predicate: {
            and: {
              predicates: [
                user,
                { gte: { left: { property: 'age' }, right: { constant: { i64: 30 } } } },
                { eq: { left: { property: 'status' }, right: { constant: { string: 'active' } } } },
              ],
            },
          },
        },
      },
    },
  }),
  topK: (k: number) =>
    read({
      values: {
        input: {
          limit: {
            input: {
              order_by_multiple: {
                input: { nodes_where: { predicate: user } },
                orderings: [
                  ['score', 'desc'],
                  ['uid', 'asc'],
                ],
              },
            },
            count: { literal: k },
          },
        },
        properties: ['uid'],
      },
    }),
};
/**
 * The read queries in Cypher (POST /v2/cypher, Database.cypherText). `byId` asks what the
 * operation trees above ask (users by node id, as uid is the node id here), so the two
 * routes are compared on the same work; `kuzuText` is Kùzu's Cypher verbatim
 * (bench/peers/kuzu.ts), run after an equality index on User.uid (Kùzu's primary key).
 */
const CYPHER_RETURN = 'RETURN u.uid AS uid, u.name AS name, u.age AS age, u.status AS status, u.score AS score';
const CYPHER = {
  byId: {
    point: `MATCH (u:User) WHERE id(u) = $x ${CYPHER_RETURN}`,
    oneHop: 'MATCH (a:User)-[:FOLLOWS]->(b) WHERE id(a) = $x RETURN b.uid AS uid',
    twoHop: 'MATCH (a:User)-[:FOLLOWS]->()-[:FOLLOWS]->(c) WHERE id(a) = $x RETURN count(*) AS n',
  },
  kuzuText: {
    point: `MATCH (u:User {uid: $x}) ${CYPHER_RETURN}`,
    oneHop: 'MATCH (a:User {uid: $x})-[:FOLLOWS]->(b:User) RETURN b.uid AS uid',
    twoHop: 'MATCH (a:User {uid: $x})-[:FOLLOWS]->()-[:FOLLOWS]->(c) RETURN count(*) AS n',
  },
  filtered: "MATCH (u:User) WHERE u.age >= 30 AND u.status = 'active' RETURN count(*) AS n",
  topK: (k: number) => `MATCH (u:User) RETURN u.uid AS uid ORDER BY u.score DESC, u.uid ASC LIMIT ${k}`,
};
/** A Cypher request body with `$x` spliced in, as a client with a prepared request would send it. */
const cypherWithX = (query: string) => {
  const head = `{"query":${JSON.stringify(query)},"parameters":{"x":`;
  return (x: number) => `${head}${x}}}`;
};
const cypherBody = (query: string) => JSON.stringify({ query });
const cypherRows = (text: string) => (JSON.parse(text) as { rows: unknown[][] }).rows;

/** The read queries through the Cypher route: `texts` picks the by-id or Kùzu's wording. */
function cypherReader(send: Send, texts: (typeof CYPHER)['byId']): Reader {
  const point = cypherWithX(texts.point);
  const oneHop = cypherWithX(texts.oneHop);
  const twoHop = cypherWithX(texts.twoHop);
  return {
    point: async (uid) => {
      const row = cypherRows(await send(point(uid)))[0];
      if (row === undefined) return null;
      const [u, name, age, status, score] = row as [number, string, number, UserProps['status'], number];
      return { uid: u, name, age, status, score };
    },
    oneHop: async (uid) => cypherRows(await send(oneHop(uid))).map((r) => r[0] as number),
    twoHopCount: async (uid) => cypherRows(await send(twoHop(uid)))[0]![0] as number,
    filteredCount: async () => cypherRows(await send(cypherBody(CYPHER.filtered)))[0]![0] as number,
    topK: async (k) => cypherRows(await send(cypherBody(CYPHER.topK(k)))).map((r) => r[0] as number),
  };
}

/** Creates the equality index on User.uid and waits for its build (Kùzu's primary key, for its Cypher text). */
async function indexUid(send: Send): Promise<void> {
  const entry = (root: unknown) => ({ entries: [{ query: { name: 'r', root } }], returns: ['r'] });
  const made = JSON.parse(
    await send(
      JSON.stringify({
        request_type: 'write',
        query: { write: entry({ create_index: { spec: { node_equality: { label: 'User', property: 'uid' } }, if_not_exists: true } }) },
      }),
    ),
  ) as { r: { operation_id: string } };
  const poll = JSON.stringify({
    request_type: 'read',
    query: { read: entry({ get_index_operation: { operation_id: made.r.operation_id } }) },
  });
  for (;;) {
    const status = (JSON.parse(await send(poll)) as { r: { status: string } }).r.status;
    if (status === 'succeeded') return;
    if (status !== 'queued' && status !== 'running') throw new Error(`the uid index build ended ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A report of a reader on a store already loaded. With `tree`, the operation-tree reader
 * of the same store is timed in alternating rounds with it (measurePaired) and kept as
 * the report's baseline, which the Cypher/tree ratios divide by.
 */
async function readerReport(
  system: string,
  adapter: Adapter,
  reader: Reader,
  args: ChildArgs,
  note: string,
  tree?: { system: string; reader: Reader },
): Promise<SystemReport> {
  const size = SIZES[args.size];
  process.stderr.write(`[${system} ${args.size}] cross-checking and timing reads${tree ? ` against ${tree.system}` : ''}\n`);
  await crossCheck(system, reader, referenceAnswers(args.seed, size));
  const report: SystemReport = {
    system,
    version: adapter.version,
    size: args.size,
    nodes: size.nodes,
    edges: size.edges,
    loadMs: 0,
    loadPhasesMs: {},
    queries: {},
    maxRssMb: 0,
    notes: [note],
  };
  if (tree === undefined) {
    report.queries = await measureReads(reader, args, size.nodes);
  } else {
    const [baseline, queries] = await measurePaired(tree.reader, reader, args, size.nodes);
    report.queries = queries;
    report.baseline = { system: tree.system, queries: baseline };
  }
  return report;
}

const param = (name: string) => ({ expr: { param: name } });
const INSERT = JSON.stringify({
  request_type: 'write',
  query: {
    write: { entries: [{ query: { root: { add_n: { label: 'User', properties: PROPS.map((p) => [p, param(p)]) } } } }], returns: [] },
  },
});
/** Scores go out as floats even when integral, as the loader sends them. */
const insertText = (u: UserProps) =>
  `{"parameters":${JSON.stringify(u).replace(/"score":(-?\d+)([,}])/, '"score":$1.0$2')},${INSERT.slice(1)}`;

/** An empty write whose awaitDurable waits for the load's writes to reach the disk. */
const FLUSH = JSON.stringify({
  request_type: 'write',
  query: { write: { entries: [{ query: { root: { count: { input: { nodes: { reference: { ids: [] } } } } } } }], returns: [] } },
});

type Send = (text: string) => Promise<string>;
const values = (text: string) => (JSON.parse(text) as { r: unknown[] }).r;

/** The read queries over any transport that takes request text and returns response text. */
function trellisReader(send: Send): Reader {
  return {
    point: async (uid) => (values(await send(REQUESTS.point(uid)))[0] as UserProps | undefined) ?? null,
    oneHop: async (uid) => (values(await send(REQUESTS.oneHop(uid))) as { uid: number }[]).map((r) => r.uid),
    twoHopCount: async (uid) => values(await send(REQUESTS.twoHop(uid)))[0] as number,
    filteredCount: async () => values(await send(REQUESTS.filtered))[0] as number,
    topK: async (k) => (values(await send(REQUESTS.topK(k))) as { uid: number }[]).map((r) => r.uid),
  };
}

class TrellisAdapter implements Adapter {
  readonly system = 'trellis';
  readonly version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  readonly dir = mkdtempSync(join(tmpdir(), 'bench-trellis-'));
  db!: Database;
  private reader: Reader = trellisReader((text) => this.db.queryText(text));
  point = (uid: number) => this.reader.point(uid);
  oneHop = (uid: number) => this.reader.oneHop(uid);
  twoHopCount = (uid: number) => this.reader.twoHopCount(uid);
  filteredCount = () => this.reader.filteredCount();
  topK = (k: number) => this.reader.topK(k);

  async open(): Promise<this> {
    this.db = await open(this.dir);
    return this;
  }
  async load(seed: number, size: DatasetSize): Promise<Record<string, number>> {
    const { buildMs, nodesMs, edgesMs } = await loadTrellis(this.db, seed, size);
    const t = performance.now();
    await this.db.queryText(FLUSH, { awaitDurable: true });
    const flushMs = performance.now() - t;
    const database = Math.round(nodesMs + edgesMs + flushMs);
    return { requests: Math.round(buildMs), nodes: Math.round(nodesMs), edges: Math.round(edgesMs), flush: Math.round(flushMs), database };
  }
  async insert(u: UserProps): Promise<void> {
    await this.db.queryText(insertText(u));
  }
  async close(): Promise<void> {
    await this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

interface Server {
  url: string;
  stop(): Promise<number>;
}

/** The real server CLI as a child process on the loaded data folder; stop() returns its peak RSS (MB). */
async function startServer(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../src/cli.js', import.meta.url)), '--port', '0', '--data', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    let port = '';
    child.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      port ||= /listening on http:\/\/[^:]+:(\d+)/.exec(text)?.[1] ?? '';
      if (port && text.includes('trellis ready')) resolve(`http://127.0.0.1:${port}/v2/query`);
    });
    child.once('exit', (code) => reject(new Error(`trellis server exited with ${code}: ${text}`)));
  });
  return {
    url,
    async stop() {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      return Math.round(Number(hwm ?? 0) / 1024);
    },
  };
}

/** POSTs over `sockets` keep-alive connections with node:http (undici's fetch costs ~4x more per request here). */
function httpSender(url: string, sockets = 1): (text: string, headers?: Record<string, string>) => Promise<string> {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const target = new URL(url);
  return (text, headers = {}) =>
    new Promise((resolve, reject) => {
      const req = request(
        target,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${res.statusCode}: ${body}`))));
        },
      );
      req.on('error', reject);
      req.end(text);
    });
}

/** Sends texts with `concurrency` requests in flight, in order of start. */
async function sendAll(send: Send, texts: readonly string[], concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < texts.length) await send(texts[next++]!);
    }),
  );
}

/**
 * Trellis child: the embedded run, then the same data loaded through the real server
 * (requests under the 16 MiB body limit, two in flight, so a worker parses one while the
 * writer applies the other) and the read queries over HTTP against it. The HTTP load is
 * repeated as the embedded one is (`--load-repeat`, medians reported), each time into a
 * fresh server and folder; the last server answers the queries.
 */
async function runTrellisChild(args: ChildArgs): Promise<void> {
  await runEmbedded(
    () => new TrellisAdapter().open(),
    args,
    async (adapter) => {
      const size = SIZES[args.size];
      const db = (adapter as TrellisAdapter).db;
      const cypher = [
        await readerReport(
          'trellis-cypher',
          adapter,
          cypherReader((text) => db.cypherText(text), CYPHER.byId),
          args,
          'embedded, Cypher text asking what the /v2/query operation trees ask (users by node id), timed in alternating rounds with db.queryText',
          { system: 'trellis', reader: trellisReader((text) => db.queryText(text)) },
        ),
      ];
      await indexUid((text) => db.queryText(text));
      cypher.push(
        await readerReport(
          'trellis-cypher-kuzu-text',
          adapter,
          cypherReader((text) => db.cypherText(text), CYPHER.kuzuText),
          args,
          "embedded, Kùzu's Cypher text verbatim, with an equality index on User.uid (Kùzu's primary key), built after the load",
        ),
      );
      const requests = loadRequests(args.seed, size);
      type Target = { readonly server: Awaited<ReturnType<typeof startServer>>; readonly dir: string };
      const live = new Set<Target>();
      const drop = async (t: Target) => {
        live.delete(t);
        await t.server.stop().catch(() => 0);
        rmSync(t.dir, { recursive: true, force: true });
      };
      try {
        const {
          kept,
          loadMs,
          loadPhasesMs: phases,
          trialsMs,
        } = await repeatLoads(
          () => 'trellis-http',
          args,
          async () => {
            const dir = mkdtempSync(join(tmpdir(), 'bench-trellis-http-'));
            const target = { server: await startServer(dir), dir };
            live.add(target);
            return target;
          },
          async ({ server }) => {
            const load = httpSender(server.url, 2);
            const t0 = performance.now();
            await sendAll(load, requests.nodes, 2);
            const t1 = performance.now();
            await sendAll(load, requests.edges, 2);
            const t2 = performance.now();
            await load(FLUSH, { 'x-svc-await-durable': 'true' });
            const t3 = performance.now();
            return { nodes: Math.round(t1 - t0), edges: Math.round(t2 - t1), flush: Math.round(t3 - t2), database: Math.round(t3 - t0) };
          },
          drop,
        );
        process.stderr.write(`[trellis-http ${args.size}] cross-checking and timing reads\n`);
        const reader = trellisReader(httpSender(kept.server.url));
        await crossCheck('trellis-http', reader, referenceAnswers(args.seed, size));
        const cypherHttp = await readerReport(
          'trellis-cypher-http',
          adapter,
          cypherReader(httpSender(kept.server.url.replace('/v2/query', '/v2/cypher')), CYPHER.byId),
          args,
          'POST /v2/cypher on the same server as trellis-http, by-id Cypher text, one keep-alive connection, timed in alternating rounds with /v2/query',
          { system: 'trellis-http', reader },
        );
        // The /v2/query figures are the ones taken in alternation with the Cypher route.
        const queries = cypherHttp.baseline!.queries;
        const rss = await kept.server.stop();
        const notes = [
          'loaded over HTTP (requests under 16 MiB, two in flight); reads are sequential requests over one keep-alive connection (node:http), timed in alternating rounds with the same reads through /v2/cypher; RSS is the server process, default read workers',
        ];
        if (trialsMs.length > 1) notes.push(`load: median of ${trialsMs.length} loads into fresh servers (${trialsMs.join(', ')} ms)`);
        const report: SystemReport = {
          system: 'trellis-http',
          version: adapter.version,
          size: args.size,
          nodes: size.nodes,
          edges: size.edges,
          loadMs,
          loadPhasesMs: phases,
          queries,
          maxRssMb: rss,
          notes,
        };
        return [...cypher, report, cypherHttp, ...(await importReports(args, adapter.version))];
      } finally {
        for (const t of [...live]) await drop(t);
      }
    },
  );
}

/** Runs `trellis import <args>` as a child process; resolves with its wall time and its summary. */
function runImportCli(args: string[]): Promise<{ ms: number; out: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL('../src/cli.js', import.meta.url)), 'import', ...args, '--progress', 'none'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) =>
      code === 0 ? resolve({ ms: performance.now() - t0, out }) : reject(new Error(`trellis import failed: ${out}`)),
    );
  });
}

const importRss = (out: string) => Number(/peak RSS (\d+) MiB/.exec(out)?.[1] ?? 0);

/**
 * The import path beside the batch path: the CSV files Kùzu's COPY FROM loads
 * (bench/lib/import-files.ts) through `trellis import`, offline into a fresh folder and
 * online into a fresh server, each timed from the command's spawn to its exit (files to a
 * database ready to query), repeated as the loads are; answers cross-checked after. The
 * interleaved comparison with Kùzu is bench/import.ts.
 */
async function importReports(args: ChildArgs, version: string): Promise<SystemReport[]> {
  const size = SIZES[args.size];
  const files = mkdtempSync(join(tmpdir(), 'bench-import-csv-'));
  const reports: SystemReport[] = [];
  try {
    const { mapping } = await writeDatasetCsv(files, args.seed, size);
    for (const online of [false, true]) {
      const system = online ? 'trellis-import-http' : 'trellis-import';
      type Target = { dir: string; server: Server | null; rss: number };
      const drop = async (t: Target) => {
        await t.server?.stop();
        rmSync(t.dir, { recursive: true, force: true });
      };
      const { kept, loadMs, loadPhasesMs, trialsMs } = await repeatLoads<Target>(
        () => system,
        args,
        async () => {
          const dir = mkdtempSync(join(tmpdir(), 'bench-import-db-'));
          return { dir, server: online ? await startServer(dir) : null, rss: 0 };
        },
        async (t) => {
          const run = await runImportCli([
            ...(online ? ['--url', t.server!.url.replace('/v2/query', '')] : ['--data', t.dir]),
            '--mapping',
            mapping,
          ]);
          t.rss = importRss(run.out);
          return { import: Math.round(run.ms), database: Math.round(run.ms) };
        },
        drop,
      );
      try {
        const reader = online ? trellisReader(httpSender(kept.server!.url)) : null;
        if (reader !== null) await crossCheck(system, reader, referenceAnswers(args.seed, size));
        else {
          const db = await open(kept.dir, { readOnly: true });
          try {
            await crossCheck(
              system,
              trellisReader((text) => db.queryText(text)),
              referenceAnswers(args.seed, size),
            );
          } finally {
            await db.close();
          }
        }
      } finally {
        await drop(kept);
      }
      reports.push({
        system,
        version,
        size: args.size,
        nodes: size.nodes,
        edges: size.edges,
        loadMs,
        loadPhasesMs,
        queries: {},
        maxRssMb: kept.rss,
        notes: [
          `trellis import ${online ? '--url (a fresh server)' : '--data (a fresh folder)'} of the CSV files Kùzu's COPY FROM loads, timed from spawn to exit; RSS is the import process's`,
          ...(trialsMs.length > 1 ? [`load: median of ${trialsMs.length} imports (${trialsMs.join(', ')} ms)`] : []),
        ],
      });
    }
  } finally {
    rmSync(files, { recursive: true, force: true });
  }
  return reports;
}

function runChild(script: string, argv: string[], timeoutMs: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => process.stderr.write(d));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      process.stderr.write(d);
    });
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

async function main(argv: string[]): Promise<number> {
  const get = (flag: string, dflt: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? (argv[i + 1] ?? dflt) : dflt;
  };
  const sizes = get('--sizes', get('--size', 'small,medium')).split(',') as SizeName[];
  const systems = get('--systems', 'trellis,kuzu,surrealdb').split(',');
  const seed = get('--seed', String(DEFAULT_SEED));
  const timeoutMs = Number(get('--child-timeout-ms', String(40 * 60_000)));
  const passOn = [
    '--seed',
    seed,
    '--budget-ms',
    get('--budget-ms', '3000'),
    '--max-ops',
    get('--max-ops', '20000'),
    '--load-repeat',
    get('--load-repeat', '1'),
  ];
  const work = mkdtempSync(join(tmpdir(), 'bench-compare-'));
  const reports: SystemReport[] = [];
  const failures: Failure[] = [];
  try {
    for (const size of sizes) {
      if (!(size in SIZES)) throw new Error(`unknown size ${size}`);
      for (const system of systems) {
        if (system !== 'trellis' && size === 'large') continue;
        const script =
          system === 'trellis' ? fileURLToPath(import.meta.url) : join(ROOT, 'bench/peers/dist/peers', PEERS[system] ?? `${system}.js`);
        if (!existsSync(script)) {
          failures.push({ system, size, error: `not built: ${script} is missing (run npm run bench:peers)` });
          continue;
        }
        const outFile = join(work, `${system}-${size}.json`);
        const t0 = performance.now();
        const { code, stderr } = await runChild(
          script,
          [...(system === 'trellis' ? ['--child', 'trellis'] : []), '--size', size, '--out', outFile, ...passOn],
          timeoutMs,
        );
        if (code === 0 && existsSync(outFile)) reports.push(...(JSON.parse(readFileSync(outFile, 'utf8')) as SystemReport[]));
        else
          failures.push({
            system,
            size,
            error: `exit ${code} after ${Math.round(performance.now() - t0)} ms: ${stderr.trim().split('\n').slice(-12).join('\n')}`,
          });
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const machine = {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
  const summary = summarize(reports, failures, machine);
  process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  const md = get('--markdown', '');
  if (md) writeFileSync(md, toMarkdown(summary));
  const mismatch = failures.filter((f) => f.error.includes('answers differ'));
  if (mismatch.length) process.stderr.write(`answers differ between systems:\n${mismatch.map((f) => f.error).join('\n')}\n`);
  return failures.some((f) => !f.error.startsWith('not built')) ? 1 : 0;
}

const argv = process.argv.slice(2);
try {
  if (argv.includes('--child')) {
    await runTrellisChild(parseChildArgs(argv));
    process.exit(0);
  }
  process.exit(await main(argv));
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
