/**
 * Kùzu's side of bench/weighted-path.ts: loads the dataset's CSV files (with the edge
 * weights) by COPY FROM, then answers commands, one JSON line each, on stdin:
 *
 * - `costs`: the cost of the weighted shortest path of each pair (null when there is none);
 * - `round`: every pair once, one query at a time, each timed here (execute, read the
 *   rows, close the result), so the pipe between the processes is not part of a figure;
 * - `quit`: closes the database and exits.
 *
 * Each answer is one JSON line on stdout. The query is a prepared statement:
 * `MATCH (a:User {uid: $a})-[e:FOLLOWS* WSHORTEST(weight)]->(b:User {uid: $b}) RETURN cost(e)`.
 * Kùzu bounds the hops of a recursive pattern by `var_length_extend_max_depth` (30 by
 * default, also for WSHORTEST); `--max-depth N` sets it.
 *
 *   node bench/peers/dist/peers/kuzu-wpath.js --users users.csv --follows follows.csv --pairs pairs.json [--max-depth N]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import kuzu from 'kuzu';

const WSHORTEST = 'MATCH (a:User {uid: $a})-[e:FOLLOWS* WSHORTEST(weight)]->(b:User {uid: $b}) RETURN cost(e) AS c';

const arg = (flag: string): string | undefined => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const required = (flag: string): string => {
  const v = arg(flag);
  if (v === undefined) throw new Error(`${flag} is required`);
  return v;
};

const send = (message: object) => process.stdout.write(JSON.stringify(message) + '\n');

const dir = mkdtempSync(join(tmpdir(), 'bench-kuzu-wpath-'));
try {
  const pairs = JSON.parse(readFileSync(required('--pairs'), 'utf8')) as [number, number][];
  const db = new kuzu.Database(join(dir, 'db'));
  const conn = new kuzu.Connection(db);
  const rows = async (cypher: string): Promise<Record<string, unknown>[]> => {
    const res = await conn.query(cypher);
    const all = Array.isArray(res) ? res : [res];
    try {
      return (await all[all.length - 1]!.getAll()) as Record<string, unknown>[];
    } finally {
      all.forEach((r) => r.close());
    }
  };
  const t0 = performance.now();
  await rows('CREATE NODE TABLE User(uid INT64 PRIMARY KEY, name STRING, age INT64, status STRING, score DOUBLE)');
  await rows('CREATE REL TABLE FOLLOWS(FROM User TO User, since INT64, weight DOUBLE)');
  await rows(`COPY User FROM '${required('--users')}' (HEADER=true)`);
  await rows(`COPY FOLLOWS FROM '${required('--follows')}' (HEADER=true)`);
  const copyMs = Math.round(performance.now() - t0);
  const maxDepth = arg('--max-depth');
  if (maxDepth !== undefined) await rows(`CALL var_length_extend_max_depth=${Number(maxDepth)}`);
  const depth = (await rows('CALL current_setting("var_length_extend_max_depth") RETURN *'))[0]!['var_length_extend_max_depth'];
  const threads = (await rows('CALL current_setting("threads") RETURN *'))[0]!['threads'];
  const edges = Number((await rows('MATCH ()-[f:FOLLOWS]->() RETURN count(f) AS n'))[0]!['n']);

  const stmt = await conn.prepare(WSHORTEST);
  if (!stmt.isSuccess()) throw new Error(`kuzu: ${stmt.getErrorMessage()}`);
  /** The cost of one pair's path, null when there is none. */
  const cost = async (a: number, b: number): Promise<number | null> => {
    const res = await conn.execute(stmt, { a, b });
    const one = Array.isArray(res) ? res[res.length - 1]! : res;
    try {
      const got = (await one.getAll()) as { c: number }[];
      return got.length === 0 ? null : Number(got[0]!.c);
    } finally {
      if (Array.isArray(res)) res.forEach((r) => r.close());
      else res.close();
    }
  };

  send({ ready: true, version: kuzu.Database.getVersion(), copyMs, edges, maxDepth: Number(depth), threads: Number(threads) });
  for await (const line of createInterface({ input: process.stdin })) {
    const command = line.trim();
    if (command === 'costs') {
      const costs: (number | null)[] = [];
      for (const [a, b] of pairs) costs.push(await cost(a, b));
      send({ costs });
    } else if (command === 'round') {
      const lat: number[] = [];
      const start = performance.now();
      for (const [a, b] of pairs) {
        const s = performance.now();
        await cost(a, b);
        lat.push(performance.now() - s);
      }
      send({ lat, totalMs: performance.now() - start });
    } else if (command === 'quit') {
      break;
    } else if (command !== '') {
      send({ error: `unknown command ${JSON.stringify(command)}` });
    }
  }
  await conn.close();
  await db.close();
  send({ closed: true, rssMb: Math.round(process.resourceUsage().maxRSS / 1024) });
} catch (err) {
  send({ error: err instanceof Error ? err.message : String(err) });
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
// stdin may still be open (the parent quit first or died): leave anyway.
process.exit();
