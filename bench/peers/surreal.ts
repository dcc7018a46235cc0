/**
 * SurrealDB (embedded through @surrealdb/node, SurrealKV storage) as a benchmark peer.
 * Users are records user:<uid> (the record id is the primary key), FOLLOWS edges are
 * relation records in `follows`. Bulk load uses batched `INSERT INTO user $rows` and
 * `INSERT RELATION INTO follows $rows` statements with bound arrays: the documented bulk
 * form of INSERT. The process is ended explicitly because the engine may keep it alive
 * after close.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordId, Surreal } from 'surrealdb';
import { createNodeEngines } from '@surrealdb/node';
import { generateEdges, userProps, type DatasetSize, type UserProps } from '../lib/dataset.js';
import { parseChildArgs, runEmbedded, type Adapter } from '../lib/peer-types.js';

const NODE_BATCH = 5_000;
const EDGE_BATCH = 10_000;
// The package's exports hide package.json; it sits beside dist/ in bench/peers/node_modules.
const pkg = JSON.parse(readFileSync(new URL('../../node_modules/@surrealdb/node/package.json', import.meta.url), 'utf8')) as {
  version: string;
  surreal?: string;
};

type UserRecord = { id: RecordId; name: string; age: number; status: UserProps['status']; score: number };
const user = (uid: number) => new RecordId('user', uid);
const uidOf = (r: unknown) => Number((r as RecordId).id);

class SurrealAdapter implements Adapter {
  readonly system = 'surrealdb';
  readonly version = `${pkg.surreal ?? '?'} (@surrealdb/node ${pkg.version})`;
  private readonly dir = mkdtempSync(join(tmpdir(), 'bench-surreal-'));
  private readonly db = new Surreal({ engines: createNodeEngines() });

  async open(): Promise<this> {
    await this.db.connect(`surrealkv://${join(this.dir, 'db')}`);
    await this.db.use({ namespace: 'bench', database: 'bench' });
    return this;
  }

  private async one<T>(sql: string, vars?: Record<string, unknown>): Promise<T> {
    const [result] = await this.db.query<[T]>(sql, vars).collect();
    return result as T;
  }

  async load(seed: number, size: DatasetSize): Promise<Record<string, number>> {
    const t0 = performance.now();
    for (let start = 0; start < size.nodes; start += NODE_BATCH) {
      const rows = [];
      for (let i = start; i < Math.min(size.nodes, start + NODE_BATCH); i++) {
        const u = userProps(seed, i);
        rows.push({ id: user(i), name: u.name, age: u.age, status: u.status, score: u.score });
      }
      await this.one('INSERT INTO user $rows RETURN NONE', { rows });
    }
    const t1 = performance.now();
    const e = generateEdges(seed, size);
    for (let start = 0; start < size.edges; start += EDGE_BATCH) {
      const rows = [];
      for (let k = start; k < Math.min(size.edges, start + EDGE_BATCH); k++)
        rows.push({ in: user(e.from[k]!), out: user(e.to[k]!), since: e.since[k]! });
      await this.one('INSERT RELATION INTO follows $rows RETURN NONE', { rows });
    }
    return { nodes: Math.round(t1 - t0), edges: Math.round(performance.now() - t1) };
  }

  async point(uid: number): Promise<UserProps | null> {
    const r = await this.one<UserRecord | undefined>('SELECT * FROM ONLY $r', { r: user(uid) });
    return r ? { uid: uidOf(r.id), name: r.name, age: r.age, status: r.status, score: r.score } : null;
  }
  async oneHop(uid: number): Promise<number[]> {
    return (await this.one<unknown[]>('RETURN $r->follows->user', { r: user(uid) })).map(uidOf);
  }
  async twoHopCount(uid: number): Promise<number> {
    return this.one<number>('RETURN count($r->follows->user->follows->user)', { r: user(uid) });
  }
  async filteredCount(): Promise<number> {
    const rows = await this.one<{ count: number }[]>("SELECT count() FROM user WHERE age >= 30 AND status = 'active' GROUP ALL");
    return rows[0]?.count ?? 0;
  }
  async topK(k: number): Promise<number[]> {
    const rows = await this.one<{ id: RecordId }[]>(`SELECT id, score FROM user ORDER BY score DESC, id ASC LIMIT ${k}`);
    return rows.map((r) => uidOf(r.id));
  }
  async insert(u: UserProps): Promise<void> {
    await this.one('CREATE $r CONTENT $c RETURN NONE', {
      r: user(u.uid),
      c: { name: u.name, age: u.age, status: u.status, score: u.score },
    });
  }
  async close(): Promise<void> {
    await this.db.close();
    // The engine may still be finishing files in the folder after close resolves
    // (ENOTEMPTY seen once at medium); rmSync retries that error.
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

try {
  await runEmbedded(() => new SurrealAdapter().open(), parseChildArgs(process.argv.slice(2)));
  process.exit(0);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
