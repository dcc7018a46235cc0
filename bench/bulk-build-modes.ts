/**
 * Why the offline import builds in a temporary folder (docs/architecture.md, "Bulk import
 * and export"): the same generated columns loaded by the bulk build as it is (commits every
 * few thousand values, noSync, one flush at the end, then the rename) and as one LMDB
 * transaction (every write of the build inside one transactionSync, then one flush). The
 * second mode reaches into the build's internals to emulate the design not taken; it is a
 * measurement, not a second code path.
 *
 *   node dist/bench/bulk-build-modes.js --size medium|large --rounds 3
 *
 * Prints one JSON line per run: mode, ms, peak RSS, and the RSS of the generated input.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BulkBuild, type BulkColumn } from '../src/store/bulk-build.js';
import { DEFAULT_SEED, generateEdges, SIZES, userProps, type SizeName } from './lib/dataset.js';

const arg = (flag: string, dflt: string) => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const sizeName = arg('--size', 'medium') as SizeName;
const rounds = Number(arg('--rounds', '3'));
const size = SIZES[sizeName];

/** The build's internals the one-transaction mode drives. */
interface Internals {
  env: { transactionSync(fn: () => void): void; getWriteTxnId(): number; close(): Promise<void> };
  txn: (fn: () => void) => void;
  version: number;
  columns: Map<number, unknown>;
  putColumnChunk(fill: unknown): void;
  adjacency: { prepare(nodes: number): number; writeBlocks(from: number, to: number, blocks: unknown, lists: unknown): void };
  dbs: { adjacency: unknown; adjacencyLists: unknown };
  nextNode: number;
  writeMeta(): void;
  temp: string;
  lock: { release(): void };
}

const e = generateEdges(DEFAULT_SEED, size);
const n = size.nodes;
const uid = new Float64Array(n);
const age = new Float64Array(n);
const score = new Float64Array(n);
const name: string[] = [];
const status: string[] = [];
for (let i = 0; i < n; i++) {
  const u = userProps(DEFAULT_SEED, i);
  uid[i] = u.uid;
  age[i] = u.age;
  score[i] = u.score;
  name.push(u.name);
  status.push(u.status);
}
const since = Float64Array.from(e.since);
const from = Float64Array.from(e.from);
const to = Float64Array.from(e.to);
const nodeColumns: BulkColumn[] = [
  { name: 'uid', kind: 'i64', values: uid, present: null },
  { name: 'name', kind: 'value', values: name },
  { name: 'age', kind: 'i64', values: age, present: null },
  { name: 'status', kind: 'value', values: status },
  { name: 'score', kind: 'f64', values: score, present: null },
];
const inputRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
/** Edges per call, as the import hands over a file chunk at a time. */
const CHUNK = 1_000_000;

function load(b: BulkBuild): void {
  b.addNodes('User', n, nodeColumns);
  for (let at = 0; at < size.edges; at += CHUNK) {
    const end = Math.min(size.edges, at + CHUNK);
    const columns: BulkColumn[] = [{ name: 'since', kind: 'i64', values: since.subarray(at, end), present: null }];
    b.addEdges('FOLLOWS', from.subarray(at, end), to.subarray(at, end), end - at, columns);
  }
}

async function run(mode: 'temporary-folder' | 'one-transaction'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-build-'));
  try {
    const t0 = performance.now();
    const b = await BulkBuild.open({ target: dir });
    if (mode === 'temporary-folder') {
      load(b);
      await b.finish();
    } else {
      const x = b as unknown as Internals;
      x.env.transactionSync(() => {
        x.txn = (fn) => {
          x.version = x.env.getWriteTxnId() * 4096;
          fn();
        };
        load(b);
        for (const fill of x.columns.values()) x.putColumnChunk(fill);
        x.adjacency.writeBlocks(0, x.adjacency.prepare(x.nextNode), x.dbs.adjacency, x.dbs.adjacencyLists);
        x.writeMeta();
      });
      await x.env.close();
      const fd = openSync(join(x.temp, 'data.mdb'), 'r');
      fsyncSync(fd);
      closeSync(fd);
      x.lock.release();
    }
    const ms = Math.round(performance.now() - t0);
    process.stdout.write(
      JSON.stringify({ mode, size: sizeName, ms, rssMb: Math.round(process.resourceUsage().maxRSS / 1024), inputRssMb }) + '\n',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Peak RSS only grows within a process: run the temporary folder first, and compare each
// mode's peak with the input's.
for (let r = 0; r < rounds; r++) await run('temporary-folder');
for (let r = 0; r < rounds; r++) await run('one-transaction');
