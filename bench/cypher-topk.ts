/**
 * Cypher's ORDER BY ... LIMIT over a label scan against the same top-k as an operation
 * tree, on the bench dataset's users, embedded, by a numeric key, by a string key each way,
 * and by a few-valued string then a unique one. Both routes should take the column top-k
 * (src/exec/table/top-scan.ts); the row-by-row sort (the same statement with `WITH u` in
 * the way) is timed for one round as the floor the column path replaces.
 *
 *   node dist/bench/cypher-topk.js [--size small|medium] [--rounds 5] [--round S] [--limit K] [--only a,b]
 *
 * Every case is checked first (Cypher's uids equal the tree's); then the routes alternate,
 * `--round` seconds each per round, and the report gives ops/s medians and the Cypher/tree
 * ratio of each round's pair. Prints one JSON document on stdout; progress on stderr.
 */
import { deepEqual } from 'node:assert/strict';
import type { Database } from '../src/index.js';
import { machine, parseBenchArgs, positiveInt, positiveNumber, progress, runBench } from './lib/cli.js';
import { SIZES } from './lib/dataset.js';
import { measure } from './lib/peer-types.js';
import { prepareDatabase } from './lib/prepare.js';
import { median, round } from './lib/stats.js';

type Order = 'asc' | 'desc';
const CASES: Record<string, readonly (readonly [string, Order])[]> = {
  by_number: [
    ['score', 'desc'],
    ['uid', 'asc'],
  ],
  by_string: [['name', 'asc']],
  by_string_desc: [['name', 'desc']],
  by_few_values_then_string: [
    ['status', 'asc'],
    ['name', 'desc'],
  ],
};

const cypherText = (keys: readonly (readonly [string, Order])[], k: number) =>
  JSON.stringify({
    query: `MATCH (u:User) RETURN u.uid AS uid ORDER BY ${keys.map(([p, o]) => `u.${p}${o === 'desc' ? ' DESC' : ''}`).join(', ')} LIMIT ${k}`,
  });

const treeText = (keys: readonly (readonly [string, Order])[], k: number) => {
  const users = { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'User' } } } } } };
  const root = {
    values: {
      input: { limit: { input: { order_by_multiple: { input: users, orderings: keys } }, count: { literal: k } } },
      properties: ['uid'],
    },
  };
  return JSON.stringify({ request_type: 'read', query: { read: { entries: [{ query: { name: 'r', root } }], returns: ['r'] } } });
};

const cypherUids = (text: string) => (JSON.parse(text) as { rows: [number][] }).rows.map((r) => r[0]);
const treeUids = (text: string) => (JSON.parse(text) as { r: { uid: number }[] }).r.map((r) => r.uid);

/** ops/s of `fn` over `seconds` (after a short warm-up; at least five calls). */
async function rate(fn: () => Promise<unknown>, seconds: number): Promise<number> {
  return (await measure(fn, seconds * 1000, Number.POSITIVE_INFINITY)).opsPerSec;
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['rounds', 'round', 'limit']);
  const rounds = positiveInt(args.values.rounds, 5, 'rounds');
  const roundS = positiveNumber(args.values.round, 1, 'round');
  const k = positiveInt(args.values.limit, 10, 'limit');
  const prepared = await prepareDatabase(args.size);
  try {
    const db: Database = prepared.db;
    const results: Record<string, Record<string, number>> = {};
    for (const [name, keys] of Object.entries(CASES).filter(([name]) => args.only === null || args.only.includes(name))) {
      const cypher = cypherText(keys, k);
      const rowByRow = cypher.replace(' RETURN ', ' WITH u RETURN ');
      const tree = treeText(keys, k);
      const expected = treeUids(await db.queryText(tree));
      deepEqual(cypherUids(await db.cypherText(cypher)), expected, `${name}: Cypher's answer is not the tree's`);
      deepEqual(cypherUids(await db.cypherText(rowByRow)), expected, `${name}: the row-by-row sort's answer is not the tree's`);
      const cypherRates: number[] = [];
      const treeRates: number[] = [];
      const ratios: number[] = [];
      for (let r = 0; r < rounds; r++) {
        // The order turns every round, so drift falls on both alike.
        const pair = [() => db.cypherText(cypher), () => db.queryText(tree)] as const;
        const first = await rate(pair[r % 2]!, roundS);
        const second = await rate(pair[(r + 1) % 2]!, roundS);
        const [c, t] = r % 2 === 0 ? [first, second] : [second, first];
        cypherRates.push(c);
        treeRates.push(t);
        ratios.push(c / t);
      }
      const rowByRowRate = await rate(() => db.cypherText(rowByRow), roundS);
      results[name] = {
        cypher_ops_per_s: round(median(cypherRates)),
        tree_ops_per_s: round(median(treeRates)),
        cypher_over_tree: round(median(ratios), 2),
        row_by_row_ops_per_s: round(rowByRowRate, 2),
      };
      progress(`${name}: ${JSON.stringify(results[name])}`);
    }
    const report = {
      bench: 'cypher-topk',
      machine: machine(),
      dataset: { size: args.size, ...SIZES[args.size] },
      load: { limit: k, rounds, round_s: roundS },
      results,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await prepared.remove();
  }
}

await runBench(main);
