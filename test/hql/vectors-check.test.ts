/**
 * Load-time checks of the vector, search, reranker and path constructs (issue 27 items 1,
 * 2, 4, 5): a query the reference refuses, or that could not run, is a diagnostic naming
 * the cause at its place, never a server error at the first call.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileQuery } from '../../src/hql/compile.js';
import { parse } from '../../src/hql/parser.js';
import { buildSchema } from '../../src/hql/schema.js';

const SCHEMA = `
N::User { name: String, age: I32 }
V::Doc { title: String, n: I32 }
N::Quiet { n: I32 }
E::Wrote { From: User, To: Doc, Properties: { at: I32 } }
E::Knows { From: User, To: User, Properties: { since: String, w: F64 } }
`;

/** The problems of one query against SCHEMA. */
function problems(query: string, options = { bm25: true }): string[] {
  const parsed = parse(SCHEMA + query);
  assert.deepEqual(
    parsed.errors.map((e) => e.message),
    [],
    'the query parses',
  );
  const { schema, problems: schemaProblems } = buildSchema(parsed.file.types.map((item) => ({ file: 'q.hx', item })));
  assert.deepEqual(schemaProblems, []);
  const def = parsed.file.queries[0]!;
  return compileQuery(def, schema, { efSearch: null, ...options }).problems.map((p) => p.message);
}

function refused(query: string, pattern: RegExp, options?: { bm25: boolean }): void {
  const got = problems(query, options);
  assert.ok(
    got.some((m) => pattern.test(m)),
    `expected a problem matching ${pattern}, got ${JSON.stringify(got)}`,
  );
}

test('the vector constructs of the reference compile', () => {
  const ok = [
    'QUERY a(v: [F64]) => d <- AddV<Doc>(v, {title: "x"}) RETURN d',
    'QUERY a() => d <- AddV<Doc>([1.0, 2.0]) RETURN d',
    'QUERY a(v: [F64], k: I64) => d <- SearchV<Doc>(v, k) RETURN d',
    'QUERY a(v: [F64]) => d <- SearchV<Doc>(v, 3)::PREFILTER(_::{n}::GT(1)) RETURN d::{title, score}',
    'QUERY a(u: ID, v: [F64]) => d <- N<User>(u)::Out<Wrote>::SearchV<Doc>(v, 3) RETURN d',
    'QUERY a(d: ID) => e <- V<Doc>(d)::InE<Wrote> n <- e::FromN RETURN n',
    'QUERY a(u: ID) => e <- N<User>(u)::OutE<Wrote> n <- e::ToV RETURN n',
    'QUERY a(v: [F64]) => d <- SearchV<Doc>(v, 3)::RerankRRF(k: 10)::RANGE(0, 2) RETURN d',
    'QUERY a(v: [F64], l: F64) => d <- SearchV<Doc>(v, 3)::RerankMMR(lambda: l, distance: "euclidean") RETURN d',
    'QUERY a(t: String) => u <- SearchBM25<User>(t, 5) RETURN u',
    'QUERY a(f: ID, t: ID) => p <- N<User>(f)::ShortestPathDijkstras<Knows>(MUL(_::{w}, 2.0))::To(t) RETURN p',
    'QUERY a(d: ID) => DROP V<Doc>(d) RETURN NONE',
  ];
  for (const q of ok) assert.deepEqual(problems(q), [], q);
});

test('a vector type where a node type is expected, and the reverse, name what the type is', () => {
  refused('QUERY a(v: [F64]) => d <- SearchV<User>(v, 3) RETURN d', /"User" is not a vector type \(it is a node type\)/);
  refused('QUERY a() => d <- AddV<User>([1.0]) RETURN d', /"User" is not a vector type/);
  refused('QUERY a(d: ID) => n <- N<Doc>(d) RETURN n', /"Doc" is not a node type \(it is a vector type\)/);
});

test('a vector is a [F64] parameter, a list of numbers or Embed(text)', () => {
  refused('QUERY a(v: String) => d <- AddV<Doc>(v) RETURN d', /a vector is a parameter of type \[F64\].*"v" is String/);
  refused('QUERY a(v: [String]) => d <- SearchV<Doc>(v, 2) RETURN d', /a vector is a parameter of type \[F64\]/);
});

test("SearchV's k is an integer of at least 1", () => {
  refused('QUERY a(v: [F64]) => d <- SearchV<Doc>(v, 0) RETURN d', /the k of SearchV is 0; it is at least 1/);
  refused('QUERY a(v: [F64], k: F64) => d <- SearchV<Doc>(v, k) RETURN d', /the k of SearchV is an integer/);
});

test('SearchV as a step applies to vectors of its type', () => {
  refused('QUERY a(v: [F64]) => d <- N<User>::SearchV<Doc>(v, 2) RETURN d', /::SearchV<Doc> searches among vectors of type Doc/);
});

test('FromV/ToV and FromN/ToN must match the kind of the end', () => {
  refused('QUERY a(u: ID) => e <- N<User>(u)::OutE<Wrote> n <- e::ToN RETURN n', /::ToN goes to nodes.*a vector type \(use ::ToV\)/);
  refused('QUERY a(u: ID) => e <- N<User>(u)::OutE<Wrote> n <- e::FromV RETURN n', /::FromV goes to vectors.*a node type \(use ::FromN\)/);
});

test('SearchBM25: a type with String fields, text a String, and off when the project turns bm25 off', () => {
  refused('QUERY a(t: String) => q <- SearchBM25<Quiet>(t, 5) RETURN q', /has no String field for a text search/);
  refused('QUERY a(t: I32) => u <- SearchBM25<User>(t, 5) RETURN u', /the text of SearchBM25 is a String/);
  refused('QUERY a(t: String) => u <- SearchBM25<User>(t, 5) RETURN u', /"bm25": false/, { bm25: false });
});

test('rerankers: numbers for k and lambda, a known distance, MMR on vectors', () => {
  refused('QUERY a(v: [F64], k: String) => d <- SearchV<Doc>(v, 3)::RerankRRF(k: k) RETURN d', /the k of RerankRRF is a number/);
  refused(
    'QUERY a(v: [F64]) => d <- SearchV<Doc>(v, 3)::RerankMMR(lambda: 0.5, distance: "manhattan") RETURN d',
    /the distance of RerankMMR is "cosine", "euclidean" or "dotproduct"/,
  );
  refused('QUERY a() => u <- N<User>::RerankMMR(lambda: 0.5) RETURN u', /RerankMMR compares vectors/);
});

test('shortest paths: an end, numeric weights, a heuristic that is a number field', () => {
  refused('QUERY a(f: ID) => p <- N<User>(f)::ShortestPath<Knows> RETURN p', /needs ::To\(node\) or ::From\(node\)/);
  refused(
    'QUERY a(f: ID, t: ID) => p <- N<User>(f)::ShortestPathDijkstras<Knows>(_::{since})::To(t) RETURN p',
    /"since" is not a number field/,
  );
  refused(
    'QUERY a(f: ID, t: ID) => p <- N<User>(f)::ShortestPathAStar<Knows>(_::{w}, "name")::To(t) RETURN p',
    /the heuristic "name" is not a number field/,
  );
  refused(
    'QUERY a(t: ID) => p <- E<Knows>::ShortestPathBFS<Knows>::To(t) RETURN p',
    /starts from nodes .*, not from the edges of type Knows/,
  );
  assert.deepEqual(problems('QUERY a(t: ID) => p <- N<User>::ShortestPathBFS<Knows>::To(t) RETURN p'), []);
  refused('QUERY a(f: ID, t: ID) => p <- N<User>(f)::ShortestPathDijkstras(_::{w})::To(t) RETURN p', /needs its edge type/);
});

test('Embed takes a String: a string literal or a String parameter', () => {
  assert.deepEqual(problems('QUERY a(t: String) => d <- SearchV<Doc>(Embed(t), 3) RETURN d'), []);
  assert.deepEqual(problems('QUERY a() => d <- AddV<Doc>(Embed("hello"), {title: "x"}) RETURN d'), []);
  refused('QUERY a(t: I32) => d <- SearchV<Doc>(Embed(t), 3) RETURN d', /Embed takes a String; "t" is/);
  refused('QUERY a() => d <- SearchV<Doc>(Embed(3), 3) RETURN d', /Embed takes a String: a string literal or a String parameter/);
  // A variable's value exists only inside the transaction; the text is embedded before it.
  refused(
    'QUERY a(id: ID) =>\n u <- N<User>(id)::{name}\n d <- SearchV<Doc>(Embed(u), 3)\n RETURN d',
    /Embed takes a String literal or parameter, known before the query runs; "u" is property values/,
  );
});

test('the text and k of SearchHybrid and the lambda of RerankMMR are checked like the others', () => {
  refused('QUERY a(v: [F64], t: I32) => d <- SearchHybrid<Doc>(v, t, 3) RETURN d', /the text of SearchHybrid is a String; "t" is/);
  refused('QUERY a(v: [F64], k: String) => d <- SearchHybrid<Doc>(v, "x", k) RETURN d', /the k of SearchHybrid is an integer; "k" is/);
  refused('QUERY a(v: [F64], k: ID) => d <- SearchV<Doc>(v, k) RETURN d', /the k of SearchV is an integer; "k" is/);
  refused(
    'QUERY a(v: [F64], l: String) => d <- SearchV<Doc>(v, 3)::RerankMMR(lambda: l) RETURN d',
    /the lambda of RerankMMR is a number; "l" is/,
  );
  refused('QUERY a(v: [F64]) => d <- SearchV<Doc>(v, 3)::RerankMMR(lambda: "x") RETURN d', /the lambda of RerankMMR is a number literal/);
});
