/**
 * Cypher statements end to end on a real embedded database (Database.cypherText), for what
 * the TCK leaves untested: FOREACH, map projection, allShortestPaths, relationships bound
 * before a MATCH, DELETE of paths, SET of whole maps, the property checks of writes, the
 * plans that reuse /v2/query's scans (id lookups, label scans narrowed by WHERE, secondary
 * indexes), and the runtime errors of each operator.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { open, type Database } from '../../src/index.js';
import { parseJson } from '../../src/core/json.js';
import { toErrorBody } from '../../src/core/errors.js';
import { compileCypher } from '../../src/cypher/compile.js';
import { explainCypher } from '../../src/cypher/explain.js';
import { planCache } from '../../src/cypher/plan-cache.js';
import type { TableNode } from '../../src/plan/table.js';
import { shapeOf, topOfScan } from '../../src/exec/table/top-scan.js';
import { Exec } from '../../src/exec/context.js';
import { EXECUTORS } from '../../src/exec/registry.js';
import { NodeRef } from '../../src/core/cypher-value.js';
import type { TableRun } from '../../src/exec/table/rows.js';
import { tempDir } from '../helpers/server.js';

const dir = tempDir('trellis-cypher-statements-');
let db: Database;

before(async () => {
  db = await open(dir.path);
});
after(async () => {
  await db.close();
  dir.remove();
});

type Result = { columns: string[]; rows: unknown[][] };
async function run(query: string, parameters: Record<string, unknown> = {}): Promise<Result> {
  return parseJson(await db.cypherText({ query, parameters })) as Result;
}
const rows = async (query: string, parameters?: Record<string, unknown>) => (await run(query, parameters)).rows;
async function fails(query: string, code: string, detail: string, parameters?: Record<string, unknown>): Promise<void> {
  await assert.rejects(
    () => db.cypherText({ query, parameters: parameters ?? {} }),
    (err: unknown) => {
      const body = toErrorBody(err);
      assert.equal(body.error, code, `${query}: ${body.msg}`);
      assert.equal(body.details?.detail, detail, `${query}: ${body.msg}`);
      return true;
    },
  );
}

/** The operator kinds of a compiled statement, source first. */
function operators(query: string): string[] {
  const out: string[] = [];
  const walk = (n: TableNode) => {
    if ('input' in n) walk(n.input);
    out.push(n.t === 'from_traversal' ? `from_traversal:${n.root.op}` : n.t);
  };
  walk(compileCypher(query).statement.root);
  return out;
}

test('FOREACH runs its updates once per item and passes its input rows on', async () => {
  assert.deepEqual(await rows('UNWIND [1, 2] AS x FOREACH (y IN [x, x * 10] | CREATE (:F {y: y})) RETURN x'), [[1n], [2n]]);
  assert.deepEqual(await rows('MATCH (f:F) RETURN f.y ORDER BY f.y'), [[1n], [2n], [10n], [20n]]);
  assert.deepEqual(await rows('FOREACH (y IN null | CREATE (:F {y: y})) RETURN 1 AS one'), [[1n]], 'a null list runs nothing');
  await fails('FOREACH (y IN 5 | CREATE (:F {y: y}))', 'type_error', 'InvalidArgumentType');
  await rows('MATCH (f:F) DELETE f');
});

test('map projection: properties, all properties, entries and variables, of nodes, relationships and maps', async () => {
  await rows("CREATE (:MP {a: 1, b: 'x'})-[:R {w: 2.5}]->(:MP {a: 2})");
  assert.deepEqual(
    await rows('MATCH (n:MP {a: 1})-[r:R]->() WITH n, r, 7 AS seven RETURN n {.a, .missing, k: n.a + 1, seven} AS m, r {.*} AS rm'),
    [[{ a: 1n, missing: null, k: 2n, seven: 7n }, { w: 2.5 }]],
  );
  assert.deepEqual(await rows("WITH {x: 1, y: 'b'} AS map RETURN map {.x, .*} AS m"), [[{ x: 1n, y: 'b' }]]);
  assert.deepEqual(await rows('OPTIONAL MATCH (n:Nothing) RETURN n {.a} AS m'), [[null]]);
  await fails('WITH 5 AS n RETURN n {.a} AS m', 'type_error', 'InvalidArgumentType');
  await rows('MATCH (n:MP) DETACH DELETE n');
});

test('shortestPath and allShortestPaths: lengths, every shortest path, bounds, and no path', async () => {
  await rows(
    "CREATE (a:SP {n: 'a'}), (b1:SP {n: 'b1'}), (b2:SP {n: 'b2'}), (c:SP {n: 'c'}), (a)-[:T]->(b1), (a)-[:T]->(b2), (b1)-[:T]->(c), (b2)-[:T]->(c), (a)-[:U]->(c)",
  );
  const one = await rows("MATCH p = shortestPath((a:SP {n: 'a'})-[:T*]->(c:SP {n: 'c'})) RETURN length(p)");
  assert.deepEqual(one, [[2n]]);
  const all = await rows(
    "MATCH p = allShortestPaths((a:SP {n: 'a'})-[:T*]->(c:SP {n: 'c'})) RETURN [x IN nodes(p) | x.n] AS via ORDER BY via",
  );
  assert.deepEqual(all, [[['a', 'b1', 'c']], [['a', 'b2', 'c']]]);
  assert.deepEqual(
    await rows("MATCH p = shortestPath((a:SP {n: 'a'})-[*]-(c:SP {n: 'c'})) RETURN length(p)"),
    [[1n]],
    'any type, either way',
  );
  assert.deepEqual(
    await rows("MATCH p = shortestPath((c:SP {n: 'c'})-[:T*..5]->(a:SP {n: 'a'})) RETURN p"),
    [],
    'none against the direction',
  );
  assert.deepEqual(await rows("MATCH p = shortestPath((a:SP {n: 'a'})-[:T*..1]->(c:SP {n: 'c'})) RETURN p"), [], 'none within the bound');
  assert.deepEqual(
    await rows("MATCH (a:SP {n: 'a'}) MATCH p = shortestPath((a)-[*0..2]-(a)) RETURN length(p)"),
    [[0n]],
    'length 0 to itself',
  );
});

test('a relationship bound earlier is matched again only where it is, one hop or a var-length list', async () => {
  assert.deepEqual(await rows('MATCH ()-[r:U]->() MATCH (x)-[r]->(y) RETURN x.n, y.n'), [['a', 'c']]);
  assert.deepEqual(await rows('MATCH ()-[r:U]->() MATCH (x)<-[r]-(y) RETURN x.n, y.n'), [['c', 'a']]);
  assert.deepEqual(await rows("MATCH (:SP {n: 'a'})-[rs:T*2]->(:SP {n: 'c'}) WITH rs LIMIT 1 MATCH (x)-[rs*2]->(y) RETURN x.n, y.n"), [
    ['a', 'c'],
  ]);
  assert.deepEqual(await rows("MATCH (a:SP {n: 'a'})-[r1:T]->(b)-[r2:T]->(c)<-[r3:U]-(a) RETURN count(*) AS n"), [[2n]]);
  assert.deepEqual(await rows("MATCH (a:SP {n: 'a'})-[:T|U*1..2]->(c:SP {n: 'c'}) RETURN count(*) AS n"), [[3n]], 'types as alternatives');
});

test('named paths over var-length hops, and DELETE of a path removes its nodes and relationships', async () => {
  const [[p]] = (await rows("MATCH p = (:SP {n: 'a'})-[:T*2]->(:SP {n: 'c'}) RETURN p LIMIT 1")) as [
    [{ nodes: unknown[]; relationships: unknown[] }],
  ];
  assert.equal(p.nodes.length, 3);
  assert.equal(p.relationships.length, 2);
  await rows("MATCH p = (:SP {n: 'a'})-[:U]->(:SP {n: 'c'}) DETACH DELETE p");
  assert.deepEqual(await rows('MATCH (n:SP) RETURN count(n)'), [[2n]], 'a and c went, with their relationships');
  await fails('MATCH (n:SP) WITH collect(n) AS ns DELETE 1 + 1', 'syntax_error', 'InvalidArgumentType');
  await fails('MATCH (n:SP) WITH n.n AS name DELETE name', 'type_error', 'InvalidArgumentType');
  await rows('MATCH (n:SP) DETACH DELETE n');
});

test('SET: whole maps replace or merge, from maps or other elements; null removes; relationships too', async () => {
  await rows('CREATE (:S {a: 1, b: 2})-[:R {w: 1}]->(:S2 {c: 3})');
  assert.deepEqual(await rows("MATCH (n:S) SET n += {b: null, d: 'x'} RETURN n.a, n.b, n.d"), [[1n, null, 'x']]);
  assert.deepEqual(await rows('MATCH (n:S), (m:S2) SET n = m RETURN properties(n) AS p'), [[{ c: 3n }]]);
  assert.deepEqual(await rows('MATCH (n:S) SET n += null RETURN properties(n) AS p'), [[{ c: 3n }]], 'merging null changes nothing');
  assert.deepEqual(await rows('MATCH ()-[r:R]->() SET r.w = r.w + 1, r.v = [1, 2] REMOVE r.missing RETURN r.w, r.v'), [[2n, [1n, 2n]]]);
  assert.deepEqual(await rows("MATCH ()-[r:R]->() SET r = {z: 'z'} RETURN properties(r) AS p"), [[{ z: 'z' }]]);
  assert.deepEqual(await rows('OPTIONAL MATCH (n:Nothing) SET n.a = 1 RETURN n'), [[null]], 'SET on null does nothing');
  await fails('MATCH (n:S) SET n.bad = {a: 1}', 'type_error', 'InvalidPropertyType');
  await fails("MATCH (n:S) SET n.bad = [1, 'a']", 'type_error', 'InvalidPropertyType');
  await fails('MATCH (n:S) SET n.bad = [[1]]', 'type_error', 'InvalidPropertyType');
  await fails('MATCH (n:S) SET n = 5', 'type_error', 'InvalidArgumentType');
  await fails('WITH {a: 1} AS m SET m.a = 2', 'type_error', 'InvalidArgumentType');
  await fails('CREATE (:S {bad: {nested: 1}})', 'type_error', 'InvalidPropertyType');
  assert.deepEqual(await rows('MATCH (n:S) RETURN n.bad'), [[null]], 'nothing of a failed statement is kept');
  await rows('MATCH (n) DETACH DELETE n');
});

test('CREATE of a relationship needs two nodes; DELETE of a connected node needs DETACH', async () => {
  await fails('OPTIONAL MATCH (n:Nothing) CREATE (n)-[:R]->(:X)', 'semantic_error', 'InvalidArgumentType');
  await rows('CREATE (:D)-[:R]->(:D)');
  await fails('MATCH (n:D) DELETE n', 'constraint_verification_failed', 'DeleteConnectedNode');
  assert.deepEqual(await rows('MATCH (n:D)-[r]->() DELETE n, r RETURN count(*) AS c'), [[1n]], 'node and its relationship in one DELETE');
  assert.deepEqual(await rows('MATCH (n:D) DETACH DELETE n RETURN count(*) AS c'), [[1n]]);
  await fails('CREATE (n:G) DELETE n RETURN n.name', 'entity_not_found', 'DeletedEntityAccess');
});

test('UNWIND of null is no row and of a scalar one row; SKIP and LIMIT from parameters are checked when run', async () => {
  assert.deepEqual(await rows('UNWIND null AS x RETURN x'), []);
  assert.deepEqual(await rows('UNWIND 5 AS x RETURN x'), [[5n]]);
  assert.deepEqual(await rows('UNWIND range(1, 5) AS x RETURN x SKIP $s LIMIT $l', { s: 1, l: 2 }), [[2n], [3n]]);
  assert.deepEqual(await rows('UNWIND range(1, 3) AS x RETURN x LIMIT $l', { l: 100 }), [[1n], [2n], [3n]]);
  await fails('UNWIND [1] AS x RETURN x LIMIT $l', 'syntax_error', 'NegativeIntegerArgument', { l: -1 });
  await fails('UNWIND [1] AS x RETURN x SKIP $s', 'syntax_error', 'InvalidArgumentType', { s: 1.5 });
});

test('comprehensions, quantifiers and reduce over null and non-lists', async () => {
  assert.deepEqual(await rows('RETURN [x IN null | x] AS a, any(x IN null WHERE x) AS b, reduce(s = 0, x IN null | s + x) AS c'), [
    [null, null, null],
  ]);
  assert.deepEqual(
    await rows(
      'RETURN none(x IN [1, null] WHERE x > 1) AS a, single(x IN [1, 2, null] WHERE x > 1) AS b, single(x IN [2, 3] WHERE x > 1) AS c',
    ),
    [[null, null, false]],
  );
  await fails('RETURN [x IN 5 | x] AS a', 'type_error', 'InvalidArgumentType');
  await fails("RETURN all(x IN 'abc' WHERE true) AS a", 'type_error', 'InvalidArgumentType');
});

test('label tests, CASE with a subject, string operators and parameters in expressions', async () => {
  await rows('CREATE (:LT {v: 1})-[:REL]->(:LT2)');
  assert.deepEqual(await rows('MATCH (a)-[r]->(b) RETURN a:LT AS a, r:REL AS r, b:LT AS b'), [[true, true, false]]);
  assert.deepEqual(await rows('OPTIONAL MATCH (n:None) RETURN n:LT AS x'), [[null]]);
  await fails('WITH 1 AS n RETURN n:LT AS x', 'type_error', 'InvalidArgumentType');
  assert.deepEqual(await rows("RETURN CASE $v WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END AS w", { v: 2 }), [['two']]);
  assert.deepEqual(await rows("RETURN CASE 9 WHEN 1 THEN 'one' END AS w"), [[null]]);
  assert.deepEqual(await rows("RETURN 'abc' STARTS WITH 'a' AS s, 'abc' =~ 'a.c' AS r, $m.k AS k", { m: { k: [1, 2] } }), [
    [true, true, [1n, 2n]],
  ]);
  await rows('MATCH (n) DETACH DELETE n');
});

test('nodes without a label: created, matched by any node pattern, shown as "$label": null on /v2/query', async () => {
  assert.deepEqual(await rows("CREATE (n {k: 'none'}) RETURN labels(n) AS l"), [[[]]]);
  assert.deepEqual(await rows('MATCH (n) WHERE n.k = $k RETURN n.k', { k: 'none' }), [['none']]);
  const r = parseJson(
    await db.queryText({
      request_type: 'read',
      query: {
        read: { entries: [{ query: { name: 'r', root: { value_map: { input: { nodes: { reference: 'all' } } } } } }], returns: ['r'] },
      },
    }),
  ) as { r: { $label: unknown; k: string }[] };
  assert.deepEqual(
    r.r.map((n) => [n.$label, n.k]),
    [[null, 'none']],
  );
  await rows('MATCH (n) DELETE n');
});

test('node sources reuse /v2/query: id lookups, label scans narrowed by WHERE, and the secondary index', async () => {
  await rows('UNWIND range(1, 50) AS i CREATE (:User {uid: i, age: i % 10, name: toString(i)})');
  assert.deepEqual(
    operators('MATCH (u:User) WHERE id(u) = $x RETURN u.uid'),
    ['unit', 'scan', 'project'],
    'the id lookup answers its conjunct',
  );
  assert.deepEqual(operators('MATCH (u:User) WHERE id(u) = $x AND u.age > 1 RETURN u.uid'), ['unit', 'scan', 'filter', 'project']);
  assert.deepEqual(operators('MATCH (u:User {uid: $x}) RETURN u.uid'), ['unit', 'from_traversal:nodes_where', 'check_node', 'project']);
  assert.deepEqual(
    operators("MATCH (u:User) WHERE u.age >= 5 AND u.name = 'x' RETURN u"),
    ['unit', 'from_traversal:nodes_where', 'project'],
    'the scan answers both',
  );
  assert.deepEqual(
    operators("MATCH (u:User) WHERE u.name >= 'x' RETURN u"),
    ['unit', 'from_traversal:nodes_where', 'filter', 'project'],
    'string ranges are checked again',
  );
  const [[id]] = (await rows('MATCH (u:User {uid: 7}) RETURN id(u)')) as [[bigint]];
  assert.deepEqual(await rows('MATCH (u:User) WHERE id(u) = $x RETURN u.uid', { x: id }), [[7n]]);
  assert.deepEqual(await rows('MATCH (u:User) WHERE id(u) = $x RETURN u.uid', { x: 'seven' }), [], 'a non-integer id finds nothing');
  assert.deepEqual(await rows(`MATCH (u:User) WHERE id(u) = ${id}.0 RETURN u.uid`), [[7n]], 'an integral float is the same id');
  assert.deepEqual(await rows(`MATCH (u:User) WHERE id(u) = ${id}.5 RETURN u.uid`), []);
  assert.deepEqual(await rows('MATCH (u:Other) WHERE id(u) = $x RETURN u.uid', { x: id }), [], 'the id lookup checks the label');
  assert.deepEqual(await rows('MATCH (u:User) WHERE u.age >= 8 AND u.uid < 20 RETURN u.uid ORDER BY u.uid'), [[8n], [9n], [18n], [19n]]);
  assert.deepEqual(await rows('MATCH (u:User) WHERE 3 > u.age AND u.uid <= 12 RETURN collect(u.uid) AS c'), [[[1n, 2n, 10n, 11n, 12n]]]);
  assert.deepEqual(await rows('MATCH (u:User {uid: $x}) RETURN u.name', { x: null }), [], 'a null parameter matches nothing');
  assert.deepEqual(await rows('MATCH (u:User {uid: $x}) RETURN u.name', { x: 7.0 }), [['7']], '7.0 = 7');
  const made = parseJson(
    await db.queryText({
      request_type: 'write',
      query: {
        write: {
          entries: [{ query: { name: 'r', root: { create_index: { spec: { node_equality: { label: 'User', property: 'uid' } } } } } }],
          returns: ['r'],
        },
      },
    }),
  ) as { r: { operation_id: string } };
  const poll = {
    request_type: 'read',
    query: {
      read: { entries: [{ query: { name: 'r', root: { get_index_operation: { operation_id: made.r.operation_id } } } }], returns: ['r'] },
    },
  };
  for (let i = 0; i < 200 && (parseJson(await db.queryText(poll)) as { r: { status: string } }).r.status !== 'succeeded'; i++)
    await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(await rows('MATCH (u:User {uid: $x}) RETURN u.name', { x: 42 }), [['42']], 'through the equality index');
  await rows('MATCH (n:User) DELETE n');
});

test('a count of the nodes a scan or a label finds is counted without a row per node, and equals the rows counted one by one', async () => {
  await rows('UNWIND range(1, 2100) AS i CREATE (:Counted {i: i, even: i % 2 = 0})');
  await rows('CREATE (:Other {i: 1})');
  const whereClauses = ['', 'WHERE u.i > 2000', 'WHERE u.even AND u.i <= 100', 'WHERE u.i < 0', 'WHERE u.i >= $low'];
  for (const where of whereClauses) {
    const params = { low: 1990 };
    // WITH u puts a projection between the scan and the count: rows are made and counted.
    const [[byRows]] = (await rows(`MATCH (u:Counted) ${where} WITH u RETURN count(*) AS n`, params)) as [[bigint]];
    assert.deepEqual(await rows(`MATCH (u:Counted) ${where} RETURN count(*) AS n, count(u) AS m`, params), [[byRows, byRows]], where);
    assert.deepEqual(
      await rows(`UNWIND [1, 2, 3] AS x MATCH (u:Counted) ${where} RETURN count(*) AS n`, params),
      [[3n * byRows]],
      `${where}: once per input row`,
    );
  }
  assert.deepEqual(await rows('UNWIND [] AS x MATCH (u:Counted) WHERE u.i > 0 RETURN count(*) AS n'), [[0n]], 'no input row: 0');
  assert.deepEqual(
    await rows('MATCH (u:Counted) WHERE u.i > 2000 RETURN count(DISTINCT u) AS d, count(u.missing) AS c'),
    [[100n, 0n]],
    'other counts still read the rows',
  );
  assert.deepEqual(await rows('MATCH (n) RETURN count(n) AS n, count(*) AS m'), [[2101n, 2101n]], 'every node, of any label');
  assert.deepEqual(await rows('MATCH (n:Missing) RETURN count(n) AS n'), [[0n]], 'a label no node has');
  // 2,100 nodes for each of 2,400 input rows would be 5,040,000 rows, past the statement's
  // 5,000,000: counted without rows, the statement answers.
  assert.deepEqual(await rows('UNWIND range(1, 2400) AS x MATCH (u:Counted) WHERE u.i > 0 RETURN count(*) AS n'), [[5_040_000n]]);
  assert.deepEqual(await rows('UNWIND range(1, 2400) AS x MATCH (u) RETURN count(u) AS n'), [[5_042_400n]], 'a scan of every node');
  await assert.rejects(db.cypherText({ query: 'UNWIND range(1, 2400) AS x MATCH (u:Counted) WHERE u.i > 0 WITH u RETURN count(*) AS n' }), {
    code: 'limit_exceeded',
  });
  await rows('MATCH (n) WHERE n:Counted OR n:Other DELETE n');
});

/** The sort node of a compiled statement (the first met from the root down). */
function sortOf(query: string): Extract<TableNode, { t: 'sort' }> {
  let n: TableNode = compileCypher(query).statement.root;
  while (n.t !== 'sort') {
    if (!('input' in n)) assert.fail(`${query}: no sort`);
    n = n.input;
  }
  return n;
}

test('ORDER BY ... LIMIT over a node scan: the plans the column path takes, and the keys it sorts by', () => {
  const keys = (query: string) => shapeOf(sortOf(query))?.keys ?? null;
  assert.deepEqual(keys('MATCH (u:T) RETURN u.uid AS uid ORDER BY u.score DESC, uid ASC LIMIT 10'), [
    ['score', 'desc'],
    ['uid', 'asc'],
  ]);
  assert.deepEqual(keys('MATCH (u:T) WHERE u.x > 1 RETURN u, 7 AS seven ORDER BY u.score LIMIT 3'), [['score', 'asc']]);
  assert.deepEqual(keys('MATCH (u:T) RETURN u ORDER BY u.score + 0 LIMIT 3'), null, 'an expression key');
  assert.deepEqual(keys('MATCH (u:T) RETURN u.a + 1 AS a ORDER BY u.score LIMIT 3'), null, 'a projection that may fail');
  assert.deepEqual(keys('MATCH (u:T) WITH u RETURN u ORDER BY u.score LIMIT 3'), null, 'a WITH between');
  assert.deepEqual(keys('MATCH (u:T) RETURN DISTINCT u.score AS s ORDER BY s LIMIT 3'), null, 'DISTINCT');
  assert.deepEqual(keys('MATCH (a)-->(u:T) RETURN u ORDER BY u.score LIMIT 3'), null, 'not a scan');
  assert.deepEqual(keys('UNWIND [1, 2] AS x MATCH (u:T) RETURN u ORDER BY u.score LIMIT 3'), null, 'several input rows');
});

test('ORDER BY ... LIMIT over a node scan of keys of one kind is answered from the columns, without a row per node', async () => {
  await rows("UNWIND range(0, 199) AS i CREATE (:Col {score: (i * 37) % 101, name: 'n' + toString(i % 50), mixed: i})");
  await rows("MATCH (u:Col) WHERE u.score = 0 SET u.mixed = 'text'");
  // Nodes without a key: Cypher sorts their null above every value (last ascending, first
  // descending), where order_by puts a missing key first ascending.
  await rows("UNWIND range(0, 2) AS i CREATE (:Col {name: 'n' + toString(i)}), (:Col {score: i + 40})");
  // topOfScan alone, with a run whose input rows fail when asked for: the generic sort
  // would read them, the column path never does.
  const onColumns = (query: string, limit: number) =>
    db.store.read((reader) => {
      const run: TableRun = {
        x: new Exec(reader, null, new Map(), EXECUTORS, false, () => {}),
        access: undefined as never,
        slotCount: compileCypher(query).statement.slotCount,
        rows: () => assert.fail(`${query}: the input rows were read`),
        param: () => assert.fail('no parameters here'),
        check: () => {},
      };
      return topOfScan(sortOf(query), () => limit, run)?.map((row) => (row.find((v) => v instanceof NodeRef) as NodeRef).id) ?? null;
    });
  const generic = async (query: string) => (await rows(query.replace(' RETURN u ', ' WITH u RETURN id(u) '))).map(([id]) => Number(id));
  for (const order of [
    'u.score DESC',
    'u.score',
    'u.name, u.score DESC',
    'u.name DESC, u.score',
    'u.score DESC, u.name',
    'u.missing, u.score',
  ]) {
    const query = `MATCH (u:Col) RETURN u ORDER BY ${order} LIMIT 7`;
    const ids = onColumns(query, 7);
    assert.notEqual(ids, null, `${query}: the column path`);
    assert.deepEqual(ids, await generic(query), query);
  }
  assert.equal(onColumns('MATCH (u:Col) RETURN u ORDER BY u.mixed LIMIT 7', 7), null, 'numbers and strings under one key');
  await rows('MATCH (u:Col) DELETE u');
});

test('ORDER BY ... DESC LIMIT over the columns keeps a block whose only better row lacks the key (null sorts first descending)', async () => {
  // Ids are consecutive: node 2090's block of 1024 ids holds only nodes with i >= 1067,
  // all with k = 0 but 2090, which lacks k; an earlier block holds i = 1023 (k = 1023).
  await rows('UNWIND range(0, 2099) AS i CREATE (:Z {i: i, k: CASE WHEN i < 1024 THEN i ELSE 0 END})');
  await rows('MATCH (u:Z {i: 2090}) REMOVE u.k');
  assert.deepEqual(await rows('MATCH (u:Z) RETURN u.i ORDER BY u.k DESC LIMIT 2'), [[2090n], [1023n]]);
  assert.deepEqual(await rows('MATCH (u:Z) RETURN u.i ORDER BY u.k LIMIT 1'), [[0n]], 'ascending the null sorts last');
  await rows('MATCH (u:Z) DELETE u');
});

test('ORDER BY ... LIMIT over a node scan answers as the full sort: numbers, strings, ties, and every other kind of key', async () => {
  // Names tie often and hold what string order can get wrong: case, accents, the empty
  // string, a prefix, a character above the surrogates and one beyond the BMP.
  await rows(
    "UNWIND range(0, 2999) AS i CREATE (:Top {uid: i, score: (i * 37) % 101, f: toFloat(i % 13) / 4.0, neg: -(i % 5), name: ['b', 'a', 'é', 'z', '😀', 'ｚ', 'A', ''][i % 8] + toString(i % 17)})",
  );
  await rows('CREATE (:Elsewhere {uid: -1, score: "not a number"})');
  const statements = [
    'MATCH (u:Top) RETURN u.uid AS uid ORDER BY u.score DESC, uid ASC LIMIT 25',
    'MATCH (u:Top) RETURN u.uid AS uid, u.f AS f ORDER BY u.f, u.score DESC LIMIT 40',
    'MATCH (u:Top) WHERE u.uid >= 1000 AND u.score < 50 RETURN u.uid ORDER BY u.neg, u.f DESC LIMIT 30',
    'MATCH (u:Top) RETURN u.uid ORDER BY u.score LIMIT 0',
    'MATCH (u:Top) RETURN u.uid ORDER BY u.score LIMIT $k',
    'MATCH (u:Top) RETURN u.uid, 1 AS one ORDER BY u.neg LIMIT 12',
    'MATCH (u:Top) RETURN u.uid AS uid, u.name AS name ORDER BY u.name LIMIT 30',
    'MATCH (u:Top) RETURN u.name AS name, u.uid ORDER BY name DESC, u.score LIMIT 20',
    'MATCH (u:Top) WHERE u.score > 40 RETURN u.uid ORDER BY u.score DESC, u.name, u.uid DESC LIMIT 15',
  ];
  const same = async (note: string) => {
    for (const query of statements) {
      // WITH u puts a projection in the way: every row is made and sorted.
      const generic = query.replace(' RETURN ', ' WITH u RETURN ');
      const params = { k: 9 };
      assert.deepEqual(await rows(query, params), await rows(generic, params), `${note}: ${query}`);
    }
  };
  // Each stage's statements change the data (undoing the stage before where it must), then
  // every query answers as the generic sort does.
  const stages: [note: string, statements: string[]][] = [
    ['all numbers, all strings', []],
    // A number among the names (Cypher orders strings first, order_by numbers first).
    ['a number among strings', ['MATCH (u:Top {uid: 8}) SET u.name = 1']],
    // Keys some nodes lack (null in Cypher): the column path sorts them as Cypher does.
    [
      'keys some nodes lack',
      [
        "MATCH (u:Top {uid: 8}) SET u.name = 'b8'",
        'MATCH (u:Top) WHERE u.uid % 9 = 4 REMOVE u.score, u.name',
        'MATCH (u:Top) WHERE u.uid >= 2048 REMOVE u.f',
      ],
    ],
    // Not every node holds a number now: the column path steps aside, the answers stay Cypher's.
    [
      'a null, a NaN, a string and a missing key',
      [
        'MATCH (u:Top) WHERE u.score IS NULL SET u.score = (u.uid * 37) % 101, u.name = "b" + toString(u.uid % 17)',
        'MATCH (u:Top) WHERE u.f IS NULL SET u.f = toFloat(u.uid % 13) / 4.0',
        'MATCH (u:Top {uid: 7}) SET u.score = null, u.f = 0.0 / 0.0, u.neg = "x", u.name = null',
        'CREATE (:Top {uid: 3000, f: 1.5})',
      ],
    ],
  ];
  for (const [note, changes] of stages) {
    for (const statement of changes) await rows(statement);
    await same(note);
  }
  assert.deepEqual(
    await rows('MATCH (u:Top) RETURN u.uid ORDER BY u.score DESC LIMIT 2'),
    [[7n], [3000n]],
    'nulls first descending, ties in id order',
  );
  await assert.rejects(db.cypherText({ query: 'MATCH (u:Top) RETURN u.uid ORDER BY u.score LIMIT -1' }), { code: 'syntax_error' });
  await rows('MATCH (n) WHERE n:Top OR n:Elsewhere DELETE n');
});

test('ORDER BY over a key that is a number in some blocks of nodes and a string in others takes the generic sort', async () => {
  // A fresh database, so ids 0 to 2047 fill two whole blocks of 1024: one holds the key as
  // numbers only and the other as strings only, and each block alone is of one kind.
  const own = tempDir('trellis-cypher-kinds-');
  const kinds = await open(own.path);
  try {
    const text = async (query: string) => (parseJson(await kinds.cypherText({ query })) as Result).rows;
    await text("UNWIND range(0, 2047) AS i CREATE (:Kinds {uid: i, name: CASE WHEN i < 1024 THEN i ELSE 'n' + toString(i) END})");
    assert.deepEqual(await text('MATCH (u:Kinds) RETURN min(id(u)) AS lo, max(id(u)) AS hi'), [[0n, 2047n]]);
    // Cypher orders strings before numbers; order_by would put the numbers first.
    for (const order of ['', ' DESC']) {
      const query = `MATCH (u:Kinds) RETURN u.uid AS uid ORDER BY u.name${order} LIMIT 3`;
      const expected = order === '' ? [[1024n], [1025n], [1026n]] : [[1023n], [1022n], [1021n]];
      assert.deepEqual(await text(query), expected, query);
      assert.deepEqual(await text(query.replace(' RETURN ', ' WITH u RETURN ')), expected, `${query}, sorted row by row`);
    }
  } finally {
    await kinds.close();
    own.remove();
  }
});

test('explain of compiled statements: every operator kind named, slots named by the compiler, nested plans', () => {
  const names = (ops: readonly { op: string; [k: string]: unknown }[]): string[] =>
    ops.flatMap((o) => [
      o.op,
      ...['body', 'match', 'branches'].flatMap((k) => (Array.isArray(o[k]) ? names((o[k] as unknown[]).flat() as typeof ops) : [])),
    ]);
  const read = explainCypher(
    compileCypher(
      "MATCH (a:SP {n: 'a'}) MATCH p = shortestPath((a)-[:T*..3]->(c:SP)) MATCH (c)-[:T*1..2]->(x:SP {n: 'z'}) OPTIONAL MATCH (c)-[r]->(d) WITH a, p, c, collect(d) AS ds UNWIND ds AS d RETURN a, length(p) AS n ORDER BY n SKIP 1 LIMIT 2",
    ),
  );
  assert.equal(read.effect, 'Read');
  for (const op of [
    'from_traversal',
    'shortest_path',
    'expand',
    'check_node',
    'optional',
    'aggregate',
    'unwind',
    'sort',
    'skip',
    'limit',
    'project',
  ])
    assert.ok(names(read.operators).includes(op), `${op} in ${names(read.operators).join(' ')}`);
  assert.ok(
    read.bindings.some((b) => b.name === 'ds'),
    'slots carry their variable names',
  );
  const write = explainCypher(
    compileCypher(
      'MERGE (x:X {k: 1}) ON MATCH SET x.n = 2 SET x.m = 3 FOREACH (i IN [1] | CREATE (:Y)) WITH x MATCH p = (x)-[*0..1]-() MATCH (q) DETACH DELETE p RETURN 1 AS one UNION RETURN 2 AS one',
    ),
  );
  assert.equal(write.effect, 'Write');
  for (const op of ['union', 'merge', 'set', 'foreach', 'create', 'bind_path', 'delete', 'scan'])
    assert.ok(names(write.operators).includes(op), `${op} in ${names(write.operators).join(' ')}`);
});

test('ORDER BY ... LIMIT n keeps the first n rows of the full stable sort, ties in input order', async () => {
  // 64 rows, so LIMIT 3 takes the bounded path (under 1/16 of the input) and LIMIT 40 the full sort.
  const list = 'range(0, 63)';
  const order = `UNWIND ${list} AS i WITH i, i % 4 AS k, CASE WHEN i % 5 = 0 THEN null ELSE i % 3 END AS m`;
  const full = await rows(`${order} RETURN i ORDER BY m DESC, k LIMIT 1000`);
  assert.equal(full.length, 64);
  for (const n of [0, 1, 3, 40, 64, 70]) {
    assert.deepEqual(await rows(`${order} RETURN i ORDER BY m DESC, k LIMIT ${n}`), full.slice(0, n), `LIMIT ${n}`);
  }
  // Ties on every key: the rows come in input order, as a stable sort leaves them.
  assert.deepEqual(await rows(`UNWIND ${list} AS i RETURN i ORDER BY i % 1 LIMIT 3`), [[0n], [1n], [2n]]);
  // Nulls sort last ascending, first descending.
  assert.deepEqual(await rows(`${order} RETURN m ORDER BY m LIMIT 2`), [[0n], [0n]]);
  assert.deepEqual(await rows(`${order} RETURN m ORDER BY m DESC LIMIT 2`), [[null], [null]]);
  // The count is still checked after the keys.
  await fails(`UNWIND ${list} AS i RETURN i ORDER BY i LIMIT -1`, 'syntax_error', 'NegativeIntegerArgument');
});

test('ORDER BY finds a projected aggregate written in another case (MAX for max), as analysis accepts it', async () => {
  await db.cypherText({ query: 'UNWIND [[1, 5], [1, 7], [2, 3]] AS p CREATE (:Case {x: p[0], y: p[1]})', parameters: {} });
  assert.deepEqual(await rows('MATCH (n:Case) RETURN n.x AS x, max(n.y) AS m ORDER BY MAX(n.y)'), [
    [2n, 3n],
    [1n, 7n],
  ]);
  assert.deepEqual(await rows('MATCH (n:Case) RETURN n.x AS x, Count(*) AS c ORDER BY COUNT(*) DESC, x'), [
    [1n, 2n],
    [2n, 1n],
  ]);
});

test('CREATE takes a parameter map as the properties of a node or a relationship', async () => {
  const made = await rows('CREATE (a:PM $a)-[r:PMR $r]->(b:PM) RETURN properties(a) AS pa, properties(r) AS pr, properties(b) AS pb', {
    a: { name: 'x', n: 1, gone: null },
    r: { since: 2020 },
  });
  // A null entry sets nothing, as in a literal map.
  assert.deepEqual(made, [[{ name: 'x', n: 1n }, { since: 2020n }, {}]]);
  assert.deepEqual(await rows('MATCH (a:PM {name: $name})-[r:PMR]->() RETURN a.n AS n, r.since AS s', { name: 'x' }), [[1n, 2020n]]);
  await fails('CREATE (a:PM $a)', 'type_error', 'InvalidArgumentType', { a: 7 });
  // Explain names the map the properties come from.
  const explained = explainCypher(compileCypher('CREATE (a:PM $a) RETURN a'));
  const create = explained.operators.find((o) => o.op === 'create') as { nodes: Record<string, unknown>[] } | undefined;
  assert.equal(create?.nodes[0]?.['property_map'], '$a');
  // MATCH and MERGE still refuse a parameter map (TCK: InvalidParameterUse in Match1, Match2, Merge1, Merge5).
  await fails('MATCH (a $a) RETURN a', 'syntax_error', 'InvalidParameterUse', { a: {} });
  await fails('MERGE (a $a) RETURN a', 'syntax_error', 'InvalidParameterUse', { a: {} });
});

test('a statement sent again is answered from the plan cache, not compiled again', async () => {
  const query = 'MATCH (n:Cached) WHERE n.k = $k RETURN count(*) AS c';
  const before = planCache().stats();
  await db.cypherText({ query, parameters: { k: 1 } });
  await db.cypherText({ query, parameters: { k: 2 } });
  const after = planCache().stats();
  assert.equal(after.misses - before.misses, 1);
  assert.equal(after.hits - before.hits, 1);
});

test('a write statement reads the node it just changed, a read statement reads each node once per row', async () => {
  // The last node read is kept only by read statements: here every read after a SET sees it.
  assert.deepEqual(
    await rows('CREATE (n:LastRead {a: 1}) WITH n SET n.a = n.a + 1 WITH n SET n.a = n.a * 10 RETURN n.a AS a, n.a + 1 AS b'),
    [[20n, 21n]],
  );
  assert.deepEqual(await rows('MATCH (n:LastRead) RETURN n.a AS a, n.a * 2 AS b, properties(n) AS p'), [[20n, 40n, { a: 20n }]]);
});
