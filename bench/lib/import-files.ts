/**
 * The benchmark dataset as CSV files, the ones Kùzu's COPY FROM loads (bench/peers/kuzu.ts)
 * and `trellis import` loads too: `users.csv` (uid,name,age,status,score) and `follows.csv`
 * (from,to,since), each with that header line, plus the mapping file that gives Trellis the
 * neo4j-admin header of those columns (docs/import-export.md, "Mapping files"). With
 * `weights` (bench/weighted-path.ts; off by default) follows.csv has a fourth column,
 * weight (a float, dataset.ts edgeWeight).
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { edgeWeight, generateEdges, userProps, type DatasetSize } from './dataset.js';

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

export interface DatasetFiles {
  readonly users: string;
  readonly follows: string;
  /** The `trellis import --mapping` file for the two. */
  readonly mapping: string;
}

export interface CsvOptions {
  /** A float `weight` column on follows.csv (default false). */
  readonly weights?: boolean;
}

/** Writes the dataset's CSV files (and the mapping) into `dir`. */
export async function writeDatasetCsv(dir: string, seed: number, size: DatasetSize, options: CsvOptions = {}): Promise<DatasetFiles> {
  const users = join(dir, 'users.csv');
  const follows = join(dir, 'follows.csv');
  await writeLines(users, 'uid,name,age,status,score', size.nodes, (i) => {
    const u = userProps(seed, i);
    return `${u.uid},${u.name},${u.age},${u.status},${u.score}`;
  });
  const e = generateEdges(seed, size);
  const weights = options.weights === true;
  await writeLines(follows, weights ? 'from,to,since,weight' : 'from,to,since', size.edges, (k) =>
    weights ? `${e.from[k]},${e.to[k]},${e.since[k]},${edgeWeight(seed, k)}` : `${e.from[k]},${e.to[k]},${e.since[k]}`,
  );
  const mapping = join(dir, 'import.json');
  writeFileSync(
    mapping,
    JSON.stringify({
      idType: 'integer',
      nodes: [{ label: 'User', files: [users], header: 'uid:ID(User),name,age:long,status,score:double' }],
      edges: [{ type: 'FOLLOWS', files: [follows], header: `:START_ID(User),:END_ID(User),since:long${weights ? ',weight:double' : ''}` }],
    }),
  );
  return { users, follows, mapping };
}
