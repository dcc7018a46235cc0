/**
 * Parse, analysis and lowering time of typical Cypher statements, and the cost of a plan
 * cache hit, per statement (median of repeated rounds, microseconds).
 *
 *   node dist/bench/cypher-compile.js [--rounds 15] [--iterations 2000]
 *
 * Prints one JSON document. No database is opened: this is the compile side only.
 */
import { parseCypher } from '../src/cypher/parser.js';
import { analyze } from '../src/cypher/semantics.js';
import { lowerQuery } from '../src/cypher/lower.js';
import { PlanCache } from '../src/cypher/plan-cache.js';
import { compileCypher } from '../src/cypher/compile.js';

const STATEMENTS: Record<string, string> = {
  point: 'MATCH (u:User {uid: $x}) RETURN u.uid AS uid, u.name AS name, u.age AS age, u.status AS status, u.score AS score',
  two_hop_count: 'MATCH (a:User {uid: $x})-[:FOLLOWS]->()-[:FOLLOWS]->(c) RETURN count(*) AS n',
  filtered: "MATCH (u:User) WHERE u.age >= 30 AND u.status = 'active' RETURN count(*) AS n",
  aggregate_order:
    'MATCH (p:Person)-[:KNOWS]->(f:Person) WITH p, count(f) AS friends, collect(f.name) AS names WHERE friends > 2 RETURN p.name AS name, friends, names ORDER BY friends DESC, name LIMIT 10',
  merge_write: 'MERGE (c:City {name: $name}) ON CREATE SET c.created = $now ON MATCH SET c.seen = coalesce(c.seen, 0) + 1 RETURN c',
  comprehension:
    'MATCH (a:Person) RETURN a.name AS name, [(a)-[:KNOWS]->(b) WHERE b.age > 30 | b.name] AS older, reduce(s = 0, x IN range(1, 10) | s + x) AS total',
};

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

const rounds = arg('--rounds', 15);
const iterations = arg('--iterations', 2000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median over rounds of the mean microseconds per call of `fn`. */
function time(fn: () => unknown): number {
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    perRound.push(((performance.now() - t0) * 1000) / iterations);
  }
  return Math.round(median(perRound) * 100) / 100;
}

const results: Record<string, Record<string, number>> = {};
for (const [name, text] of Object.entries(STATEMENTS)) {
  const parsed = parseCypher(text);
  const cache = new PlanCache(compileCypher);
  cache.get(text);
  results[name] = {
    parseUs: time(() => parseCypher(text)),
    analyzeUs: time(() => analyze(parsed)),
    lowerUs: time(() => lowerQuery(parsed)),
    compileUs: time(() => compileCypher(text)),
    cacheHitUs: time(() => cache.get(text)),
  };
}
process.stdout.write(JSON.stringify({ rounds, iterations, node: process.version, results }, null, 2) + '\n');
