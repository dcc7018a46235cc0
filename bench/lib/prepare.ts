/** A fresh temp database loaded with the benchmark dataset, with the load timings. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type Database } from '../../src/index.js';
import { DEFAULT_SEED, SIZES, type SizeName } from './dataset.js';
import { loadTrellis } from './load-trellis.js';
import { progress } from './cli.js';
import { round } from './stats.js';

export interface LoadFigures {
  nodes_ms: number;
  edges_ms: number;
  nodes_per_s: number;
  edges_per_s: number;
}

export interface Prepared {
  readonly dir: string;
  readonly db: Database;
  readonly load: LoadFigures;
  /** Closes the database; safe to call twice. */
  close(): Promise<void>;
  /** Closes the database (if still open) and deletes the folder. */
  remove(): Promise<void>;
}

export async function prepareDatabase(size: SizeName, seed = DEFAULT_SEED): Promise<Prepared> {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-bench-'));
  const db = await open(dir);
  let closed = false;
  const close = async () => {
    if (!closed) await db.close();
    closed = true;
  };
  const remove = async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const { nodes, edges } = SIZES[size];
    progress(`loading ${size}: ${nodes} nodes, ${edges} edges into ${dir}`);
    const { nodesMs, edgesMs } = await loadTrellis(db, seed, SIZES[size]);
    const load = {
      nodes_ms: round(nodesMs),
      edges_ms: round(edgesMs),
      nodes_per_s: Math.round(nodes / (nodesMs / 1000)),
      edges_per_s: Math.round(edges / (edgesMs / 1000)),
    };
    progress(`loaded: ${load.nodes_per_s} nodes/s, ${load.edges_per_s} edges/s`);
    return { dir, db, load, close, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
