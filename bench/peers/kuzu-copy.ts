/**
 * Kùzu's COPY FROM of given CSV files alone (bench/import.ts runs it between Trellis's
 * imports of the same files): creates the two tables, copies the users then the follows,
 * prints one JSON line {copyNodes, copyEdges, copyFrom, rssMb} and removes its database.
 *
 *   node bench/peers/dist/peers/kuzu-copy.js --users users.csv --follows follows.csv
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kuzu from 'kuzu';

const arg = (flag: string) => {
  const i = process.argv.indexOf(flag);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`${flag} is required`);
  return v;
};

const dir = mkdtempSync(join(tmpdir(), 'bench-kuzu-copy-'));
try {
  const db = new kuzu.Database(join(dir, 'db'));
  const conn = new kuzu.Connection(db);
  const exec = async (cypher: string) => {
    const res = await conn.query(cypher);
    (Array.isArray(res) ? res : [res]).forEach((r) => r.close());
  };
  const t1 = performance.now();
  await exec('CREATE NODE TABLE User(uid INT64 PRIMARY KEY, name STRING, age INT64, status STRING, score DOUBLE)');
  await exec('CREATE REL TABLE FOLLOWS(FROM User TO User, since INT64)');
  await exec(`COPY User FROM '${arg('--users')}' (HEADER=true)`);
  const t2 = performance.now();
  await exec(`COPY FOLLOWS FROM '${arg('--follows')}' (HEADER=true)`);
  const t3 = performance.now();
  const result = await conn.query('MATCH ()-[f:FOLLOWS]->() RETURN count(f) AS n');
  const one = Array.isArray(result) ? result[0]! : result;
  const rows = (await one.getAll()) as { n: number }[];
  one.close();
  await conn.close();
  await db.close();
  process.stdout.write(
    JSON.stringify({
      version: kuzu.Database.getVersion(),
      copyNodes: Math.round(t2 - t1),
      copyEdges: Math.round(t3 - t2),
      copyFrom: Math.round(t3 - t1),
      edges: Number(rows[0]?.n),
      rssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    }) + '\n',
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
