/** The `.hx` parser (src/hql/parser.ts): each schema and query form, positions, and syntax errors. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Expr, HxFile, NodeTypeDef, QueryDef, Statement, Step } from '../../src/hql/ast.js';
import { MAX_NESTING, parse } from '../../src/hql/parser.js';

/** `value` without its positions (`pos`, `returnPos`), to compare trees by shape. */
function strip(value: unknown): any {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== 'pos' && k !== 'returnPos') out[k] = strip(v);
  return out;
}

/** The tree of `source`, after checking it has no error. */
function ok(source: string): HxFile {
  const { file, errors } = parse(source);
  assert.deepEqual(errors, [], `no errors in ${JSON.stringify(source)}`);
  return file;
}

/** The one query of `source`. */
function query(source: string): QueryDef {
  const file = ok(source);
  assert.equal(file.queries.length, 1);
  return file.queries[0]!;
}

/** The statements of a query whose body is `body`, without positions. */
const body = (text: string): Statement[] => strip(query(`QUERY Q() =>\n${text}\nRETURN NONE`).body);
/** The expression `text` (as a RETURN value), without positions. */
const expr = (text: string): any => strip(query(`QUERY Q() =>\n    RETURN ${text}\n`).returns[0]);
/** The steps of `x::<text>`, without positions. */
const steps = (text: string): Step[] => expr(`x::${text}`).steps;

/** The errors of `source` as `line:column message`. */
const errors = (source: string): string[] => parse(source).errors.map((e) => `${e.pos.line}:${e.pos.column} ${e.message}`);

const name = (text: string) => ({ text });
const prim = (t: string) => ({ kind: 'primitive', name: t });
const field = (n: string, type: unknown, index = 'none', def: unknown = null) => ({ name: name(n), type, index, default: def });
const lit = (value: unknown) => ({ kind: 'literal', value });
const v = (text: string, ...steps: unknown[]) => ({ kind: 'traversal', source: { kind: 'var', name: name(text) }, steps });
const anon = (...steps: unknown[]) => ({ kind: 'traversal', source: { kind: 'anon' }, steps });
const prop = (...fields: string[]) => ({
  kind: 'project',
  fields: fields.map((f) => ({ name: name(f), value: null })),
  spread: false,
  closure: null,
});

// ---- schema ----

test('a node type: primitives, arrays, INDEX, UNIQUE INDEX, DEFAULT literals and NOW, named and object types', () => {
  const file = ok(`N::User {
    UNIQUE INDEX email: String,
    INDEX name: String DEFAULT "anon",
    age: U8 DEFAULT 18,
    delta: I32 DEFAULT -3,
    score: F64 DEFAULT 0.5,
    ratio: F32 DEFAULT -1.5e-3,
    active: Boolean DEFAULT true,
    created: Date DEFAULT NOW,
    tags: [String],
    grid: [[I64]],
    big: U128 DEFAULT 340282366920938463463374607431768211455,
    ref: ID,
    other: Post,
    meta: {a: String, b: [U8]}
}`);
  assert.deepEqual(file.queries, []);
  assert.deepEqual(strip(file.types), [
    {
      kind: 'node',
      name: name('User'),
      fields: [
        field('email', prim('String'), 'unique'),
        field('name', prim('String'), 'index', lit('anon')),
        field('age', prim('U8'), 'none', lit(18n)),
        field('delta', prim('I32'), 'none', lit(-3n)),
        field('score', prim('F64'), 'none', lit(0.5)),
        field('ratio', prim('F32'), 'none', lit(-1.5e-3)),
        field('active', prim('Boolean'), 'none', lit(true)),
        field('created', prim('Date'), 'none', { kind: 'now' }),
        field('tags', { kind: 'array', of: prim('String') }),
        field('grid', { kind: 'array', of: { kind: 'array', of: prim('I64') } }),
        field('big', prim('U128'), 'none', lit(340282366920938463463374607431768211455n)),
        field('ref', prim('ID')),
        field('other', { kind: 'named', name: 'Post' }),
        field('meta', { kind: 'object', fields: [field('a', prim('String')), field('b', { kind: 'array', of: prim('U8') })] }),
      ],
      version: 1,
    },
  ]);
});

test('a vector type, an empty node type, and a trailing comma or none', () => {
  assert.deepEqual(strip(ok('V::Doc {\n    embedding_model: String,\n}\nN::Empty {}\nN::One { a: I8 }').types), [
    { kind: 'vector', name: name('Doc'), fields: [field('embedding_model', prim('String'))], version: 1 },
    { kind: 'node', name: name('Empty'), fields: [], version: 1 },
    { kind: 'node', name: name('One'), fields: [field('a', prim('I8'))], version: 1 },
  ]);
});

test('edge types: UNIQUE, Properties with and without trailing commas, empty or absent Properties', () => {
  const file = ok(`
E::Follows UNIQUE {
    From: User,
    To: User,
    Properties: {
        since: I64,
        weight: F64 DEFAULT 1.0,
    },
}
E::Likes {
    From: User,
    To: Post,
    Properties: {
        at: Date DEFAULT NOW
    }
}
E::Tagged { From: Post, To: Tag }
E::Bare { From: A, To: B, }
E::NoComma { From: A To: B Properties: {} }`);
  assert.deepEqual(strip(file.types), [
    {
      kind: 'edge',
      name: name('Follows'),
      unique: true,
      from: name('User'),
      to: name('User'),
      properties: [field('since', prim('I64')), field('weight', prim('F64'), 'none', lit(1))],
      version: 1,
    },
    {
      kind: 'edge',
      name: name('Likes'),
      unique: false,
      from: name('User'),
      to: name('Post'),
      properties: [field('at', prim('Date'), 'none', { kind: 'now' })],
      version: 1,
    },
    { kind: 'edge', name: name('Tagged'), unique: false, from: name('Post'), to: name('Tag'), properties: [], version: 1 },
    { kind: 'edge', name: name('Bare'), unique: false, from: name('A'), to: name('B'), properties: [], version: 1 },
    { kind: 'edge', name: name('NoComma'), unique: false, from: name('A'), to: name('B'), properties: [], version: 1 },
  ]);
});

test('schema::N blocks: each item carries its version, an unversioned item version 1', () => {
  const file = ok(`
schema::1 {
    N::User { name: String }
    E::Knows { From: User, To: User }
}
N::Post { title: String }
schema::2 {
    V::Doc { text: String }
}
schema::3 {}`);
  assert.deepEqual(
    file.types.map((t) => `${t.kind}:${t.name.text}@${t.version}`),
    ['node:User@1', 'edge:Knows@1', 'node:Post@1', 'vector:Doc@2'],
  );
  assert.deepEqual(errors('schema::0 { }'), ['1:9 a schema version is a whole number from 1, not 0']);
  assert.deepEqual(errors('schema::-2 { }'), ['1:9 a schema version is a whole number from 1, not -2']);
  assert.deepEqual(errors('schema::99999999999999999999 { }'), ['1:9 a schema version is a whole number from 1, not 99999999999999999999']);
});

test('schema mistakes: DEFAULT NONE, a name as a default, UNIQUE without INDEX, an unknown item kind, an unclosed block', () => {
  assert.deepEqual(errors('N::A { x: String DEFAULT NONE }'), ['1:26 DEFAULT NONE is not a default: leave the DEFAULT out']);
  assert.deepEqual(errors('N::A { x: String DEFAULT y }'), ['1:26 expected a default value (a literal or NOW), found "y"']);
  assert.deepEqual(errors('N::A { UNIQUE x: String }'), ['1:15 expected "INDEX" after UNIQUE, found "x"']);
  assert.deepEqual(errors('N::A { x String }'), ['1:10 expected ":" after the field name "x", found "String"']);
  assert.deepEqual(errors('schema::1 { X::A {} }'), ['1:13 expected N::, E:: or V::, found "X::"']);
  assert.deepEqual(errors('schema::x { }'), ['1:9 expected a schema version number after "schema::"']);
  assert.deepEqual(errors('schema::1 { N::A {}'), ['1:20 this schema block is never closed']);
  assert.deepEqual(errors('E::K { To: A, From: B }'), ['1:8 expected "From", found "To"']);
  assert.deepEqual(errors('E::K { From: A, To: B, Properties: { a: I8 }, x: I8 }'), [
    '1:47 expected "}" to close the body of K, found "x"',
  ]);
});

// ---- queries: header ----

test('parameters: optional ones with ?, arrays, object types, none at all, a trailing comma', () => {
  const q = query('QUERY find(name: String, age?: U8, ids: [ID], rows: [{title: String, n: I32}],) =>\n    RETURN NONE');
  assert.equal(q.name.text, 'find');
  assert.equal(q.mcp, false);
  assert.deepEqual(strip(q.params), [
    { name: name('name'), optional: false, type: prim('String') },
    { name: name('age'), optional: true, type: prim('U8') },
    { name: name('ids'), optional: false, type: { kind: 'array', of: prim('ID') } },
    {
      name: name('rows'),
      optional: false,
      type: { kind: 'array', of: { kind: 'object', fields: [field('title', prim('String')), field('n', prim('I32'))] } },
    },
  ]);
  assert.deepEqual(query('QUERY none() => RETURN 1').params, []);
  // The fields of an object type are fields, not parameters: no `?` there.
  assert.deepEqual(errors('QUERY Q(rows: {n?: I32}) => RETURN 1'), ['1:17 expected ":" after the field name "n", found "?"']);
});

test('#[mcp] marks a query; #[model(...)] is read and dropped; another macro is an error', () => {
  assert.equal(query('#[mcp]\nQUERY Q() => RETURN 1').mcp, true);
  assert.equal(query('#[model("text-embedding-3")] QUERY Q() => RETURN 1').mcp, false);
  assert.deepEqual(errors('#[cache] QUERY Q() => RETURN 1'), ['1:3 unknown macro "cache"; the macros are #[mcp] and #[model(...)]']);
});

// ---- queries: statements ----

test('statements: assignment, DROP, FOR over a name and destructured, nested FOR, bare AddN and AddE', () => {
  assert.deepEqual(
    body(`    u <- N<User>
    DROP u::OutE<Follows>
    FOR {name, age} IN rows {
        AddN<User>({name: name, age: age})
        FOR t IN tags {
            x <- t
        }
    }
    FOR r IN rows {}
    AddE<Follows>::From(a)::To(b)`),
    [
      {
        kind: 'assign',
        name: name('u'),
        value: { kind: 'traversal', source: { kind: 'N', type: name('User'), id: null, lookup: null }, steps: [] },
      },
      { kind: 'drop', value: v('u', { kind: 'hop', dir: 'OutE', edge: name('Follows') }) },
      {
        kind: 'for',
        vars: [name('name'), name('age')],
        destructure: true,
        source: name('rows'),
        body: [
          {
            kind: 'expr',
            value: {
              kind: 'traversal',
              source: {
                kind: 'AddN',
                type: name('User'),
                fields: [
                  { name: name('name'), value: v('name') },
                  { name: name('age'), value: v('age') },
                ],
              },
              steps: [],
            },
          },
          {
            kind: 'for',
            vars: [name('t')],
            destructure: false,
            source: name('tags'),
            body: [{ kind: 'assign', name: name('x'), value: v('t') }],
          },
        ],
      },
      { kind: 'for', vars: [name('r')], destructure: false, source: name('rows'), body: [] },
      {
        kind: 'expr',
        value: {
          kind: 'traversal',
          source: {
            kind: 'AddE',
            type: name('Follows'),
            fields: [],
            from: { kind: 'name', name: name('a') },
            to: { kind: 'name', name: name('b') },
          },
          steps: [],
        },
      },
    ],
  );
});

test('statement mistakes: FOR x.y, a bare traversal, a missing RETURN', () => {
  assert.deepEqual(errors('QUERY Q() =>\n    FOR r.x IN rows {}\n    RETURN 1'), [
    '2:10 FOR x.y IN ... is not supported; destructure with FOR {y} IN ...',
  ]);
  assert.deepEqual(errors('QUERY Q() =>\n    N<User>::UPDATE({a: 1})\n    RETURN 1'), [
    '2:5 expected a statement (name <- ..., DROP, FOR, AddN, AddE, AddV, BatchAddV) or RETURN, found "N"',
  ]);
  assert.deepEqual(errors('QUERY Q() =>\n    x <- N<User>\n'), ['3:1 expected a statement or RETURN, found the end of the file']);
  assert.deepEqual(errors('QUERY Q() =>\n    x <- N<User>\nQUERY R() => RETURN 1'), ['3:1 expected a statement or RETURN, found "QUERY"']);
});

// ---- queries: sources ----

test('sources: N, E and V with a type, an id, a literal id or an index lookup; variables, _, AddN, AddE, AddV, SearchV, SearchBM25', () => {
  const src = (text: string) => expr(text).source;
  assert.deepEqual(src('N'), { kind: 'N', type: null, id: null, lookup: null });
  assert.deepEqual(src('N<User>'), { kind: 'N', type: name('User'), id: null, lookup: null });
  assert.deepEqual(src('N<User>(id)'), { kind: 'N', type: name('User'), id: { kind: 'name', name: name('id') }, lookup: null });
  assert.deepEqual(src('E<Follows>("abc")'), { kind: 'E', type: name('Follows'), id: { kind: 'literal', value: 'abc' }, lookup: null });
  // An integer id is kept as written, as a string.
  assert.deepEqual(src('V<Doc>(0012)'), { kind: 'V', type: name('Doc'), id: { kind: 'literal', value: '0012' }, lookup: null });
  assert.deepEqual(src('N<User>({email: "a@b"})'), {
    kind: 'N',
    type: name('User'),
    id: null,
    lookup: { field: name('email'), value: lit('a@b') },
  });
  assert.deepEqual(src('users'), { kind: 'var', name: name('users') });
  assert.deepEqual(src('_'), { kind: 'anon' });
  assert.deepEqual(src('AddN<User>'), { kind: 'AddN', type: name('User'), fields: [] });
  assert.deepEqual(src('AddN<User>()'), { kind: 'AddN', type: name('User'), fields: [] });
  assert.deepEqual(src('AddN<User>({a: 1, b: "x",})'), {
    kind: 'AddN',
    type: name('User'),
    fields: [
      { name: name('a'), value: lit(1n) },
      { name: name('b'), value: lit('x') },
    ],
  });
  // ::To and ::From in either order.
  assert.deepEqual(src('AddE<Knows>({since: 3})::To("t")::From(f)'), {
    kind: 'AddE',
    type: name('Knows'),
    fields: [{ name: name('since'), value: lit(3n) }],
    from: { kind: 'name', name: name('f') },
    to: { kind: 'literal', value: 't' },
  });
  assert.deepEqual(src('AddE<Knows>'), { kind: 'AddE', type: name('Knows'), fields: [], from: null, to: null });
  assert.deepEqual(src('AddV<Doc>(vec, {text: "x"})'), {
    kind: 'AddV',
    type: name('Doc'),
    vector: { kind: 'name', name: name('vec') },
    fields: [{ name: name('text'), value: lit('x') }],
  });
  assert.deepEqual(src('AddV<Doc>([1.0, 2, -0.5])'), {
    kind: 'AddV',
    type: name('Doc'),
    vector: { kind: 'literal', values: [1, 2, -0.5] },
    fields: [],
  });
  assert.deepEqual(src('BatchAddV<Doc>(docs)'), { kind: 'BatchAddV', type: name('Doc'), items: name('docs') });
  assert.deepEqual(src('SearchV<Doc>(Embed(q), 10)'), {
    kind: 'SearchV',
    type: name('Doc'),
    vector: { kind: 'embed', text: v('q') },
    k: lit(10n),
    prefilter: null,
  });
  assert.deepEqual(src('SearchV<Doc>(v, k, PREFILTER(_::{n}::GT(1)))'), {
    kind: 'SearchV',
    type: name('Doc'),
    vector: { kind: 'name', name: name('v') },
    k: v('k'),
    prefilter: anon(prop('n'), { kind: 'compare', op: 'GT', value: lit(1n) }),
  });
  assert.deepEqual(src('SearchBM25<Post>("graph", k)'), { kind: 'SearchBM25', type: name('Post'), text: lit('graph'), k: v('k') });
  assert.deepEqual(src('SearchHybrid<Doc>(v, "graph", 5)'), {
    kind: 'SearchHybrid',
    type: name('Doc'),
    vector: { kind: 'name', name: name('v') },
    text: lit('graph'),
    k: lit(5n),
  });
});

test('source mistakes: two ids, ::From twice, AddN without a type, an unclosed skipped group', () => {
  assert.deepEqual(errors('QUERY Q() => RETURN N<User>(a, b)'), ['1:30 only one id can be given']);
  assert.deepEqual(errors('QUERY Q() => RETURN AddE<K>::From(a)::From(b)'), ['1:46 ::From is given twice']);
  assert.deepEqual(errors('QUERY Q() => RETURN AddN({a: 1})'), ['1:25 expected "<" before the node type, found "("']);
  assert.deepEqual(errors('QUERY Q() => RETURN SearchV<Doc>(v, 10'), ['1:39 expected ")" to close SearchV, found the end of the file']);
  assert.deepEqual(errors('QUERY Q() => RETURN AddV<Doc>(["a"])'), ['1:32 a vector holds numbers, found the string "a"']);
});

// ---- queries: steps ----

test('graph steps: Out, In, OutE, InE with an edge type; FromN, ToN, FromV, ToV', () => {
  assert.deepEqual(steps('Out<A>::In<B>::OutE<C>::InE<D>::FromN::ToN::FromV::ToV'), [
    { kind: 'hop', dir: 'Out', edge: name('A') },
    { kind: 'hop', dir: 'In', edge: name('B') },
    { kind: 'hop', dir: 'OutE', edge: name('C') },
    { kind: 'hop', dir: 'InE', edge: name('D') },
    { kind: 'endpoint', which: 'FromN' },
    { kind: 'endpoint', which: 'ToN' },
    { kind: 'endpoint', which: 'FromV' },
    { kind: 'endpoint', which: 'ToV' },
  ]);
  assert.deepEqual(errors('QUERY Q() => RETURN x::Out::COUNT'), ['1:27 expected "<" before the edge type, found "::"']);
});

test('WHERE, COUNT, ID, FIRST, RANGE, ORDER, GROUP_BY, AGGREGATE_BY, INTERSECT', () => {
  assert.deepEqual(steps('WHERE(_::{age}::GT(18))::COUNT::ID::FIRST::RANGE(0, n)::ORDER<Asc>(_::{a})::ORDER<Desc>(_::COUNT)'), [
    { kind: 'where', condition: anon(prop('age'), { kind: 'compare', op: 'GT', value: lit(18n) }) },
    { kind: 'COUNT' },
    { kind: 'ID' },
    { kind: 'FIRST' },
    { kind: 'range', start: lit(0n), end: v('n') },
    { kind: 'order', desc: false, by: anon(prop('a')) },
    { kind: 'order', desc: true, by: anon({ kind: 'COUNT' }) },
  ]);
  assert.deepEqual(steps('GROUP_BY(a, b)::AGGREGATE_BY(c)::INTERSECT(_::Out<K>)'), [
    { kind: 'group', aggregate: false, properties: [name('a'), name('b')] },
    { kind: 'group', aggregate: true, properties: [name('c')] },
    { kind: 'intersect', traversal: anon({ kind: 'hop', dir: 'Out', edge: name('K') }) },
  ]);
});

test('comparisons: EQ, NEQ, GT, GTE, LT, LTE, CONTAINS, IS_IN', () => {
  for (const op of ['EQ', 'NEQ', 'GT', 'GTE', 'LT', 'LTE', 'CONTAINS']) {
    assert.deepEqual(steps(`{a}::${op}(v)`)[1], { kind: 'compare', op, value: v('v') });
  }
  assert.deepEqual(steps('{id}::IS_IN(["a", "b"])')[1], {
    kind: 'compare',
    op: 'IS_IN',
    value: { kind: 'array', items: [lit('a'), lit('b')] },
  });
});

test('projections: shorthand, alias, nested traversal, math, nested projection, spread, closure; exclusion', () => {
  assert.deepEqual(steps('{name, userID: ID, n: _::In<F>::COUNT, total: ADD(a, 1), inner: {x, y: z}, lit: "s", ..}'), [
    {
      kind: 'project',
      spread: true,
      closure: null,
      fields: [
        { name: name('name'), value: null },
        { name: name('userID'), value: v('ID') },
        { name: name('n'), value: anon({ kind: 'hop', dir: 'In', edge: name('F') }, { kind: 'COUNT' }) },
        { name: name('total'), value: { kind: 'math', fn: 'ADD', args: [v('a'), lit(1n)] } },
        {
          name: name('inner'),
          value: {
            kind: 'project',
            spread: false,
            closure: null,
            fields: [
              { name: name('x'), value: null },
              { name: name('y'), value: v('z') },
            ],
          },
        },
        { name: name('lit'), value: lit('s') },
      ],
    },
  ]);
  assert.deepEqual(steps('|u|{name: u::{name}, ..,}'), [
    { kind: 'project', spread: true, closure: name('u'), fields: [{ name: name('name'), value: v('u', prop('name')) }] },
  ]);
  assert.deepEqual(steps('{}'), [{ kind: 'project', spread: false, closure: null, fields: [] }]);
  assert.deepEqual(steps('!{email, age,}::{name}'), [{ kind: 'exclude', fields: [name('email'), name('age')] }, prop('name')]);
  assert.deepEqual(errors('QUERY Q() => RETURN x::{..}'), ['1:25 ".." comes after at least one field']);
  assert.deepEqual(errors('QUERY Q() => RETURN x::!name'), ['1:25 expected "{" after "!" (an exclusion is !{field, ...}), found "name"']);
  assert.deepEqual(errors('QUERY Q() => RETURN x::{a: |u|{b}}'), ['1:28 expected a value or a traversal, found "|"']);
});

test('UPDATE and Update, UpsertN, UpsertE with its ends, UpsertV; the search, reranker and path steps', () => {
  assert.deepEqual(steps('UPDATE({a: 1})::Update({b: x})'), [
    { kind: 'update', fields: [{ name: name('a'), value: lit(1n) }] },
    { kind: 'update', fields: [{ name: name('b'), value: v('x') }] },
  ]);
  assert.deepEqual(steps('UpsertN({name: n})'), [
    { kind: 'upsert', which: 'UpsertN', vector: null, fields: [{ name: name('name'), value: v('n') }], from: null, to: null },
  ]);
  assert.deepEqual(steps('UpsertE({})::From(a)::To("b")'), [
    {
      kind: 'upsert',
      which: 'UpsertE',
      vector: null,
      fields: [],
      from: { kind: 'name', name: name('a') },
      to: { kind: 'literal', value: 'b' },
    },
  ]);
  assert.deepEqual(steps('UpsertE({})::To(b)::From(a)'), [
    {
      kind: 'upsert',
      which: 'UpsertE',
      vector: null,
      fields: [],
      from: { kind: 'name', name: name('a') },
      to: { kind: 'name', name: name('b') },
    },
  ]);
  const to = (n: string) => ({ kind: 'name', name: name(n) });
  const w = anon(prop('w'));
  assert.deepEqual(
    steps(
      'UpsertV(vec, {a: 1})::ShortestPath<K>::To(b)::ShortestPathBFS::From(a)::ShortestPathDijkstras<K>(_::{w})::To(b)' +
        '::ShortestPathAStar<K>(_::{w}, "h")::To(b)::RerankRRF(k: 60)::RerankRRF::RerankMMR(lambda: 0.5, distance: "cosine")::SearchV<D>(v, 5)::PREFILTER(c)',
    ),
    [
      {
        kind: 'upsert',
        which: 'UpsertV',
        vector: { kind: 'name', name: name('vec') },
        fields: [{ name: name('a'), value: lit(1n) }],
        from: null,
        to: null,
      },
      { kind: 'path', algorithm: 'ShortestPath', edge: name('K'), weight: null, heuristic: null, from: null, to: to('b') },
      { kind: 'path', algorithm: 'ShortestPathBFS', edge: null, weight: null, heuristic: null, from: to('a'), to: null },
      { kind: 'path', algorithm: 'ShortestPathDijkstras', edge: name('K'), weight: w, heuristic: null, from: null, to: to('b') },
      { kind: 'path', algorithm: 'ShortestPathAStar', edge: name('K'), weight: w, heuristic: 'h', from: null, to: to('b') },
      { kind: 'rerankRRF', k: lit(60n) },
      { kind: 'rerankRRF', k: null },
      { kind: 'rerankMMR', lambda: lit(0.5), distance: lit('cosine') },
      { kind: 'search', type: name('D'), vector: { kind: 'name', name: name('v') }, k: lit(5n) },
      { kind: 'prefilter', condition: v('c') },
    ],
  );
  assert.deepEqual(errors('QUERY Q() => RETURN x::ShortestPathAStar<K>(_::{w}, h)::To(b)'), [
    '1:53 the heuristic is a property name in quotes, such as "h"',
  ]);
  assert.deepEqual(errors('QUERY Q() => RETURN x::Frobnicate'), ['1:24 "Frobnicate" is not a step']);
  assert.deepEqual(errors('QUERY Q() => RETURN x::UPDATE(a: 1)'), ['1:31 expected "{", found "a"']);
});

// ---- queries: expressions ----

test('literals: strings with escapes, exact integers, negative numbers, floats, booleans, NONE', () => {
  assert.deepEqual(expr('"a\\"b\\\\c\\n\\u{1F600}"'), lit('a"b\\c\n\u{1F600}'));
  assert.deepEqual(expr('18446744073709551616'), lit(18446744073709551616n));
  assert.deepEqual(expr('-7'), lit(-7n));
  assert.deepEqual(expr('-2.5e3'), lit(-2500));
  assert.deepEqual(expr('1.0'), lit(1));
  assert.deepEqual(expr('true'), lit(true));
  assert.deepEqual(expr('false'), lit(false));
  assert.deepEqual(expr('NONE'), lit(null));
});

test('arrays and object literals, nested, with trailing commas', () => {
  assert.deepEqual(expr('[1, "a", [true], {k: NONE},]'), {
    kind: 'array',
    items: [lit(1n), lit('a'), { kind: 'array', items: [lit(true)] }, { kind: 'object', fields: [{ name: name('k'), value: lit(null) }] }],
  });
  assert.deepEqual(expr('[]'), { kind: 'array', items: [] });
  assert.deepEqual(expr('{user: u, posts: u::Out<Created>, n: 1,}'), {
    kind: 'object',
    fields: [
      { name: name('user'), value: v('u') },
      { name: name('posts'), value: v('u', { kind: 'hop', dir: 'Out', edge: name('Created') }) },
      { name: name('n'), value: lit(1n) },
    ],
  });
});

test('EXISTS and !EXISTS, AND and OR (nested, negated); "!" before anything else is an error', () => {
  const cond = (text: string) => steps(`WHERE(${text})`)[0] as Extract<Step, { kind: 'where' }>;
  assert.deepEqual(strip(cond('EXISTS(_::Out<F>)').condition), {
    kind: 'exists',
    negated: false,
    traversal: anon({ kind: 'hop', dir: 'Out', edge: name('F') }),
  });
  assert.deepEqual(strip(cond('!EXISTS(_::In<F>)').condition), {
    kind: 'exists',
    negated: true,
    traversal: anon({ kind: 'hop', dir: 'In', edge: name('F') }),
  });
  const isAdult = anon(prop('age'), { kind: 'compare', op: 'GTE', value: lit(18n) });
  assert.deepEqual(strip(cond('AND(_::{age}::GTE(18), !OR(flag, EXISTS(_::Out<F>)))').condition), {
    kind: 'logic',
    op: 'AND',
    negated: false,
    items: [
      isAdult,
      {
        kind: 'logic',
        op: 'OR',
        negated: true,
        items: [v('flag'), { kind: 'exists', negated: false, traversal: anon({ kind: 'hop', dir: 'Out', edge: name('F') }) }],
      },
    ],
  });
  assert.deepEqual(strip(cond('!AND(a)').condition), { kind: 'logic', op: 'AND', negated: true, items: [v('a')] });
  // AND and OR are names when no "(" follows.
  assert.deepEqual(expr('AND'), v('AND'));
  assert.deepEqual(errors('QUERY Q() => RETURN x::WHERE(!x)'), ['1:31 "!" negates EXISTS(...), AND(...) or OR(...) only']);
  assert.deepEqual(errors('QUERY Q() => RETURN x::WHERE(AND(a,))'), ['1:36 expected a value or a traversal, found ")"']);
});

test('math functions by arity, nested; a wrong argument count names the function and the counts', () => {
  assert.deepEqual(expr('ADD(PI(), POW(_::{x}, 2.0))'), {
    kind: 'math',
    fn: 'ADD',
    args: [
      { kind: 'math', fn: 'PI', args: [] },
      { kind: 'math', fn: 'POW', args: [anon(prop('x')), lit(2)] },
    ],
  });
  assert.deepEqual(expr('ABS(-1,)'), { kind: 'math', fn: 'ABS', args: [lit(-1n)] });
  assert.deepEqual(expr('ATAN2(y, x)').args.length, 2);
  // A math name without "(" is a name.
  assert.deepEqual(expr('SUM'), v('SUM'));
  assert.deepEqual(errors('QUERY Q() => RETURN PI(1)'), ['1:21 PI takes 0 arguments, got 1']);
  assert.deepEqual(errors('QUERY Q() => RETURN SQRT()'), ['1:21 SQRT takes 1 argument, got 0']);
  assert.deepEqual(errors('QUERY Q() => RETURN ADD(1, 2, 3)'), ['1:21 ADD takes 2 arguments, got 3']);
  // `E(...)` is the math constant, so an untyped E source takes no id.
  assert.deepEqual(errors('QUERY Q() => RETURN E(x)'), ['1:21 E takes 0 arguments, got 1']);
});

test('RETURN forms: several values, a literal, an object literal, an array, NONE, a traversal', () => {
  const returns = (text: string) => strip(query(`QUERY Q() =>\n    RETURN ${text}`).returns);
  assert.deepEqual(returns('a, b::{name}, "ok"'), [v('a'), v('b', prop('name')), lit('ok')]);
  assert.deepEqual(returns('{user: u, count: n}'), [
    {
      kind: 'object',
      fields: [
        { name: name('user'), value: v('u') },
        { name: name('count'), value: v('n') },
      ],
    },
  ]);
  assert.deepEqual(returns('[a, b]'), [{ kind: 'array', items: [v('a'), v('b')] }]);
  assert.deepEqual(returns('NONE'), [lit(null)]);
  assert.deepEqual(returns('N<User>::COUNT'), [
    { kind: 'traversal', source: { kind: 'N', type: name('User'), id: null, lookup: null }, steps: [{ kind: 'COUNT' }] },
  ]);
  assert.deepEqual(errors('QUERY Q() => RETURN'), ['1:20 expected a value or a traversal, found the end of the file']);
  assert.deepEqual(errors('QUERY Q() => RETURN a,'), ['1:23 expected a value or a traversal, found the end of the file']);
});

// ---- positions ----

test('nodes carry the line and column they start at (columns count characters, not UTF-16 units)', () => {
  const source = [
    '// users',
    'N::User {',
    '    INDEX name: String,',
    '}',
    '',
    '#[mcp]',
    'QUERY get(id: ID) =>',
    '    u <- N<User>(id)::{name}',
    '    x <- "😀😀"',
    '    y <- u::Out<K>',
    '    RETURN u, y',
  ].join('\n');
  const file = ok(source);
  const at = (p: { line: number; column: number; offset: number }) => `${p.line}:${p.column}@${p.offset}`;
  const user = file.types[0] as NodeTypeDef;
  assert.equal(at(user.name.pos), `2:4@${source.indexOf('User')}`);
  assert.equal(at(user.fields[0]!.name.pos), `3:11@${source.indexOf('name:')}`);
  const q = file.queries[0]!;
  assert.equal(at(q.pos), `6:1@${source.indexOf('#[mcp]')}`, 'a query starts at its macro');
  assert.equal(at(q.name.pos), '7:7@' + source.indexOf('get('));
  assert.equal(at(q.params[0]!.type.pos), '7:15@' + source.indexOf('ID)'));
  const [s0, , s2] = q.body as [Extract<Statement, { kind: 'assign' }>, Statement, Extract<Statement, { kind: 'assign' }>];
  assert.equal(at(s0.pos), '8:5@' + source.indexOf('u <-'));
  const traversal = s0.value as Extract<Expr, { kind: 'traversal' }>;
  assert.equal(at(traversal.pos), '8:10@' + source.indexOf('N<User>'));
  assert.equal(at(traversal.steps[0]!.pos), '8:23@' + source.indexOf('{name}'));
  assert.equal(at(s2.pos), '10:5@' + source.indexOf('y <-'));
  const hop = (s2.value as Extract<Expr, { kind: 'traversal' }>).steps[0]!;
  assert.equal(at(hop.pos), '10:13@' + source.indexOf('Out<K>'));
  assert.equal(at(q.returnPos), '11:5@' + source.indexOf('RETURN'));
  assert.equal(at(q.returns[1]!.pos), '11:15@' + source.lastIndexOf('y'));
  const emoji = ok('QUERY Q() => RETURN ["😀", x]').queries[0]!.returns[0] as Extract<Expr, { kind: 'array' }>;
  assert.equal(emoji.items[1]!.pos.column, 27, 'the emoji counts as one column');
  assert.equal(emoji.items[1]!.pos.offset, 27);
});

// ---- errors and recovery ----

test('typical mistakes: each message and where it points', () => {
  assert.deepEqual(errors('QUERY Q() RETURN 1'), ['1:11 expected "=>" after the parameter list, found "RETURN"']);
  assert.deepEqual(errors('QUERY Q(a String) => RETURN 1'), ['1:11 expected ":" after the parameter "a", found "String"']);
  assert.deepEqual(errors('QUERY Q(a: String => RETURN 1'), ['1:19 expected ")" to close the parameter list, found "=>"']);
  assert.deepEqual(errors('QUERY Q() =>\n    x <- N<User>::WHERE(_::{a}::EQ(1)\n    RETURN x'), [
    '3:5 expected ")" to close WHERE, found "RETURN"',
  ]);
  assert.deepEqual(errors('QUERY Q() => RETURN x::RANGE(10)'), [
    '1:32 expected "," between the start and the end of RANGE (both are required), found ")"',
  ]);
  assert.deepEqual(errors('QUERY Q() => RETURN x::ORDER<Up>(_::{a})'), ['1:30 expected Asc or Desc, found "Up"']);
  assert.deepEqual(errors('QUERY Q() => RETURN x::'), ['1:24 expected a step after "::", found the end of the file']);
  assert.deepEqual(errors('users <- N<User>'), ['1:1 expected a schema item (N::, E::, V::), a MIGRATION or a QUERY, found "users"']);
  assert.deepEqual(errors('QUERY Q() => RETURN x::{a b}'), ['1:27 expected "}" to close the projection, found "b"']);
});

test('every error of a file is reported, each item after a mistake is still read', () => {
  const source = [
    'N::A { x: String DEFAULT NONE }', // 1: error
    'N::B { y: I32 }', // 2: fine
    'QUERY one() => x <- , RETURN x', // 3: error
    'QUERY two() => RETURN 1', // 4: fine
    'E::C { From: A }', // 5: error
    'N::D { z: }', // 6: error
    'MIGRATION schema::1 => schema::2 { N::A => _::{ x: } N::B => _::{} }', // 7: error, the whole block skipped
    '#[mcp] QUERY three(a: ID) => RETURN N<B>(a)', // 8: fine
    'QUERY four() => RETURN "unclosed', // 9: lexical error, then the parser's
  ].join('\n');
  const { file, errors: found } = parse(source);
  assert.deepEqual(
    found.map((e) => `${e.pos.line}:${e.pos.column} ${e.message}`),
    [
      '9:24 this string has no closing "',
      '1:26 DEFAULT NONE is not a default: leave the DEFAULT out',
      '3:21 expected a value or a traversal, found ","',
      '5:16 expected "To", found "}"',
      '6:11 expected a type, found "}"',
      '7:52 expected a value: a field of the old item, a literal, NOW or NONE, found "}"',
      '9:33 expected a value or a traversal, found the end of the file',
    ],
  );
  assert.deepEqual(
    file.types.map((t) => t.name.text),
    ['B'],
  );
  assert.deepEqual(
    file.queries.map((q) => `${q.name.text}${q.mcp ? ' mcp' : ''}`),
    ['two', 'three mcp'],
  );
});

test('MIGRATION blocks: versions, mappings to the same item (_::) or another, fields from old fields (AS a type), literals, NOW, NONE', () => {
  const file = ok(`
MIGRATION schema::1 => schema::2 {
    N::User => _::{ username: name, age: age AS U32, post_count: 0, joined: NOW, gone: NONE, score: 1.5, ok: true, tag: "x", }
    E::Follows => _::{ Properties: { since: since AS Date } }
    V::Doc => V::Document { }
    N::Old => N::New { Properties: {} },
}
MIGRATION schema::2 => schema::3 {}`);
  assert.deepEqual(strip(file.migrations), [
    {
      kind: 'migration',
      from: { value: 1 },
      to: { value: 2 },
      mappings: [
        {
          from: { kind: 'node', name: name('User') },
          to: { kind: 'same' },
          properties: false,
          rest: null,
          fields: [
            { name: name('username'), value: { kind: 'field', name: name('name'), cast: null } },
            { name: name('age'), value: { kind: 'field', name: name('age'), cast: { type: 'U32' } } },
            { name: name('post_count'), value: lit(0n) },
            { name: name('joined'), value: { kind: 'now' } },
            { name: name('gone'), value: lit(null) },
            { name: name('score'), value: lit(1.5) },
            { name: name('ok'), value: lit(true) },
            { name: name('tag'), value: lit('x') },
          ],
        },
        {
          from: { kind: 'edge', name: name('Follows') },
          to: { kind: 'same' },
          properties: true,
          rest: null,
          fields: [{ name: name('since'), value: { kind: 'field', name: name('since'), cast: { type: 'Date' } } }],
        },
        {
          from: { kind: 'vector', name: name('Doc') },
          to: { kind: 'vector', name: name('Document') },
          properties: false,
          fields: [],
          rest: null,
        },
        { from: { kind: 'node', name: name('Old') }, to: { kind: 'node', name: name('New') }, properties: true, fields: [], rest: null },
      ],
    },
    { kind: 'migration', from: { value: 2 }, to: { value: 3 }, mappings: [] },
  ]);
  // Positions point at what the checks report: the versions, the items, the fields.
  const m = file.migrations[0]!;
  assert.deepEqual([m.pos.line, m.pos.column, m.from.pos.column, m.to.pos.column], [2, 1, 11, 24]);
  assert.deepEqual([m.mappings[0]!.from.pos.column, m.mappings[0]!.to.pos.column], [5, 16]);
  const age = m.mappings[0]!.fields[1]!;
  assert.equal(age.value.kind === 'field' && age.value.cast!.pos.column, 49);
});

test('MIGRATION mistakes cost one error each, the whole block skipped, and the schema around it is kept', () => {
  const { file, errors: found } = parse(
    'N::A { x: I8 }\nMIGRATION schema::1 => schema::2 {\n    N::A => _::{ x: x AS Text }\n    E::K => _::{ Properties: { y: NOW } }\n}\nN::B { y: I8 }',
  );
  assert.deepEqual(
    found.map((e) => `${e.pos.line}:${e.pos.column} ${e.message}`),
    ['3:26 AS takes a type: String, Boolean, F32, F64, I8 to I64, U8 to U128, Date or ID; found "Text"'],
  );
  assert.deepEqual(
    file.types.map((t) => t.name.text),
    ['A', 'B'],
  );
  assert.deepEqual(file.migrations, []);
  // An unclosed or headless block: still one error, and what follows the header is read.
  assert.deepEqual(errors('MIGRATION schema::1 => schema::2 { N::A => _::{}'), ['1:49 this migration is never closed']);
  assert.deepEqual(typesAfterMigration('MIGRATION\nN::C { z: I8 }'), ['C']);
  assert.deepEqual(errors('MIGRATION schema::1 schema::2 {}'), ['1:21 expected "=>" between the two schema versions, found "schema"']);
  assert.deepEqual(errors('MIGRATION schema::1 => schema::2 { User => _::{} }'), [
    '1:36 expected an item (N::Name, E::Name or V::Name), found "User"',
  ]);
  assert.deepEqual(errors('MIGRATION schema::1 => schema::2 { N::A => B {} }'), [
    '1:44 expected an item (N::Name, E::Name or V::Name), found "B"',
  ]);
  assert.deepEqual(errors('MIGRATION schema::1 => schema::2 { N::A => _::{ x: {} } }'), [
    '1:52 expected a value: a field of the old item, a literal, NOW or NONE, found "{"',
  ]);
  assert.deepEqual(errors('MIGRATION schema::1 => schema::2 { N::A => _::{ x: y z: 1 } }'), [
    '1:54 expected "}" to close the field mappings, found "z"',
  ]);
});

/** The types read from `source`, which has exactly one error: in its MIGRATION. */
function typesAfterMigration(source: string): string[] {
  const { file, errors: found } = parse(source);
  assert.equal(found.length, 1);
  return file.types.map((t) => t.name.text);
}

test('nesting deeper than MAX_NESTING is one error, not a stack overflow out of parse', () => {
  const message = `this is nested too deeply (more than ${MAX_NESTING} levels)`;
  // Before: 10,000 levels threw RangeError (Maximum call stack size exceeded) out of parse.
  for (const source of [
    `QUERY Q() => RETURN ${'['.repeat(100_000)}`,
    `QUERY Q() => RETURN x${'::WHERE(AND(_'.repeat(50_000)}`,
    `QUERY Q() => RETURN x::${'{a: _::'.repeat(50_000)}`,
    `QUERY Q(p: ${'['.repeat(100_000)}) => RETURN p`,
    `N::A { f: ${'{a: '.repeat(100_000)} }`,
    `QUERY Q() =>\n${'FOR x IN y {\n'.repeat(100_000)}`,
  ]) {
    const found = parse(`${source}\nQUERY After() => RETURN 1`);
    assert.deepEqual(
      found.errors.map((e) => e.message),
      [message],
      source.slice(0, 40),
    );
    assert.deepEqual(
      found.file.queries.map((q) => q.name.text),
      ['After'],
      'the next item is read',
    );
  }
  // Up to the limit is fine.
  const levels = MAX_NESTING;
  const array = expr(`${'['.repeat(levels)}${']'.repeat(levels)}`);
  let depth = 0;
  for (let a = array; a.kind === 'array'; a = a.items[0] ?? {}) depth++;
  assert.equal(depth, levels);
  // Each error points at where the limit is passed.
  const at = parse(`QUERY Q() => RETURN ${'['.repeat(MAX_NESTING + 1)}`).errors[0]!.pos;
  assert.equal(at.column, 'QUERY Q() => RETURN '.length + MAX_NESTING + 1);
});

test("Object.prototype's names are not steps or math functions", () => {
  // Before: `::toString` parsed, without an error, as an unsupported step whose `what` was
  // a function, and `constructor(1)` failed with "constructor takes function Object() {
  // [native code] } arguments".
  for (const word of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
    assert.deepEqual(errors(`QUERY Q() => RETURN x::${word}`), [`1:24 "${word}" is not a step`]);
    // A name like any other: the value ends before the "(".
    assert.deepEqual(errors(`QUERY Q() => RETURN x::WHERE(${word}(1))`), [`1:${30 + word.length} expected ")" to close WHERE, found "("`]);
  }
});

test('constructs of a later HelixDB, not in the v1 grammar, are refused with what v1 writes instead', () => {
  const [match] = errors('QUERY Q() => u <- N<User>::MATCH|_::{b}|{ true => "t", false => "f" } RETURN u');
  assert.match(match!, /^1:28 "MATCH" is not a step: pattern matching .* never in HelixQL v1\. Filter with WHERE/);
  const [precision] = errors('V::Doc<F16> { content: String }');
  assert.match(precision!, /^1:7 a vector type takes no precision \(V::Doc<\.\.\.> .*\): declare V::Doc \{ \.\.\. \}/);
  const [upsertN] = errors('QUERY Q(n: String) => p <- UpsertN<Person>({name: n}) RETURN p');
  assert.match(upsertN!, /^1:28 UpsertN<T> is not a source in HelixQL v1 .*existing <- N<T>::WHERE\(.*existing::UpsertN\(/);
  const [upsertE] = errors('QUERY Q(a: ID, b: ID) => UpsertE<Knows>::From(a)::To(b) RETURN NONE');
  assert.match(upsertE!, /^1:26 UpsertE<T> is not a source in HelixQL v1 .*existing::UpsertE\(\{\.\.\.\}\)::From\(a\)::To\(b\)/);
  const [upsertV] = errors('QUERY Q(t: String) => d <- UpsertV<Doc>(Embed(t), {content: t}) RETURN d');
  assert.match(upsertV!, /^1:28 UpsertV<T> is not a source .*existing::UpsertV\(vector/);
  // The names stay free where v1 allows them: a variable called UpsertN is a variable.
  assert.deepEqual(errors('QUERY Q() => UpsertN <- N<User> RETURN UpsertN'), []);
});

test('a migration mapping may end with `..`; nothing may follow it', () => {
  const { file, errors: problems } = parse(
    'MIGRATION schema::1 => schema::2 { N::User => _::{ a: b, .. } E::K => _::{ Properties: { .., } } }',
  );
  assert.deepEqual(problems, []);
  const mappings = file.migrations[0]!.mappings;
  assert.deepEqual(
    mappings.map((m) => [m.fields.length, m.rest !== null]),
    [
      [1, true],
      [0, true],
    ],
  );
  assert.deepEqual(errors('MIGRATION schema::1 => schema::2 { N::User => _::{ .., a: b } }'), [
    '1:56 ".." ends the field mappings: expected "}" after it, found "a"',
  ]);
});
