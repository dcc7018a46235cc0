/**
 * Shortest paths: `shortest_path` answers exactly what the reference's one-sided BFS
 * answers (v2-wire §5.11: neighbours in ascending id, the first path discovered wins)
 * although it searches from both ends, checked against that BFS written out here on
 * random graphs; its `result: "path"` extension; and `weighted_shortest_path` (Dijkstra,
 * A*), checked against an exhaustive Dijkstra on random weighted graphs, with its bad
 * inputs and their codes and JSON paths.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Rng } from '../helpers/prng.js';
import { f, i, openTestDb, q, rejects400, atPath, s, type TestDb } from '../helpers/embedded.js';

type Direction = 'out' | 'in' | 'both';
interface Graph {
  readonly nodes: number;
  /** [from, to, weight], edge id = index. */
  readonly edges: readonly (readonly [number, number, number])[];
}

function randomGraph(rng: Rng, nodes: number, edges: number): Graph {
  const list: [number, number, number][] = [];
  for (let e = 0; e < edges; e++) list.push([rng.int(nodes), rng.int(nodes), rng.int(20)]);
  return { nodes, edges: list };
}

/** Distinct neighbours of `n` along `dir`, ascending. */
function neighbours(g: Graph, n: number, dir: Direction): number[] {
  const out = new Set<number>();
  for (const [a, b] of g.edges) {
    if (dir !== 'in' && a === n) out.add(b);
    if (dir !== 'out' && b === n) out.add(a);
  }
  return [...out].sort((x, y) => x - y);
}

/** The reference's one-sided BFS, as v2-wire §5.11 describes it. */
function referenceBfs(g: Graph, source: number, target: number, dir: Direction, maxDepth: number): number[] {
  if (source === target) return [source];
  const parent = new Map<number, number>([[source, source]]);
  let frontier = [source];
  for (let depth = 0; depth < maxDepth && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const from of frontier) {
      for (const to of neighbours(g, from, dir)) {
        if (parent.has(to)) continue;
        parent.set(to, from);
        if (to === target) {
          const path = [to];
          for (let at = to; at !== source;) path.push((at = parent.get(at)!));
          return path.reverse();
        }
        next.push(to);
      }
    }
    frontier = next;
  }
  return [];
}

/** The least total weight from source to target (exhaustive Dijkstra), or null. */
function referenceWeight(g: Graph, source: number, target: number, dir: Direction): number | null {
  const best = new Array<number>(g.nodes).fill(Infinity);
  const done = new Array<boolean>(g.nodes).fill(false);
  best[source] = 0;
  for (;;) {
    let u = -1;
    for (let n = 0; n < g.nodes; n++) if (!done[n] && best[n]! < Infinity && (u < 0 || best[n]! < best[u]!)) u = n;
    if (u < 0) return null;
    if (u === target) return best[u]!;
    done[u] = true;
    g.edges.forEach(([a, b, w]) => {
      if (dir !== 'in' && a === u && best[u]! + w < best[b]!) best[b] = best[u]! + w;
      if (dir !== 'out' && b === u && best[u]! + w < best[a]!) best[a] = best[u]! + w;
    });
  }
}

async function load(t: TestDb, g: Graph): Promise<void> {
  const entries: unknown[] = [];
  for (let n = 0; n < g.nodes; n++) entries.push(q(`n${n}`, { add_n: { label: 'V', properties: [['h', i(0)]] } }));
  for (const [a, b, w] of g.edges)
    entries.push(
      q(null, {
        add_e: { input: { nodes: { reference: { var: `n${a}` } } }, label: 'L', to: { var: `n${b}` }, properties: [['w', i(w)]] },
      }),
    );
  await t.write(entries, []);
}

const SEEDS = [11, 12, 13, 14, 15, 16];
let graphs: { t: TestDb; g: Graph; rng: Rng }[] = [];

before(async () => {
  graphs = await Promise.all(
    SEEDS.map(async (seed) => {
      const rng = new Rng(seed);
      const g = randomGraph(rng, 24 + rng.int(16), 30 + rng.int(60));
      const t = await openTestDb();
      await load(t, g);
      return { t, g, rng };
    }),
  );
});
after(async () => {
  for (const { t } of graphs) await t.close();
});

const sp = (source: number, target: number, direction: Direction, maxDepth: number, extra: object = {}) => ({
  shortest_path: { source: { ids: [source] }, target: { ids: [target] }, label: 'L', direction, max_depth: maxDepth, ...extra },
});

test('shortest_path answers the one-sided BFS path exactly, for every pair, direction and depth of random graphs', async () => {
  let nonEmpty = 0;
  for (const { t, g, rng } of graphs) {
    for (let k = 0; k < 60; k++) {
      const a = rng.int(g.nodes);
      const b = rng.int(g.nodes);
      const dir = (['out', 'in', 'both'] as const)[rng.int(3)]!;
      const depth = 1 + rng.int(7);
      const got = (await t.read([q('r', sp(a, b, dir, depth))], ['r'])).r;
      const want = referenceBfs(g, a, b, dir, depth);
      assert.deepEqual(got, want, `seed graph of ${g.nodes} nodes: ${a} -> ${b} ${dir} within ${depth}`);
      if (want.length > 2) nonEmpty++;
    }
  }
  assert.ok(nonEmpty > 50, `only ${nonEmpty} paths of two hops or more were compared`);
});

test('shortest_path with result "path": the nodes, the edges (the lowest id of each hop) and the length', async () => {
  let multiHop = 0;
  for (const { t, g } of graphs) {
    for (const source of [0, 1, 2]) {
      for (let a = 0; a < g.nodes; a++) {
        const want = referenceBfs(g, source, a, 'out', 8);
        const got = (await t.read([q('r', sp(source, a, 'out', 8, { result: 'path' }))], ['r'])).r;
        if (want.length === 0) {
          assert.deepEqual(got, []);
          continue;
        }
        if (want.length > 2) multiHop++;
        const [path] = got as { nodes: number[]; edges: number[]; length: number }[];
        assert.deepEqual(path!.nodes, want);
        assert.equal(path!.length, want.length - 1);
        assert.equal(path!.edges.length, want.length - 1, `one edge per hop of the path ${source} -> ${a}`);
        path!.edges.forEach((e, k) => {
          const lowest = g.edges.findIndex(([x, y]) => x === want[k] && y === want[k + 1]);
          assert.equal(e, lowest, `hop ${k} of the path ${source} -> ${a}`);
        });
      }
    }
  }
  assert.ok(multiHop > 20, `only ${multiHop} paths of two hops or more were compared`);
});

test('weighted_shortest_path (Dijkstra) finds the least total weight on random graphs, over edges that exist', async () => {
  let found = 0;
  for (const { t, g, rng } of graphs) {
    for (let k = 0; k < 40; k++) {
      const a = rng.int(g.nodes);
      const b = rng.int(g.nodes);
      const dir = (['out', 'in', 'both'] as const)[rng.int(3)]!;
      const root = {
        weighted_shortest_path: { source: { ids: [a] }, target: { ids: [b] }, label: 'L', direction: dir, weight: { property: 'w' } },
      };
      const got = (await t.read([q('r', root)], ['r'])).r as { nodes: number[]; edges: number[]; weight: number; length: number }[];
      const want = referenceWeight(g, a, b, dir);
      if (want === null) {
        assert.deepEqual(got, [], `${a} -> ${b} ${dir}: no path`);
        continue;
      }
      found++;
      const [path] = got;
      assert.equal(path!.weight, want, `${a} -> ${b} ${dir}`);
      assert.deepEqual([path!.nodes[0], path!.nodes.at(-1)], [a, b]);
      assert.equal(path!.length, path!.edges.length);
      let total = 0;
      path!.edges.forEach((e, n) => {
        const [x, y, w] = g.edges[e]!;
        const [p, r] = [path!.nodes[n]!, path!.nodes[n + 1]!];
        const fits = (dir !== 'in' && x === p && y === r) || (dir !== 'out' && y === p && x === r);
        assert.ok(fits, `edge ${e} joins ${p} and ${r} along ${dir}`);
        total += w;
      });
      assert.equal(total, want);
    }
  }
  assert.ok(found > 60, `only ${found} weighted paths were compared`);
});

let city: TestDb;
before(async () => {
  /*
   *   a --1--> b --1--> d          hops: a b d (2); weight: a c e d (3) is lighter than a b d (1 + 10)
   *   |        \--10--> d
   *   \--1--> c --1--> e --1--> d
   */
  city = await openTestDb();
  const node = (name: string, h: number, traffic: number) =>
    q(name, {
      add_n: {
        label: 'City',
        properties: [
          ['name', s(name)],
          ['h', i(h)],
          ['traffic', f(traffic)],
        ],
      },
    });
  const road = (a: string, b: string, km: number) =>
    q(null, { add_e: { input: { nodes: { reference: { var: a } } }, label: 'Road', to: { var: b }, properties: [['km', f(km)]] } });
  await city.write(
    [
      node('a', 3, 1),
      node('b', 1, 5),
      node('c', 2, 1),
      node('d', 0, 1),
      node('e', 1, 1),
      road('a', 'b', 1),
      road('b', 'd', 10),
      road('a', 'c', 1),
      road('c', 'e', 1),
      road('e', 'd', 1),
    ],
    [],
  );
});
after(() => city.close());

const wsp = (extra: object) => ({
  weighted_shortest_path: {
    source: { ids: [0] },
    target: { ids: [3] },
    label: 'Road',
    direction: 'out',
    weight: { property: 'km' },
    ...extra,
  },
});

test('Dijkstra takes the lighter path where BFS takes the shorter; A* with a heuristic finds the same', async () => {
  const road = { shortest_path: { ...sp(0, 3, 'out', 5, { result: 'path' }).shortest_path, label: 'Road' } };
  const hops = await city.read([q('r', road)], ['r']);
  assert.deepEqual(hops.r, [{ nodes: [0, 1, 3], edges: [0, 1], length: 2 }]);
  const dijkstra = await city.read([q('r', wsp({}))], ['r']);
  assert.deepEqual(dijkstra.r, [{ nodes: [0, 2, 4, 3], edges: [2, 3, 4], length: 3, weight: 3.0 }]);
  const astar = await city.read([q('r', wsp({ heuristic: 'h' }))], ['r']);
  assert.deepEqual(astar.r, dijkstra.r);
});

test('weights may read the edge ends ($from.p, $to.p) and math functions; a parameter of the weight is bound', async () => {
  // km * traffic of the source city: a->b costs 1, b->d costs 50, a->c->e->d costs 3.
  const weight = { mul: { left: { property: 'km' }, right: { property: '$from.traffic' } } };
  assert.deepEqual((await city.read([q('r', wsp({ weight }))], ['r'])).r[0].nodes, [0, 2, 4, 3]);
  // pow(km, p): with p = 0 every road weighs 1, so the fewest hops win.
  const pow = { math: { function: 'pow', args: [{ property: 'km' }, { param: 'p' }] } };
  const got = await city.read([q('r', wsp({ weight: pow }))], ['r'], { p: 0 });
  assert.deepEqual(got.r, [{ nodes: [0, 1, 3], edges: [0, 1], length: 2, weight: 2.0 }]);
});

test('weighted_shortest_path: no path and missing endpoints are [], as shortest_path', async () => {
  const back = { weighted_shortest_path: { ...wsp({}).weighted_shortest_path, source: { ids: [3] }, target: { ids: [0] } } };
  assert.deepEqual((await city.read([q('r', back)], ['r'])).r, []);
  const missing = { weighted_shortest_path: { ...wsp({}).weighted_shortest_path, target: { ids: [99] } } };
  assert.deepEqual((await city.read([q('r', missing)], ['r'])).r, []);
  const same = { weighted_shortest_path: { ...wsp({}).weighted_shortest_path, target: { ids: [0] } } };
  assert.deepEqual((await city.read([q('r', same)], ['r'])).r, [{ nodes: [0], edges: [], length: 0, weight: 0.0 }]);
});

test('bad weighted paths: weights and heuristics that are not finite non-negative numbers, bad payloads', async () => {
  const at = (suffix: string) => atPath(suffix);
  await rejects400(
    city.read([q('r', wsp({ weight: { property: 'nope' } }))], ['r']),
    'invalid_path_weight',
    at('.weighted_shortest_path.weight'),
  );
  await rejects400(
    city.read([q('r', wsp({ weight: { sub: { left: { constant: { i64: 0 } }, right: { property: 'km' } } } }))], ['r']),
    'invalid_path_weight',
    at('.weighted_shortest_path.weight'),
  );
  await rejects400(city.read([q('r', wsp({ heuristic: 'name' }))], ['r']), 'invalid_path_weight', at('.weighted_shortest_path.heuristic'));
  await rejects400(city.read([q('r', wsp({ weight: undefined }))], ['r']), 'invalid_query_json', at('.weighted_shortest_path'));
  await rejects400(city.read([q('r', wsp({ direction: 'up' }))], ['r']), 'invalid_query_json', at('.weighted_shortest_path.direction'));
  await rejects400(city.read([q('r', wsp({ source: { ids: [0, 1] } }))], ['r']), 'invalid_query', at('.weighted_shortest_path.source'));
  await rejects400(
    city.read([q('r', wsp({ weight: { math: { function: 'pow', args: [{ property: 'km' }] } } }))], ['r']),
    'invalid_query_json',
    at('.weighted_shortest_path.weight.math.args'),
  );
  await rejects400(
    city.read([q('r', wsp({ weight: { math: { function: 'sqr', args: [] } } }))], ['r']),
    'invalid_query_json',
    at('.weighted_shortest_path.weight.math.function'),
  );
  await rejects400(city.read([q('r', wsp({ weight: { param: 'w' } }))], ['r']), 'invalid_query', at('.weighted_shortest_path.weight'));
  await rejects400(city.read([q('r', sp(0, 3, 'out', 5, { result: 'all' }))], ['r']), 'invalid_query_json', at('.shortest_path.result'));
});

// With an input, one end is "input": a path per input row (a Trellis extension).
const CITIES = { nodes: { reference: 'all' } };
const perRow = (input: unknown, source: unknown, target: unknown, extra: object = {}) => ({
  shortest_path: { input, source, target, label: 'Road', direction: 'out', max_depth: 5, result: 'path', ...extra },
});
const weightedPerRow = (input: unknown, source: unknown, target: unknown, extra: object = {}) => ({
  weighted_shortest_path: { input, source, target, label: 'Road', direction: 'out', weight: { property: 'km' }, ...extra },
});
const firstOf = (root: unknown) => ({ traversal: { root, first: true } });
const named = (input: unknown, alias: string, expr: unknown) => ({
  project: { input, projections: [{ property: { source: 'name', alias: 'name' } }, { expr: { alias, expr } }] },
});

test('with an input: one path per input row, from each row ("source": "input") or to it ("target": "input")', async () => {
  const toD = (await city.read([q('r', perRow(CITIES, 'input', { ids: [3] }))], ['r'])).r;
  assert.deepEqual(toD, [
    { nodes: [0, 1, 3], edges: [0, 1], length: 2 },
    { nodes: [1, 3], edges: [1], length: 1 },
    { nodes: [2, 4, 3], edges: [3, 4], length: 2 },
    { nodes: [3], edges: [], length: 0 },
    { nodes: [4, 3], edges: [4], length: 1 },
  ]);
  // Each is the path the same operation finds between the two nodes without an input.
  for (let n = 0; n < 5; n++) {
    const one = (
      await city.read([q('r', { shortest_path: { ...perRow(null, { ids: [n] }, { ids: [3] }).shortest_path, input: undefined } })], ['r'])
    ).r;
    assert.deepEqual(one, [toD[n]]);
  }
  // From a: a row it does not reach gives no path; "ids" gives each path's ids as one array.
  const fromA = (await city.read([q('r', perRow(CITIES, { ids: [0] }, 'input', { result: 'ids' }))], ['r'])).r;
  assert.deepEqual(fromA, [[0], [0, 1], [0, 2], [0, 1, 3], [0, 2, 4]]);
  const toA = (await city.read([q('r', perRow(CITIES, 'input', { ids: [0] }, { result: 'ids' }))], ['r'])).r;
  assert.deepEqual(toA, [[0]]);
  // A fixed end that names no node: no paths. The other operations of lists apply.
  assert.deepEqual((await city.read([q('r', perRow(CITIES, 'input', { ids: [99] }))], ['r'])).r, []);
  assert.deepEqual((await city.read([q('r', { count: { input: perRow(CITIES, 'input', { ids: [3] }) } })], ['r'])).r, [5]);
  const param = await city.read([q('r', perRow({ nodes: { reference: { ids: [2, 1] } } }, 'input', { param: 'to' }))], ['r'], { to: 3 });
  assert.deepEqual(
    (param.r as { nodes: number[] }[]).map((p) => p.nodes),
    [
      [2, 4, 3],
      [1, 3],
    ],
  );
});

test('with an input, weighted: the least weight from (or to) each row', async () => {
  const toD = (await city.read([q('r', weightedPerRow(CITIES, 'input', { ids: [3] }))], ['r'])).r as { nodes: number[]; weight: number }[];
  assert.deepEqual(
    toD.map((p) => [p.nodes, p.weight]),
    [
      [[0, 2, 4, 3], 3],
      [[1, 3], 10],
      [[2, 4, 3], 2],
      [[3], 0],
      [[4, 3], 1],
    ],
  );
  const astar = (await city.read([q('r', weightedPerRow(CITIES, 'input', { ids: [3] }, { heuristic: 'h' }))], ['r'])).r;
  assert.deepEqual(astar, toD);
  const fromA = (await city.read([q('r', weightedPerRow(CITIES, { ids: [0] }, 'input'))], ['r'])).r as { nodes: number[] }[];
  assert.deepEqual(
    fromA.map((p) => p.nodes),
    [[0], [0, 1], [0, 2], [0, 2, 4, 3], [0, 2, 4]],
  );
});

test('with "input": "context", a path inside a traversal expression: per element, null where there is none', async () => {
  const route = firstOf(perRow('context', 'input', { ids: [2] }));
  const got = (await city.read([q('r', named(CITIES, 'route', route))], ['r'])).r;
  assert.deepEqual(got, [
    { name: 'a', route: { nodes: [0, 2], edges: [2], length: 1 } },
    { name: 'b', route: null },
    { name: 'c', route: { nodes: [2], edges: [], length: 0 } },
    { name: 'd', route: null },
    { name: 'e', route: null },
  ]);
  // In a predicate: the cities from which c can be reached (the count of their paths to it is 1).
  const counted = { traversal: { root: { count: { input: perRow('context', 'input', { ids: [2] }) } } } };
  const reaching = { where: { input: CITIES, predicate: { gt: { left: counted, right: { constant: { i64: 0 } } } } } };
  assert.deepEqual((await city.read([q('r', { id: { input: reaching } })], ['r'])).r, [0, 2]);
  // Weighted, from each element's neighbours ("the paths from my next cities").
  const next = { traversal: { root: weightedPerRow({ out: { input: 'context', label: 'Road' } }, 'input', { ids: [3] }) } };
  const weights = (await city.read([q('r', named({ nodes: { reference: { ids: [0, 1] } } }, 'next', next))], ['r'])).r as {
    next: { weight: number }[];
  }[];
  assert.deepEqual(
    weights.map((w) => w.next.map((p) => p.weight)),
    [[10, 2], [0]],
  );
});

test('bad inputs of a path with an input: edges, "input" without an input and the reverse, two "input" ends', async () => {
  const bad = (root: unknown, code: string, suffix: string) => rejects400(city.read([q('r', root)], ['r']), code, atPath(suffix));
  // Edges known before running (refused at validation), or met while running.
  await bad(perRow({ edges: { reference: 'all' } }, 'input', { ids: [3] }), 'invalid_query', '.shortest_path.input');
  await bad(weightedPerRow({ out_e: { input: CITIES } }, { ids: [0] }, 'input'), 'invalid_query', '.weighted_shortest_path.input');
  await rejects400(
    city.read(
      [q('roads', { edges: { reference: 'all' } }), q('r', perRow({ inject: { variable: 'roads' } }, 'input', { ids: [3] }))],
      ['r'],
    ),
    'invalid_query',
    atPath('.shortest_path.input', 'query.read.entries[1].query.root'),
  );
  await bad(
    { shortest_path: { ...perRow(null, 'input', { ids: [3] }).shortest_path, input: undefined } },
    'invalid_query_json',
    '.shortest_path.source',
  );
  await bad(perRow(CITIES, { ids: [0] }, { ids: [3] }), 'invalid_query_json', '.shortest_path.input');
  await bad(weightedPerRow(CITIES, 'input', 'input'), 'invalid_query_json', '.weighted_shortest_path.target');
  // The fixed end names one node at most; a bad weight is found as without an input.
  await bad(perRow(CITIES, 'input', { ids: [2, 3] }), 'invalid_query', '.shortest_path.target');
  await bad(
    weightedPerRow(CITIES, 'input', { ids: [3] }, { weight: { property: 'nope' } }),
    'invalid_path_weight',
    '.weighted_shortest_path.weight',
  );
  // Inside a traversal expression a path starts from the rows given to it, never on its own.
  const alone = firstOf({ shortest_path: { source: { ids: [0] }, target: { ids: [3] }, direction: 'out', max_depth: 3 } });
  await bad(named(CITIES, 'p', alone), 'invalid_sub_traversal_operation', '.project.projections[1].expr.expr.traversal.root');
});
