/**
 * Kùzu (embedded, Cypher) as a benchmark peer. Bulk load is its documented fast path: CSV
 * files plus COPY FROM. Every QueryResult is closed before the database is, because Kùzu
 * crashes on close otherwise.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import kuzu from 'kuzu';
import { generateEdges, userProps, type DatasetSize, type UserProps } from '../lib/dataset.js';
import { parseChildArgs, runEmbedded, type Adapter } from '../lib/peer-types.js';

type Row = Record<string, unknown>;

async function writeLines(path: string, header: string, count: number, line: (i: number) => string): Promise<void> {
  const out = createWriteStream(path);
  out.write(header + '\n');
  let chunk: string[] = [];
  for (let i = 0; i < count; i++) {
    chunk.push(line(i));
    if (chunk.length === 10_000 || i === count - 1) {
      if (!out.write(chunk.join('\n') + '\n')) await once(out, 'drain');
      chunk = [];
    }
  }
  out.end();
  await once(out, 'finish');
}

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
    const users = join(this.dir, 'users.csv');
    const follows = join(this.dir, 'follows.csv');
    await writeLines(users, 'uid,name,age,status,score', size.nodes, (i) => {
      const u = userProps(seed, i);
      return `${u.uid},${u.name},${u.age},${u.status},${u.score}`;
    });
    const e = generateEdges(seed, size);
    await writeLines(follows, 'from,to,since', size.edges, (k) => `${e.from[k]},${e.to[k]},${e.since[k]}`);
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
