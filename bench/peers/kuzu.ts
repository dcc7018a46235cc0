/**
 * Kùzu (embedded, Cypher) as a benchmark peer. Bulk load is its documented fast path: CSV
 * files plus COPY FROM. Every QueryResult is closed before the database is, because Kùzu
 * crashes on close otherwise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kuzu from 'kuzu';
import type { DatasetSize, UserProps } from '../lib/dataset.js';
import { writeDatasetCsv } from '../lib/import-files.js';
import { parseChildArgs, runEmbedded, type Adapter } from '../lib/peer-types.js';

type Row = Record<string, unknown>;

class KuzuAdapter implements Adapter {
  readonly system = 'kuzu';
  readonly version = kuzu.Database.getVersion();
  private readonly dir = mkdtempSync(join(tmpdir(), 'bench-kuzu-'));
  private readonly db = new kuzu.Database(join(this.dir, 'db'));
  private readonly conn = new kuzu.Connection(this.db);
  private readonly prepared = new Map<string, kuzu.PreparedStatement>();

  private async run(cypher: string, params?: Record<string, kuzu.KuzuValue>): Promise<Row[]> {
    let stmt = this.prepared.get(cypher);
    if (!stmt) {
      stmt = await this.conn.prepare(cypher);
      if (!stmt.isSuccess()) throw new Error(`kuzu: ${stmt.getErrorMessage()} in ${cypher}`);
      this.prepared.set(cypher, stmt);
    }
    const res = await this.conn.execute(stmt, params ?? {});
    const one = Array.isArray(res) ? res[res.length - 1]! : res;
    try {
      return (await one.getAll()) as Row[];
    } finally {
      if (Array.isArray(res)) res.forEach((r) => r.close());
      else res.close();
    }
  }

  private async exec(cypher: string): Promise<void> {
    const res = await this.conn.query(cypher);
    (Array.isArray(res) ? res : [res]).forEach((r) => r.close());
  }

  async load(seed: number, size: DatasetSize): Promise<Record<string, number>> {
    const t0 = performance.now();
    const { users, follows } = await writeDatasetCsv(this.dir, seed, size);
    const t1 = performance.now();
    await this.exec('CREATE NODE TABLE User(uid INT64 PRIMARY KEY, name STRING, age INT64, status STRING, score DOUBLE)');
    await this.exec('CREATE REL TABLE FOLLOWS(FROM User TO User, since INT64)');
    await this.exec(`COPY User FROM '${users}' (HEADER=true)`);
    const t2 = performance.now();
    await this.exec(`COPY FOLLOWS FROM '${follows}' (HEADER=true)`);
    const t3 = performance.now();
    return {
      generateAndWriteCsv: Math.round(t1 - t0),
      copyNodes: Math.round(t2 - t1),
      copyEdges: Math.round(t3 - t2),
      copyFrom: Math.round(t3 - t1),
    };
  }

  async point(uid: number): Promise<UserProps | null> {
    const rows = await this.run(
      'MATCH (u:User {uid: $x}) RETURN u.uid AS uid, u.name AS name, u.age AS age, u.status AS status, u.score AS score',
      { x: uid },
    );
    return (rows[0] as UserProps | undefined) ?? null;
  }
  async oneHop(uid: number): Promise<number[]> {
    return (await this.run('MATCH (a:User {uid: $x})-[:FOLLOWS]->(b:User) RETURN b.uid AS uid', { x: uid })).map((r) => Number(r.uid));
  }
  async twoHopCount(uid: number): Promise<number> {
    const rows = await this.run('MATCH (a:User {uid: $x})-[:FOLLOWS]->()-[:FOLLOWS]->(c) RETURN count(*) AS n', { x: uid });
    return Number(rows[0]?.n);
  }
  async filteredCount(): Promise<number> {
    const rows = await this.run("MATCH (u:User) WHERE u.age >= 30 AND u.status = 'active' RETURN count(*) AS n");
    return Number(rows[0]?.n);
  }
  async topK(k: number): Promise<number[]> {
    return (await this.run(`MATCH (u:User) RETURN u.uid AS uid ORDER BY u.score DESC, u.uid ASC LIMIT ${k}`)).map((r) => Number(r.uid));
  }
  async insert(u: UserProps): Promise<void> {
    await this.run('CREATE (:User {uid: $uid, name: $name, age: $age, status: $status, score: $score})', { ...u });
  }
  async close(): Promise<void> {
    this.prepared.clear();
    await this.conn.close();
    await this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

try {
  await runEmbedded(async () => new KuzuAdapter(), parseChildArgs(process.argv.slice(2)));
  process.exit(0);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
