/**
 * Vectors, search, rerankers and shortest paths in the query language (reference
 * helixql-v1.md §2.7, §4.1, §4.2, §4.6; issue 27 items 1, 2, 4, 5): the project in
 * test/hql/projects/vectors served by a real server, each construct checked against the
 * reference's semantics.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postPath, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { HQL_PROJECTS } from '../helpers/hql-projects.js';

const VECTORS = `${HQL_PROJECTS}vectors`;

type Obj = Record<string, unknown>;

describe('vectors, search and paths of the vectors project', () => {
  const dir = tempDir();
  let server: TestServer;
  const call = (name: string, params: unknown = {}) => postPath(server, `/${name}`, params);
  async function ok(name: string, params: unknown = {}): Promise<Obj> {
    const answer = await call(name, params);
    assert.equal(answer.status, 200, `${name}: ${JSON.stringify(answer.body)}`);
    return answer.body as Obj;
  }
  const ids: Record<string, number> = {};
  const titles = (list: unknown) => (list as Obj[]).map((d) => d.title);

  before(async () => {
    server = await startTestServer(['--data', dir.path, '--project', VECTORS]);
    ids.ann = ((await ok('addUser', { name: 'Ann' })).user as Obj).id as number;
    ids.bob = ((await ok('addUser', { name: 'Bob' })).user as Obj).id as number;
    for (const [title, vec, body] of [
      ['alpha', [1, 0, 0], 'graph databases are fast'],
      ['beta', [0, 1, 0], 'vector search inside graphs'],
      ['gamma', [0.9, 0.1, 0], 'cooking recipes with pasta'],
    ] as const) {
      ids[title] = ((await ok('addDoc', { vec, title, body })).doc as Obj).id as number;
    }
    await ok('wrote', { user: ids.ann, doc: ids.beta, at: 1 });
    await ok('wrote', { user: ids.ann, doc: ids.gamma, at: 2 });
    await ok('cites', { doc: ids.alpha, user: ids.bob });
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });

  test('AddV returns the new vector: id, label, its fields; V<T>(id) reads it back', async () => {
    const got = await ok('getDoc', { id: ids.alpha });
    assert.deepEqual(got, { doc: { id: ids.alpha, label: 'Doc', title: 'alpha', body: 'graph databases are fast' } });
    const all = await ok('allDocs');
    assert.deepEqual(titles(all.docs), ['alpha', 'beta', 'gamma']);
  });

  test('a vector field in a projection: data is the vector', async () => {
    const got = await ok('docData', { id: ids.gamma });
    const doc = got.doc as { title: string; data: number[] };
    assert.equal(doc.title, 'gamma');
    assert.equal(doc.data.length, 3);
    assert.ok(Math.abs(doc.data[0]! - 0.9) < 1e-6 && Math.abs(doc.data[1]! - 0.1) < 1e-6 && doc.data[2] === 0);
  });

  test('V<T>(id) of a missing vector is 404', async () => {
    const answer = await call('getDoc', { id: 999999 });
    assert.equal(answer.status, 404);
    assert.equal((answer.body as Obj).error, 'node_not_found', 'vectors are nodes of their type');
  });

  test('SearchV<T>(vec, k): the k nearest by cosine, nearest first, each with its score (HelixDB: 1 - cosine)', async () => {
    const got = await ok('search', { vec: [1, 0, 0], k: 2 });
    const docs = got.docs as Obj[];
    assert.deepEqual(titles(docs), ['alpha', 'gamma']);
    assert.ok(Math.abs(docs[0]!.score as number) < 1e-6, `alpha is the query itself: ${docs[0]!.score}`);
    const cos = 0.9 / Math.sqrt(0.82);
    assert.ok(Math.abs((docs[1]!.score as number) - (1 - cos)) < 1e-4, `gamma: ${docs[1]!.score}`);
    assert.deepEqual(Object.keys(docs[0]!), ['id', 'label', 'score', 'title', 'body']);
  });

  test('SearchV with k past the number of vectors finds them all; score in a projection', async () => {
    const got = await ok('search', { vec: [0, 1, 0], k: 10 });
    assert.deepEqual(titles(got.docs), ['beta', 'gamma', 'alpha']);
    const shown = await ok('searchTitles', { vec: [0, 1, 0] });
    const list = shown.docs as { title: string; score: number }[];
    assert.deepEqual(
      list.map((d) => d.title),
      ['beta', 'gamma'],
    );
    assert.ok(Math.abs(list[0]!.score) < 1e-6);
    assert.ok(Math.abs(list[1]!.score - (1 - 0.1 / Math.sqrt(0.82))) < 1e-4);
  });

  test('SearchV then RANGE', async () => {
    const got = await ok('searchRange', { vec: [1, 0, 0] });
    assert.deepEqual(got.docs, ['gamma', 'beta'], 'one property is shown bare');
  });

  test('PREFILTER: only the vectors that pass take part in the search', async () => {
    const got = await ok('searchExcept', { vec: [1, 0, 0], k: 2, title: 'alpha' });
    assert.deepEqual(titles(got.docs), ['gamma', 'beta']);
  });

  test('SearchV as a step: the search ranks only the incoming vectors', async () => {
    const got = await ok('searchWithin', { user: ids.ann, vec: [1, 0, 0] });
    assert.deepEqual(titles(got.docs), ['gamma'], 'alpha is nearer but Ann did not write it');
  });

  test('edges from nodes to vectors and from vectors to nodes: Out, In, OutE::ToV, InE::FromN', async () => {
    assert.deepEqual(titles((await ok('docsOf', { user: ids.ann })).docs), ['beta', 'gamma']);
    assert.deepEqual(
      ((await ok('authorsOf', { doc: ids.gamma })).users as Obj[]).map((u) => u.name),
      ['Ann'],
    );
    assert.deepEqual(titles((await ok('docsByEdges', { user: ids.ann })).docs), ['beta', 'gamma']);
    assert.deepEqual(
      ((await ok('writersByEdges', { doc: ids.beta })).users as Obj[]).map((u) => u.name),
      ['Ann'],
    );
    assert.deepEqual((await ok('citedBy', { doc: ids.alpha })).users, [{ id: ids.bob, label: 'User', name: 'Bob' }]);
  });

  test('RerankRRF: the list reordered by reciprocal rank, score 1/(k + rank)', async () => {
    const got = (await ok('rrf', { vec: [1, 0, 0] })).docs as { title: string; score: number }[];
    assert.deepEqual(
      got.map((d) => d.title),
      ['alpha', 'gamma', 'beta'],
    );
    assert.deepEqual(
      got.map((d) => d.score),
      [1 / 61, 1 / 62, 1 / 63],
    );
    const small = (await ok('rrfK', { vec: [1, 0, 0], k: 1 })).docs as { score: number }[];
    assert.deepEqual(
      small.map((d) => d.score),
      [1 / 2, 1 / 3, 1 / 4],
    );
  });

  test('RerankMMR: lambda 1 keeps relevance order, lambda 0 picks the most different next', async () => {
    assert.deepEqual((await ok('mmr', { vec: [1, 0, 0], lambda: 1.0 })).docs, ['alpha', 'gamma', 'beta']);
    assert.deepEqual((await ok('mmr', { vec: [1, 0, 0], lambda: 0.0 })).docs, ['alpha', 'beta', 'gamma']);
  });

  test('a search with a vector of another dimension is a client error', async () => {
    const answer = await call('search', { vec: [1, 0], k: 2 });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.match((answer.body as Obj).error as string, /^[a-z_]+$/);
  });

  test('a search with k = 0 is a client error naming the statement and the parameter that gave k', async () => {
    const answer = await call('search', { vec: [1, 0, 0], k: 0 });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal((answer.body as Obj).error, 'invalid_search_result_count');
    assert.match(
      (answer.body as Obj).msg as string,
      /^query search, statement "docs" \(queries\.hx:60:5\), at vector_search_nodes\.k: the number of results k must be at least 1 \(parameter "k" is 0\)$/,
    );
  });

  describe('SearchBM25', () => {
    before(async () => {
      await ok('addArticle', { title: 'Graph databases', body: 'a graph database stores nodes and edges' });
      await ok('addArticle', { title: 'Cooking', body: 'recipes for pasta and bread' });
      await ok('addArticle', { title: 'Graphs in practice', body: 'graph algorithms on a graph of roads' });
    });

    test('the k best matches of the type by BM25 over its String fields', async () => {
      const got = (await ok('findArticles', { text: 'graph', k: 5 })).articles as string[];
      assert.deepEqual(new Set(got), new Set(['Graph databases', 'Graphs in practice']));
      assert.equal(got.length, 2, 'Cooking does not match');
      const one = (await ok('findArticles', { text: 'pasta bread', k: 1 })).articles;
      assert.deepEqual(one, ['Cooking']);
      const literal = (await ok('findArticlesLiteral')).articles as string[];
      assert.deepEqual(literal, got);
    });

    test('no match is an empty list', async () => {
      assert.deepEqual((await ok('findArticles', { text: 'zebra', k: 3 })).articles, []);
    });
  });

  test('SearchHybrid: a vector search and a text search of the vector type fused by reciprocal rank', async () => {
    const got = (await ok('hybrid', { vec: [0, 1, 0], text: 'pasta' })).docs as string[];
    // beta is first by vector, gamma first by text: both lead the fused list.
    assert.deepEqual(new Set(got.slice(0, 2)), new Set(['beta', 'gamma']));
    assert.equal(got.length, 3);
  });

  describe('shortest paths', () => {
    const c: Record<string, number> = {};
    before(async () => {
      for (const [name, h] of [
        ['A', 0],
        ['B', 1],
        ['C', 0],
        ['D', 0],
      ] as const) {
        c[name] = ((await ok('addCity', { name, h })).city as Obj).id as number;
      }
      for (const [from, to, km] of [
        ['A', 'B', 1],
        ['B', 'D', 1],
        ['A', 'C', 0.5],
        ['C', 'D', 5],
        ['A', 'D', 10],
      ] as const) {
        await ok('road', { from: c[from], to: c[to], km });
      }
    });
    const names = (path: Obj) => (path.nodes as Obj[]).map((n) => n.name);

    test('ShortestPath and ShortestPathBFS: fewest hops, with the nodes and edges whole', async () => {
      for (const q of ['hops', 'hopsBFS']) {
        const path = (await ok(q, { from: c.A, to: c.D })).path as Obj;
        assert.deepEqual(names(path), ['A', 'D']);
        assert.equal(path.length, 1);
        const edges = path.edges as Obj[];
        assert.equal(edges.length, 1);
        assert.equal(edges[0]!.label, 'Road');
        assert.equal(edges[0]!.km, 10);
        assert.equal(edges[0]!.from_node, c.A);
        assert.equal(edges[0]!.to_node, c.D);
        assert.deepEqual(Object.keys((path.nodes as Obj[])[0]!), ['id', 'label', 'name', 'h']);
      }
    });

    test('path::COUNT: 1 when there is a path, 0 when there is none (not a 404: the path is counted, not shown)', async () => {
      assert.deepEqual(await ok('pathExists', { from: c.A, to: c.D }), { n: 1 });
      assert.deepEqual(await ok('pathExists', { from: c.D, to: c.A }), { n: 0 });
    });

    test('::From(x): the path from x to the node the step follows', async () => {
      const path = (await ok('hopsFrom', { from: c.A, to: c.B })).path as Obj;
      assert.deepEqual(names(path), ['A', 'B']);
    });

    test('ShortestPathDijkstras<E>(_::{km}): the least total weight, and the weight', async () => {
      const path = (await ok('shortest', { from: c.A, to: c.D })).path as Obj;
      assert.deepEqual(names(path), ['A', 'B', 'D']);
      assert.equal(path.weight, 2);
      assert.equal(path.length, 2);
    });

    test('a weight computed from the edge and its end node (ADD, MUL, _::ToN::{h})', async () => {
      const path = (await ok('shortestMath', { from: c.A, to: c.D })).path as Obj;
      // A->B costs 1 + 10: A->C->D (0.5 + 5) is lighter than A->B->D (12) and A->D (10).
      assert.deepEqual(names(path), ['A', 'C', 'D']);
      assert.equal(path.weight, 5.5);
    });

    test('ShortestPathAStar<E>(weight, "h"): the same least weight, guided by the heuristic property', async () => {
      const path = (await ok('shortestAStar', { from: c.A, to: c.D })).path as Obj;
      assert.deepEqual(names(path), ['A', 'B', 'D']);
      assert.equal(path.weight, 2);
    });

    /** A path as names: its nodes', and its length (and weight). */
    const brief = (path: unknown) =>
      path === null
        ? null
        : { via: names(path as Obj), length: (path as Obj).length, ...('weight' in (path as Obj) ? { weight: (path as Obj).weight } : {}) };

    test('a path inside a projection: one per element, whole as at the top level; none is null there, not a 404', async () => {
      const toD = (await ok('routes', { to: c.D })).cities as Obj[];
      assert.deepEqual(
        toD.map((city) => [city.name, brief(city.route)]),
        [
          ['A', { via: ['A', 'D'], length: 1 }],
          ['B', { via: ['B', 'D'], length: 1 }],
          ['C', { via: ['C', 'D'], length: 1 }],
          ['D', { via: ['D'], length: 0 }],
        ],
      );
      // The same presentation as a path returned at the top level: the nodes and edges whole.
      const top = (await ok('hops', { from: c.A, to: c.D })).path;
      assert.deepEqual(toD[0]!.route, top);
      const toA = (await ok('routes', { to: c.A })).cities as Obj[];
      assert.deepEqual(
        toA.map((city) => [city.name, brief(city.route)]),
        [
          ['A', { via: ['A'], length: 0 }],
          ['B', null],
          ['C', null],
          ['D', null],
        ],
      );
    });

    test('a weighted path from a closure item, ::From(x): the least weight from x to each element', async () => {
      const got = (await ok('cheapestFrom', { from: c.A })).cities as Obj[];
      assert.deepEqual(
        got.map((city) => [city.name, brief(city.route)]),
        [
          ['A', { via: ['A'], length: 0, weight: 0 }],
          ['B', { via: ['A', 'B'], length: 1, weight: 1 }],
          ['C', { via: ['A', 'C'], length: 1, weight: 0.5 }],
          ['D', { via: ['A', 'B', 'D'], length: 2, weight: 2 }],
        ],
      );
      const edge = ((got[3]!.route as Obj).edges as Obj[])[1]!;
      assert.deepEqual(edge, { id: edge.id, label: 'Road', from_node: c.B, to_node: c.D, km: 1 });
    });

    test('paths from several nodes of a nested traversal are a list; EXISTS of a path is whether there is one', async () => {
      const got = (await ok('onward', { to: c.D })).cities as Obj[];
      assert.deepEqual(
        got.map((city) => [city.name, (city.next as Obj[]).map(brief), city.reaches]),
        [
          [
            'A',
            [
              { via: ['B', 'D'], length: 1 },
              { via: ['C', 'D'], length: 1 },
              { via: ['D'], length: 0 },
            ],
            true,
          ],
          ['B', [{ via: ['D'], length: 0 }], true],
          ['C', [{ via: ['D'], length: 0 }], true],
          ['D', [], true],
        ],
      );
      assert.deepEqual(await ok('reaching', { hub: c.B }), { c: ['A', 'B'] });
      assert.deepEqual(await ok('cutOff', { hub: c.B }), { c: ['C', 'D'] });
      assert.deepEqual(await ok('reaching', { hub: c.A }), { c: ['A'] });
    });

    test('from several nodes at the top of a query: a list, one path per node that has one, counted by ::COUNT', async () => {
      const got = await ok('allHops', { to: c.B });
      assert.deepEqual((got.paths as Obj[]).map(brief), [
        { via: ['A', 'B'], length: 1 },
        { via: ['B'], length: 0 },
      ]);
      assert.equal(got.n, 2);
      assert.deepEqual(await ok('allHops', { to: 999_999 }), { paths: [], n: 0 });
    });

    test('no path is 404 path_not_found', async () => {
      for (const q of ['hops', 'shortest', 'shortestAStar']) {
        const answer = await call(q, { from: c.D, to: c.A });
        assert.equal(answer.status, 404, `${q}: ${JSON.stringify(answer.body)}`);
        assert.equal((answer.body as Obj).error, 'path_not_found');
      }
    });
  });

  describe('writing vectors', () => {
    test('AddV with a literal vector', async () => {
      const doc = (await ok('addDocLiteral', { title: 'lit' })).doc as Obj;
      assert.equal(doc.title, 'lit');
      const found = (await ok('search', { vec: [0, 0, 1], k: 1 })).docs as Obj[];
      assert.equal(found[0]!.id, doc.id);
    });

    test('BatchAddV: one vector per element, in order', async () => {
      const got = await ok('addDocs', {
        docs: [
          { vector: [0, 0.5, 0.5], title: 'd1', body: 'one' },
          { vector: [0.5, 0, 0.5], title: 'd2', body: 'two' },
        ],
      });
      assert.deepEqual(
        (got.added as Obj[]).map((d) => [d.label, d.title, d.body]),
        [
          ['Doc', 'd1', 'one'],
          ['Doc', 'd2', 'two'],
        ],
      );
      const near = (await ok('search', { vec: [0.5, 0, 0.5], k: 1 })).docs as Obj[];
      assert.equal(near[0]!.title, 'd2');
    });

    test('UpsertV: updates the first vector found (its data kept), else makes one', async () => {
      const updated = (await ok('upsertDoc', { title: 'alpha', vec: [0, 0, 1], body: 'changed' })).doc as Obj;
      assert.equal(updated.id, ids.alpha);
      assert.equal(updated.body, 'changed');
      const stillThere = (await ok('search', { vec: [1, 0, 0], k: 1 })).docs as Obj[];
      assert.equal(stillThere[0]!.id, ids.alpha, 'the vector itself did not change');
      const made = (await ok('upsertDoc', { title: 'omega', vec: [0, 1, 1], body: 'new' })).doc as Obj;
      assert.notEqual(made.id, ids.alpha);
      assert.equal(made.title, 'omega');
    });

    test('AddV of a vector of another dimension than the type index is a client error, and nothing is written', async () => {
      const before = ((await ok('allDocs')).docs as Obj[]).length;
      const answer = await call('addDoc', { vec: [1, 0], title: 'short', body: 'two numbers' });
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.match((answer.body as Obj).error as string, /^[a-z_]+$/);
      assert.equal(((await ok('allDocs')).docs as Obj[]).length, before);
      const empty = await call('addDoc', { vec: [], title: 'empty', body: 'no numbers' });
      assert.equal(empty.status, 400, JSON.stringify(empty.body));
    });

    test('DROP of a vector deletes it and its edges', async () => {
      assert.deepEqual(await ok('dropDoc', { id: ids.gamma }), { data: 'dropped' });
      assert.equal((await call('getDoc', { id: ids.gamma })).status, 404);
      assert.deepEqual(titles((await ok('docsOf', { user: ids.ann })).docs), ['beta']);
      const found = titles((await ok('search', { vec: [0.9, 0.1, 0], k: 10 })).docs);
      assert.ok(!found.includes('gamma'), 'a dropped vector is not found by search');
    });
  });
});
