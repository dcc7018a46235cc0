/**
 * Semantic analysis of Cypher (src/cypher/semantics.ts): queries that must pass, each
 * compile-time error with its detail code, error code, byte span and message, what analysis
 * returns for the lowering, and the whole openCypher TCK through parse + analyze
 * (semantics-tck.ts).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { CypherError } from '../../src/core/errors.js';
import type { Clause, Expr, Name, Query, VariableExpr } from '../../src/cypher/ast.js';
import { parseCypher } from '../../src/cypher/parser.js';
import { analyze, type Analysis } from '../../src/cypher/semantics.js';
import { DEFAULT_TCK, runTckSemantics } from './semantics-tck.js';

// ---- helpers ----

function ok(query: string): Analysis {
  return analyze(parseCypher(query));
}

/** The text of a byte span of `query`. */
function spanText(query: string, span: { start: number; end: number } | null): string {
  assert.ok(span !== null, 'the error has a span');
  return Buffer.from(query, 'utf8').subarray(span.start, span.end).toString('utf8');
}

interface Expected {
  readonly detail: string;
  /** The text the span covers. */
  readonly at: string;
  readonly code?: 'syntax_error' | 'type_error' | 'unsupported_feature';
  /** Something the message must say (a name, a clause). */
  readonly says?: RegExp;
}

function fails(query: string, expected: Expected): CypherError {
  const query_ = parseCypher(query);
  let caught: unknown = null;
  try {
    analyze(query_);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof CypherError, `${query}: expected ${expected.detail}, got ${caught === null ? 'no error' : String(caught)}`);
  assert.equal(caught.details.detail, expected.detail, `${query}: ${caught.msg}`);
  assert.equal(caught.code, expected.code ?? 'syntax_error', query);
  assert.equal(caught.details.phase, 'compile');
  assert.equal(spanText(query, caught.details.span), expected.at, `${query}: span`);
  if (expected.says !== undefined) assert.match(caught.msg, expected.says, query);
  return caught;
}

// ---- queries that pass ----

const VALID = [
  // reading, filtering, projecting
  'MATCH (a)-[r]->(b) WHERE a.x = 1 AND r.w > 2 RETURN a, r, b ORDER BY a.name SKIP 1 LIMIT 2',
  'MATCH p = (a)-[*1..3]->(b) RETURN nodes(p), relationships(p), length(p)',
  'MATCH (a)-[rs*]->(b) RETURN size(rs)',
  'MATCH (a)-[rs*]->(b) UNWIND rs AS r RETURN type(r), startNode(r).name',
  'MATCH p = shortestPath((a)-[*]-(b)) RETURN p',
  'MATCH (a) OPTIONAL MATCH (a)-->(b) RETURN a, b',
  'OPTIONAL MATCH (n) WITH n WHERE n IS NULL RETURN count(*)',
  'MATCH (a) MATCH (a)-[r1]->(b), (b)-[r2]->(c) RETURN a, c',
  // a relationship of an earlier clause may be matched again
  'MATCH (a)-[r]->(b) WITH a, r MATCH (a)-[r]->(c) RETURN c',
  'MATCH ()-[r]->() WITH r MATCH ()-[r]->() RETURN r',
  'MATCH (n) WITH n AS m MATCH (m)-->(x) RETURN x',
  'WITH null AS n MATCH (n) RETURN n',
  'MATCH (a {x: 1}), (b {y: a.x}) RETURN b',
  'MATCH (n {name: $name}) SET n = $props RETURN n',
  // several labels on a read: matches nothing here, but is not an error
  'MATCH (n:A:B) WHERE n:C:D RETURN n',
  'MATCH (n) RETURN n:Person',
  // predicates
  "MATCH (n) WHERE n.name =~ 'a.*' AND NOT (n)-[:T]->() AND any(x IN n.tags WHERE x = 'a') RETURN n",
  'MATCH (n) WHERE (n)-->() RETURN n',
  'MATCH (n) WHERE exists(n.name) RETURN n',
  "MATCH (n) RETURN n.x IN [1, 2] AS isIn, 'a' IN n.tags",
  // expressions
  'UNWIND [1, 2, 3] AS x RETURN x * 2',
  'WITH {a: 1} AS m RETURN m.a',
  'WITH $p AS m RETURN m.a',
  "RETURN 'a' + 1, [1] + 2, 1 + null, 1.5 + 2",
  'RETURN CASE WHEN true THEN 1 ELSE 2 END',
  'RETURN [x IN range(1, 10) WHERE x % 2 = 0 | x * x] AS squares',
  'RETURN reduce(acc = 0, x IN [1, 2, 3] | acc + x)',
  'MATCH (n) RETURN [(n)-->(m) | m.name] AS names',
  'MATCH (n) RETURN size([(n)-->() | 1]) AS degree',
  'MATCH (n) RETURN n {.name, .age, extra: 1}',
  'MATCH (n) RETURN -n.x, n.a ^ 2, n.list[0], n.list[1..2], n.m[$k]',
  'MATCH (x) RETURN [x IN [1, 2] | x]',
  'WITH [1, 2.0] AS l RETURN l[0] + 1',
  'MATCH p = (n)-->() RETURN head(collect(n)).name, nodes(p)[0].name, startNode(last(relationships(p))).name',
  'MATCH (n)-[r]-(m) RETURN id(n), type(r), labels(m), keys(n), properties(r)',
  'MATCH (n) RETURN toUpper(n.name), toString(1), coalesce(n.a, n.b, 1), Size(n.list)',
  // projections
  'MATCH (n) WITH n, count(*) AS c WHERE c > 1 RETURN n',
  'MATCH (n) RETURN n.name AS name, count(*) ORDER BY name',
  'MATCH (n) RETURN DISTINCT n.name ORDER BY n.name',
  'MATCH (n) WITH DISTINCT n.a AS a, n.b AS b RETURN a, b ORDER BY a',
  'MATCH (n) RETURN n.name, count(*) ORDER BY count(*) DESC, n.name',
  'MATCH (n) RETURN n, count(*) ORDER BY n.name',
  'MATCH (n) RETURN n.a AS a, COUNT(n) AS c ORDER BY count(n)',
  'MATCH (n) WITH n, {k: n.x, c: count(*)} AS m RETURN m',
  'UNWIND [1, 2] AS x WITH x, collect(x) AS xs RETURN x, [y IN xs WHERE y > x | y]',
  'MATCH (n) RETURN n, [y IN collect(n.v) WHERE y > n.min | y] AS big',
  'MATCH (n) RETURN count(DISTINCT n), avg(n.x), percentileDisc(n.x, 0.5), $p + count(*)',
  'MATCH (n) RETURN n.x, collect(n.y)[0..3]',
  'WITH 1 AS x WITH x + 1 AS x RETURN x',
  // ORDER BY and WHERE after a plain projection see the variables before it
  'MATCH (n) WITH n.x AS x ORDER BY n.y RETURN x',
  'MATCH (n) WITH n.x AS x WHERE n.y > 1 RETURN x',
  'MATCH (a) WITH a ORDER BY a.x LIMIT 1 MATCH (a)-->(b) RETURN b',
  'MATCH (n) RETURN n SKIP $s LIMIT $l',
  'MATCH (n) RETURN n.a AS x ORDER BY x SKIP 1 + 1 LIMIT toInteger(2.5)',
  'MATCH (n) RETURN n LIMIT 0',
  'MATCH (n) RETURN *',
  'MATCH (n) WITH *, 1 AS one RETURN *',
  'MATCH () CREATE () WITH * CREATE ()',
  'UNWIND $list AS x RETURN x',
  'MATCH (n) RETURN n UNION MATCH (n) RETURN n',
  'RETURN 1 AS a, 2 AS b UNION ALL RETURN 3 AS b, 4 AS a',
  // updates
  'MERGE (a:A {id: 1}) ON CREATE SET a.created = true ON MATCH SET a.seen = a.seen + 1 RETURN a',
  'MATCH (a), (b) MERGE (a)-[r:KNOWS]->(b) RETURN r',
  'MATCH (a) MERGE (a)-[:T]-(b)',
  'CREATE (a:A)-[:T]->(b:B), (b)-[:U]->(c) RETURN a, b, c',
  'CREATE (a)-[:T]->(a)',
  'CREATE (n $props) RETURN n',
  'CREATE p = (a)-[:T]->(b) RETURN p',
  'FOREACH (x IN [1, 2] | CREATE (:N {v: x}))',
  'MATCH (n) SET n += {a: 1}, n.b = 2 REMOVE n.c',
  'MATCH (n) SET n.count = coalesce(n.count, 0) + 1',
  'MATCH (n) DETACH DELETE n',
  'MATCH p = ()-->() DELETE p',
  'MATCH (n) WITH collect(n) AS ns UNWIND ns AS n DELETE n',
  'MATCH (n) WITH n LIMIT 1 DELETE n',
];

test('valid queries pass analysis', () => {
  for (const query of VALID) {
    try {
      ok(query);
    } catch (err) {
      assert.fail(`${query}: ${err instanceof CypherError ? `${err.details.detail}: ${err.msg}` : String(err)}`);
    }
  }
});

// ---- errors ----

test('UndefinedVariable: names out of scope, per clause', () => {
  fails('MATCH (a) RETURN b', { detail: 'UndefinedVariable', at: 'b', says: /`b`.*RETURN/ });
  fails('MATCH (a) WITH a.x AS x RETURN a', { detail: 'UndefinedVariable', at: 'a' });
  fails('MATCH (n) SET x.a = 1', { detail: 'UndefinedVariable', at: 'x', says: /SET/ });
  fails('MATCH (n) SET x = {}', { detail: 'UndefinedVariable', at: 'x' });
  fails('MATCH (n) SET x:L', { detail: 'UndefinedVariable', at: 'x' });
  fails('MATCH (a) DELETE x', { detail: 'UndefinedVariable', at: 'x', says: /DELETE/ });
  fails('MERGE (n) ON CREATE SET x.num = 1', { detail: 'UndefinedVariable', at: 'x', says: /ON CREATE SET/ });
  fails('CREATE (b {name: missing}) RETURN b', { detail: 'UndefinedVariable', at: 'missing' });
  fails('RETURN {k1: k2} AS literal', { detail: 'UndefinedVariable', at: 'k2' });
  fails('WITH 1 AS a, a + 1 AS b RETURN b', { detail: 'UndefinedVariable', at: 'a' });
  fails('RETURN [x IN [1] | x] AS l, x', { detail: 'UndefinedVariable', at: 'x' });
  fails('MATCH (n) RETURN n {.a, other}', { detail: 'UndefinedVariable', at: 'other' });
  // a pattern predicate introduces nothing
  fails('MATCH (n) WHERE (n)-[r]->() RETURN n', { detail: 'UndefinedVariable', at: 'r', says: /pattern predicate/ });
  fails('MATCH (n) WHERE (a) RETURN n', { detail: 'UndefinedVariable', at: '(a)' });
  // ORDER BY after DISTINCT or aggregation sees only the projection
  fails('MATCH (a) RETURN DISTINCT a.name ORDER BY a.age', { detail: 'UndefinedVariable', at: 'a', says: /DISTINCT/ });
  fails('MATCH (me)--(you) RETURN count(you.age) AS agg ORDER BY me.age + count(you.age)', { detail: 'UndefinedVariable', at: 'me' });
  fails('MATCH (a) WITH a.n % 3 AS mod, min(a.x) AS min ORDER BY sum(a.x) RETURN mod', { detail: 'UndefinedVariable', at: 'a' });
  fails('MATCH (a), (c) WITH a WITH a ORDER BY c RETURN a', { detail: 'UndefinedVariable', at: 'c', says: /ORDER BY/ });
  // non-ASCII before the name: the span is in UTF-8 bytes
  const err = fails("WITH 'é€' AS s RETURN s, missing", { detail: 'UndefinedVariable', at: 'missing' });
  assert.deepEqual(err.details.span, { start: 28, end: 35 });
});

test('VariableAlreadyBound, VariableTypeConflict, RelationshipUniquenessViolation', () => {
  fails('UNWIND [1] AS x UNWIND [2] AS x RETURN x', { detail: 'VariableAlreadyBound', at: 'x', says: /UNWIND/ });
  fails('MATCH (a) CREATE (a)', { detail: 'VariableAlreadyBound', at: 'a', says: /CREATE/ });
  fails("MATCH (a) CREATE (a {name: 'foo'}) RETURN a", { detail: 'VariableAlreadyBound', at: 'a' });
  fails('CREATE (n:Foo)-[:T1]->(), (n:Bar)-[:T2]->()', { detail: 'VariableAlreadyBound', at: 'n' });
  fails('MATCH ()-[r]->() CREATE ()-[r]->()', { detail: 'VariableAlreadyBound', at: 'r' });
  fails('MATCH (a) MERGE (a)', { detail: 'VariableAlreadyBound', at: 'a', says: /MERGE/ });
  fails('CREATE (a:Foo) MERGE (a)-[r:KNOWS]->(a:Bar)', { detail: 'VariableAlreadyBound', at: 'a' });
  fails('MATCH (a)-[r]->(b) MERGE (a)-[r]->(b)', { detail: 'VariableAlreadyBound', at: 'r' });
  fails('MATCH p = ()-->() MATCH p = ()-->() RETURN p', { detail: 'VariableAlreadyBound', at: 'p', says: /path/ });
  fails('MATCH p = (p)-->() RETURN p', { detail: 'VariableAlreadyBound', at: 'p' });
  fails('WITH {x: 1} AS p MATCH p = ()-->() RETURN p', { detail: 'VariableAlreadyBound', at: 'p' });

  fails('MATCH ()-[r]->() MATCH (r) RETURN r', { detail: 'VariableTypeConflict', at: 'r', says: /relationship.*node/ });
  fails('MATCH ()-[r]-(r) RETURN r', { detail: 'VariableTypeConflict', at: 'r' });
  fails('MATCH r = ()-->(), (r) RETURN r', { detail: 'VariableTypeConflict', at: 'r', says: /path/ });
  fails('MATCH r = ()-->(), ()-[r]-() RETURN r', { detail: 'VariableTypeConflict', at: 'r' });
  fails('MATCH (r)-[r*]-() RETURN r', { detail: 'VariableTypeConflict', at: 'r' });
  fails('WITH 1 AS n MATCH (n) RETURN n', { detail: 'VariableTypeConflict', at: 'n', says: /integer/ });
  fails('MATCH (n) WITH [n] AS users MATCH (users)-->(m) RETURN m', { detail: 'VariableTypeConflict', at: 'users' });
  fails('MATCH ()-[r*]->() MATCH ()-[r]->() RETURN r', { detail: 'VariableTypeConflict', at: 'r' });

  fails('MATCH (a)-[r]->()-[r]->(a) RETURN r', { detail: 'RelationshipUniquenessViolation', at: 'r', says: /`r`/ });
  fails('MATCH (a)-[r]->(), ()-[r]->(a) RETURN r', { detail: 'RelationshipUniquenessViolation', at: 'r' });
});

test('CREATE and MERGE relationships: one type, a direction, one hop; no parameter maps in MATCH and MERGE', () => {
  fails('CREATE ()-->()', { detail: 'NoSingleRelationshipType', at: '-->' });
  fails('CREATE ()-[:A|B]->()', { detail: 'NoSingleRelationshipType', at: '-[:A|B]->', says: /A\|B/ });
  fails('MATCH (a), (b) MERGE (a)-[NO_COLON]->(b)', { detail: 'NoSingleRelationshipType', at: '-[NO_COLON]->' });
  fails('CREATE (a)-[:FOO]-(b)', { detail: 'RequiresDirectedRelationship', at: '-[:FOO]-' });
  fails('CREATE (a)<-[:FOO]->(b)', { detail: 'RequiresDirectedRelationship', at: '<-[:FOO]->' });
  fails('MERGE (a)<-[:FOO]->(b)', { detail: 'RequiresDirectedRelationship', at: '<-[:FOO]->' });
  fails('CREATE ()-[:FOO*2]->()', { detail: 'CreatingVarLength', at: '-[:FOO*2]->' });
  fails('MERGE (a) MERGE (b) MERGE (a)-[:FOO*2]->(b)', { detail: 'CreatingVarLength', at: '-[:FOO*2]->' });
  fails('MATCH (n $param) RETURN n', { detail: 'InvalidParameterUse', at: '$param', says: /MATCH/ });
  fails('MATCH ()-[r:FOO $param]->() RETURN r', { detail: 'InvalidParameterUse', at: '$param' });
  fails('MERGE (n $param) RETURN n', { detail: 'InvalidParameterUse', at: '$param', says: /MERGE/ });
});

test('SKIP and LIMIT: constants or parameters, integers, not negative', () => {
  fails('MATCH (n) RETURN n SKIP n.count', { detail: 'NonConstantExpression', at: 'n', says: /SKIP.*`n`/ });
  fails('MATCH (n) RETURN n LIMIT n.count', { detail: 'NonConstantExpression', at: 'n', says: /LIMIT/ });
  fails('MATCH (n) RETURN n SKIP -1', { detail: 'NegativeIntegerArgument', at: '-1' });
  fails('MATCH (n) WITH n LIMIT -1 RETURN n', { detail: 'NegativeIntegerArgument', at: '-1', says: /LIMIT/ });
  fails('MATCH (n) RETURN n LIMIT 1.7', { detail: 'InvalidArgumentType', at: '1.7', says: /float/ });
  fails("MATCH (n) RETURN n SKIP 'a'", { detail: 'InvalidArgumentType', at: "'a'" });
});

test('aggregation: where aggregates may stand, nesting, ambiguity', () => {
  fails('MATCH (a) WHERE count(a) > 10 RETURN a', { detail: 'InvalidAggregation', at: 'count(a)', says: /WHERE/ });
  fails('MATCH (n) RETURN n.num1 ORDER BY max(n.num2)', { detail: 'InvalidAggregation', at: 'max(n.num2)', says: /ORDER BY/ });
  fails('MATCH (n) WITH n.num1 AS foo ORDER BY count(n) RETURN foo', { detail: 'InvalidAggregation', at: 'count(n)' });
  fails('MATCH (n) RETURN [x IN [1, 2] | count(*)]', { detail: 'InvalidAggregation', at: 'count(*)' });
  fails('MATCH (n) SET n.c = count(*)', { detail: 'InvalidAggregation', at: 'count(*)', says: /SET/ });
  fails('UNWIND [count(*)] AS x RETURN x', { detail: 'InvalidAggregation', at: 'count(*)' });
  fails('MATCH (n) WITH n, count(*) AS c WHERE count(*) > 1 RETURN n', { detail: 'InvalidAggregation', at: 'count(*)' });
  fails('RETURN count(count(*))', { detail: 'NestedAggregation', at: 'count(*)' });
  fails('RETURN count(rand())', { detail: 'NonConstantExpression', at: 'rand()', says: /rand/ });
  fails('MATCH (me)--(you) RETURN me.age + count(you.age)', {
    detail: 'AmbiguousAggregationExpression',
    at: 'me.age',
    says: /grouping key/,
  });
  fails('MATCH (me)--(you) RETURN me.age + you.age, me.age + you.age + count(*)', {
    detail: 'AmbiguousAggregationExpression',
    at: 'me.age',
  });
  fails('MATCH (me)--(you) WITH me.age + count(you.age) AS agg RETURN *', { detail: 'AmbiguousAggregationExpression', at: 'me.age' });
  fails('MATCH (me)--(you) RETURN me.age + you.age, count(*) AS cnt ORDER BY me.age + you.age + count(*)', {
    detail: 'AmbiguousAggregationExpression',
    at: 'me.age',
  });
  // The sort key's ambiguity is reported before WITH's missing alias.
  fails('MATCH (me)--(you) WITH me.age + you.age, count(*) AS cnt ORDER BY me.age + you.age + count(*) RETURN *', {
    detail: 'AmbiguousAggregationExpression',
    at: 'me.age',
  });
});

test('projections: aliases, column names, RETURN *, UNION columns', () => {
  fails('MATCH (a) WITH a, count(*) RETURN a', { detail: 'NoExpressionAlias', at: 'count(*)', says: /count\(\*\).*WITH/ });
  fails('RETURN 1 AS a, 2 AS a', { detail: 'ColumnNameConflict', at: '2 AS a', says: /`a`/ });
  fails('WITH 1 AS a, 2 AS a RETURN a', { detail: 'ColumnNameConflict', at: '2 AS a' });
  fails('MATCH (a) RETURN a, a', { detail: 'ColumnNameConflict', at: 'a' });
  fails('MATCH () RETURN *', { detail: 'NoVariablesInScope', at: 'RETURN *' });
  fails('RETURN 1 AS a UNION RETURN 2 AS b', { detail: 'DifferentColumnsInUnion', at: 'RETURN 2 AS b', says: /UNION/ });
  fails('RETURN 1 AS a UNION ALL RETURN 2 AS a, 3 AS b', { detail: 'DifferentColumnsInUnion', at: 'RETURN 2 AS a, 3 AS b' });
});

test('functions: known names and argument counts', () => {
  fails('MATCH (a) RETURN foo(a)', { detail: 'UnknownFunction', at: 'foo', says: /foo\(\)/ });
  fails('RETURN apoc.text.join([], "")', { detail: 'UnknownFunction', at: 'join', says: /apoc\.text\.join/ });
  fails('RETURN toUpper()', { detail: 'InvalidNumberOfArguments', at: 'toUpper()', says: /toUpper.*1 argument/ });
  fails("RETURN substring('a', 1, 2, 3)", { detail: 'InvalidNumberOfArguments', at: "substring('a', 1, 2, 3)", says: /2 to 3/ });
  fails('RETURN coalesce()', { detail: 'InvalidNumberOfArguments', at: 'coalesce()', says: /at least 1/ });
  fails('RETURN PERCENTILECONT(1)', { detail: 'InvalidNumberOfArguments', at: 'PERCENTILECONT(1)' });
});

test('types known at compile time: InvalidArgumentType, InvalidDelete', () => {
  fails('RETURN 123 AND true', { detail: 'InvalidArgumentType', at: '123', says: /AND.*integer/ });
  fails("RETURN true OR 'foo'", { detail: 'InvalidArgumentType', at: "'foo'" });
  fails('RETURN [] XOR false', { detail: 'InvalidArgumentType', at: '[]' });
  fails('RETURN NOT {}', { detail: 'InvalidArgumentType', at: '{}', says: /NOT/ });
  fails('RETURN 1 IN 123.4', { detail: 'InvalidArgumentType', at: '123.4', says: /IN/ });
  fails("RETURN all(x IN ['a'] WHERE x % 2 = 0)", { detail: 'InvalidArgumentType', at: 'x', says: /%.*string/ });
  fails('RETURN true + 1', { detail: 'InvalidArgumentType', at: 'true' });
  fails("RETURN -'a'", { detail: 'InvalidArgumentType', at: "'a'" });
  fails('MATCH (n) WHERE (n) RETURN n', { detail: 'InvalidArgumentType', at: '(n)', says: /WHERE.*node/ });
  fails("MATCH (n) MATCH r = (n)-[*]->() WHERE r.name = 'apa' RETURN r", { detail: 'InvalidArgumentType', at: 'r.name', says: /path/ });
  fails('MATCH p = (a) RETURN labels(p) AS l', { detail: 'InvalidArgumentType', at: 'p', says: /labels\(\).*path/ });
  fails('MATCH (r) RETURN type(r)', { detail: 'InvalidArgumentType', at: 'r' });
  fails('MATCH ()-[r]->() RETURN length(r)', { detail: 'InvalidArgumentType', at: 'r' });
  fails('MATCH p = (a)-[*]->(b) RETURN size(p)', { detail: 'InvalidArgumentType', at: 'p' });
  fails("RETURN properties('Cypher')", { detail: 'InvalidArgumentType', at: "'Cypher'" });
  fails('WITH 1 AS x SET x = {a: 1}', { detail: 'InvalidArgumentType', at: 'x' });
  // property access on a known non-map: the TCK's TypeError at compile time
  fails('WITH 123 AS nonMap RETURN nonMap.num', { detail: 'InvalidArgumentType', at: 'nonMap.num', code: 'type_error', says: /integer/ });
  fails('WITH [123, true] AS l RETURN l.num', { detail: 'InvalidArgumentType', at: 'l.num', code: 'type_error' });
  fails('MATCH () DELETE 1 + 1', { detail: 'InvalidArgumentType', at: '1 + 1', says: /DELETE.*integer/ });
  fails('MATCH (n) DELETE n:Person', { detail: 'InvalidDelete', at: 'n:Person', says: /labels/ });
  fails('MATCH ()-[r:T]-() DETACH DELETE r:T', { detail: 'InvalidDelete', at: 'r:T', says: /DETACH DELETE/ });
});

test('out of scope: unsupported_feature naming the feature, after every syntax error', () => {
  const unsupported = (query: string, detail: string, at: string, says: RegExp) =>
    fails(query, { detail, at, code: 'unsupported_feature', says });
  unsupported('RETURN date()', 'TemporalFunction', 'date()', /date\(\)/);
  unsupported("RETURN datetime.truncate('day', $d)", 'TemporalFunction', "datetime.truncate('day', $d)", /datetime\.truncate/);
  unsupported('RETURN duration({days: 1}) AS d', 'TemporalFunction', 'duration({days: 1})', /duration/);
  unsupported('CALL db.labels()', 'CallProcedure', 'CALL db.labels()', /db\.labels/);
  unsupported('CALL db.labels() YIELD label RETURN label', 'CallProcedure', 'CALL db.labels() YIELD label', /procedures/);
  unsupported('CALL { RETURN 1 AS x } RETURN x', 'CallSubquery', 'CALL { RETURN 1 AS x }', /CALL \{ \}/);
  unsupported('MATCH (n) WHERE EXISTS { MATCH (n)-->() } RETURN n', 'ExistsSubquery', 'EXISTS { MATCH (n)-->() }', /EXISTS/);
  unsupported('CREATE (:A:B)', 'MultipleLabels', '(:A:B)', /:A:B/);
  unsupported('MERGE (n:A:B)', 'MultipleLabels', '(n:A:B)', /labels/);
  unsupported('MATCH (n) SET n:A', 'LabelMutation', 'n:A', /SET n:A/);
  unsupported('MATCH (n) REMOVE n:A:B', 'LabelMutation', 'n:A:B', /REMOVE/);
  unsupported('MERGE (n) ON MATCH SET n:A', 'LabelMutation', 'n:A', /labels/);
  // a syntax error anywhere wins over an unsupported feature
  fails('RETURN date(), missing', { detail: 'UndefinedVariable', at: 'missing' });
  fails('CREATE (:A:B) RETURN x', { detail: 'UndefinedVariable', at: 'x' });
  fails('MATCH (n) SET n:A RETURN foo(n)', { detail: 'UnknownFunction', at: 'foo' });
  fails('MATCH (n) CALL db.labels(count(n)) YIELD label RETURN label', { detail: 'InvalidAggregation', at: 'count(n)' });
  fails("WITH 'Hi' AS label CALL test.labels() YIELD label RETURN *", { detail: 'VariableAlreadyBound', at: 'label' });
  fails('CALL test.proc(null) YIELD a, b AS a RETURN a', { detail: 'VariableAlreadyBound', at: 'a' });
  fails('CALL test.proc(1) RETURN out', { detail: 'UndefinedVariable', at: 'out' });
});

test('messages show the expressions and types at fault', () => {
  fails("RETURN {a: 1, b: 'x'} AND true", { detail: 'InvalidArgumentType', at: "{a: 1, b: 'x'}", says: /\{a: 1, b: "x"\} is a map/ });
  fails('RETURN [1.5, null] OR true', { detail: 'InvalidArgumentType', at: '[1.5, null]', says: /\[1\.5, null\] is a list of float/ });
  fails('RETURN (NOT true) + 1', { detail: 'InvalidArgumentType', at: '(NOT true)', says: /cannot add a boolean \(NOT true\)/ });
  fails("RETURN 'a' + true", { detail: 'InvalidArgumentType', at: 'true', says: /boolean \(true\) to a string/ });
  fails('MATCH (n) RETURN n:A:B XOR (1 IN [1]) XOR 2', { detail: 'InvalidArgumentType', at: '2', says: /XOR/ });
  fails('WITH $p AS p RETURN (p.x STARTS WITH $s) + 1', { detail: 'InvalidArgumentType', at: '(p.x STARTS WITH $s)', says: /STARTS WITH/ });
  fails('RETURN (count(*) < 1 <= 2) + 1', {
    detail: 'InvalidArgumentType',
    at: '(count(*) < 1 <= 2)',
    says: /boolean \(count\(\*\) < 1 <= 2\)/,
  });
  fails('RETURN toUpper(1) + [1] AND true', { detail: 'InvalidArgumentType', at: 'toUpper(1) + [1]', says: /toUpper\(\.\.\.\)/ });
  fails('RETURN range(1, 2) OR null', { detail: 'InvalidArgumentType', at: 'range(1, 2)', says: /list of integer/ });
  fails('WITH 1 AS x SET x += {a: 1}', { detail: 'InvalidArgumentType', at: 'x', says: /\+=/ });
  fails('MATCH (n) RETURN n SKIP -(1)', { detail: 'NegativeIntegerArgument', at: '-(1)' });
});

test('more places variables are bound and checked', () => {
  for (const query of [
    'WITH null AS r MATCH ()-[r]->() RETURN r',
    'WITH $rs AS rs MATCH ()-[rs*]->() RETURN rs',
    'WITH $x AS n CREATE (n)-[:T]->() RETURN n',
    "MATCH (n) RETURN n {.a, n}, toIntegerList(['1'])[0] + 1, toFloatList([]), toBooleanList([]), abs(-1) + 1, reverse([1])",
    'MATCH (n) RETURN n SKIP +1 LIMIT - -1',
  ]) {
    ok(query);
  }
  fails('WITH [1] AS rs MATCH ()-[rs*]->() RETURN rs', {
    detail: 'VariableTypeConflict',
    at: 'rs',
    says: /list of integer.*list of relationships/,
  });
  fails('MATCH ()-[r]->() CREATE (r)-[:T]->()', { detail: 'VariableTypeConflict', at: 'r' });
  fails('MATCH (p) CREATE p = ()-[:T]->()', { detail: 'VariableAlreadyBound', at: 'p', says: /path/ });
  const unsupported = { code: 'unsupported_feature' } as const;
  fails('CALL p() YIELD a WHERE a > 1 RETURN a', { ...unsupported, detail: 'CallProcedure', at: 'CALL p() YIELD a WHERE a > 1' });
  fails('CALL p() YIELD a WHERE b > 1 RETURN a', { detail: 'UndefinedVariable', at: 'b' });
  fails('CALL { RETURN 1 AS x UNION RETURN 2 AS x } RETURN x', {
    ...unsupported,
    detail: 'CallSubquery',
    at: 'CALL { RETURN 1 AS x UNION RETURN 2 AS x }',
  });
  fails('CALL { CREATE () } RETURN 1', { ...unsupported, detail: 'CallSubquery', at: 'CALL { CREATE () }' });
});

// ---- what analysis returns ----

/** Every VariableExpr and pattern variable Name of a query, by name, in order of appearance. */
function occurrences(query: Query): Map<string, (VariableExpr | Name)[]> {
  const out = new Map<string, (VariableExpr | Name)[]>();
  const add = (name: string, node: VariableExpr | Name) => out.set(name, [...(out.get(name) ?? []), node]);
  const seen = new Set<unknown>();
  const walk = (x: unknown): void => {
    if (x === null || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    const node = x as { kind?: string; name?: unknown; variable?: unknown };
    if (node.kind === 'variable' && typeof node.name === 'string') add(node.name, x as VariableExpr);
    if (node.variable !== null && typeof node.variable === 'object' && typeof (node.variable as Name).name === 'string') {
      add((node.variable as Name).name, node.variable as Name);
    }
    for (const value of Object.values(x)) walk(value);
  };
  walk(query);
  return out;
}

test('Analysis: variable kinds, columns, parameters, updating', () => {
  const text = 'MATCH p = (a)-[r]->(b)-[rs*]->(c) WITH a, r, p, rs, b.x AS x UNWIND rs AS one RETURN a, r, p, rs, x, one, $k AS k';
  const query = parseCypher(text);
  const analysis = analyze(query);
  const kinds = occurrences(query);
  const kindsOf = (name: string) => [...new Set(kinds.get(name)!.map((n) => analysis.kinds.get(n)))];
  assert.deepEqual(kindsOf('a'), ['node']);
  assert.deepEqual(kindsOf('r'), ['relationship']);
  assert.deepEqual(kindsOf('p'), ['path']);
  assert.deepEqual(kindsOf('rs'), ['value']);
  assert.deepEqual(kindsOf('one'), ['relationship']);
  assert.deepEqual(analysis.columns, ['a', 'r', 'p', 'rs', 'x', 'one', 'k']);
  assert.deepEqual(analysis.parameters, ['k']);
  assert.equal(analysis.updating, false);

  // a value of unknown type matched as a node is a node from then on
  const learnt = parseCypher('WITH $x AS n MATCH (n) RETURN n');
  const learntFacts = analyze(learnt);
  assert.deepEqual(
    occurrences(learnt)
      .get('n')!
      .map((x) => learntFacts.kinds.get(x)),
    ['node', 'node'],
  );
  const alias = learnt.kind === 'single' && learnt.clauses[0]!.kind === 'with' ? learnt.clauses[0]!.items[0]!.alias : null;
  assert.equal(learntFacts.kinds.get(alias!), 'value');

  assert.deepEqual(ok('MATCH (n) RETURN n.name, count(*) AS c').columns, ['n.name', 'c']);
  assert.deepEqual(ok('MATCH (b), (a) WITH * RETURN *, 1 AS one').columns, ['a', 'b', 'one']);
  assert.deepEqual(ok('RETURN 1 AS x UNION RETURN 2 AS x').columns, ['x']);
  // sort keys after aggregation that repeat a projected expression
  const grouped = parseCypher('MATCH (n) RETURN n.name, count(*) AS c ORDER BY n.name, count(*) + 1');
  const facts = analyze(grouped);
  const ret = grouped.kind === 'single' ? grouped.clauses[1] : undefined;
  assert.ok(ret?.kind === 'return');
  assert.ok(facts.aggregating.has(ret));
  const [byName, bySum] = ret.orderBy;
  assert.equal(facts.standsFor.get(byName!.expr), ret.items[0]);
  assert.equal(bySum!.expr.kind === 'binary' ? facts.standsFor.get(bySum!.expr.left) : null, ret.items[1]);
  assert.equal(facts.standsFor.size, 2);

  const write = ok('MATCH (n {id: $id}) FOREACH (x IN $xs | SET n.v = x)');
  assert.deepEqual([write.columns, write.parameters, write.updating], [[], ['id', 'xs'], true]);
});

test('analysis does not change the syntax tree', () => {
  const text = 'MATCH (a)-[r]->(b) WHERE a.x > $min WITH a, count(r) AS c ORDER BY c DESC RETURN a.name AS name, c';
  const before = JSON.stringify(parseCypher(text), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  const query = parseCypher(text);
  analyze(query);
  assert.equal(
    JSON.stringify(query, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
    before,
  );
  // the tree's clauses and expressions are what the lowering gets
  const clauses: readonly Clause[] = query.kind === 'single' ? query.clauses : [];
  const where: Expr | null = clauses[0]?.kind === 'match' ? clauses[0].where : null;
  assert.equal(where?.kind, 'comparison');
});

// ---- the TCK ----

test('the openCypher TCK through parse + analyze', (t) => {
  if (!existsSync(DEFAULT_TCK)) {
    t.skip(`no TCK at ${DEFAULT_TCK}`);
    return;
  }
  const report = runTckSemantics(DEFAULT_TCK);
  const { compileErrors: errors, valid } = report;
  t.diagnostic(
    `compile-time errors: ${errors.matched}/${errors.total} matched, ${errors.outOfScope.length} out of scope (procedures), ` +
      `${errors.misses.length} missed; valid scenarios: ${valid.passed}/${valid.total} pass, ` +
      `${valid.wronglyRejected.length} wrongly rejected, out of scope ${JSON.stringify(valid.outOfScope)}`,
  );
  const show = (xs: readonly { file: string; scenario: string; query: string; outcome: { detail: string | null; msg: string } }[]) =>
    xs
      .slice(0, 10)
      .map((x) => `${x.file} ${x.scenario}\n${x.query}\n=> ${x.outcome.detail}: ${x.outcome.msg}`)
      .join('\n\n');
  assert.equal(errors.misses.length, 0, show(errors.misses));
  assert.equal(valid.wronglyRejected.length, 0, show(valid.wronglyRejected));
  // What is left needs procedures' signatures (ProcedureNotFound, their argument counts and types).
  for (const x of errors.outOfScope) assert.equal(x.outcome.detail, 'CallProcedure', `${x.file} ${x.scenario}`);
  assert.ok(errors.matched >= 590, `${errors.matched} matched`);
});
