/**
 * The benchmark scenarios: request builders plus a correctness check for each. Inputs (node
 * ids, page offsets) come from a seeded sequence, so every run and every system sends the
 * same requests in the same order. Each scenario holds a ring of ready request texts that
 * the runners cycle through, so building JSON is not part of what is timed.
 */
import { deepEqual } from 'node:assert/strict';
import { userProps } from './dataset.js';
import { nodeBatchRequest } from './load-trellis.js';
import type { Truth } from './truth.js';

export const READ_SCENARIOS = ['point_read', 'one_hop', 'two_hop_count', 'filtered_scan', 'order_range', 'shortest_path'] as const;
export type ScenarioName = (typeof READ_SCENARIOS)[number] | 'insert_batch';

export interface Scenario {
  readonly name: ScenarioName;
  readonly requests: readonly string[];
  /** Nodes created per request (the insert scenario), for a nodes/s figure. */
  readonly nodesPerRequest?: number;
  /** Throws unless `body` is the right answer to requests[i]. */
  check(body: string, i: number): void;
}

export const RING = 1_000;
export const PAGE = 20;
export const MAX_DEPTH = 6;
export const INSERT_BATCH = 100;

/** mulberry32: a tiny seeded generator of [0, 1). */
export function seededSequence(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ids = (...list: number[]) => ({ nodes: { reference: { ids: list } } });
const out = (input: object) => ({ out: { input, label: 'FOLLOWS' } });
const users = { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'User' } } } } } };
const read = (root: object) =>
  JSON.stringify({ request_type: 'read', query: { read: { entries: [{ query: { name: 'r', root } }], returns: ['r'] } } });

/** The request bodies, exported so docs and tests can show exactly what is sent. */
export const requestFor = {
  point_read: (id: number) => read({ value_map: { input: ids(id) } }),
  one_hop: (id: number) => read({ value_map: { input: out(ids(id)) } }),
  two_hop_count: (id: number) => read({ count: { input: out(out(ids(id))) } }),
  filtered_scan: () =>
    read({
      count: {
        input: {
          where: {
            input: users,
            predicate: {
              and: {
                predicates: [
                  { gte: { left: { property: 'age' }, right: { constant: { i64: 30 } } } },
                  { eq: { left: { property: 'status' }, right: { constant: { string: 'active' } } } },
                ],
              },
            },
          },
        },
      },
    }),
  order_range: (offset: number) =>
    read({
      value_map: {
        input: {
          range: {
            input: { order_by: { input: users, property: 'score', order: 'desc' } },
            start: { literal: offset },
            end: { literal: offset + PAGE },
          },
        },
      },
    }),
  shortest_path: (from: number, to: number) =>
    read({ shortest_path: { source: { ids: [from] }, target: { ids: [to] }, label: 'FOLLOWS', direction: 'out', max_depth: MAX_DEPTH } }),
  /** Scores go out as floats even when integral, as the loader sends them. */
  insert_batch: (rows: readonly object[]) => JSON.stringify(nodeBatchRequest(rows)).replace(/"score":(-?\d+)([,}])/g, '"score":$1.0$2'),
};

type Row = Record<string, unknown>;
function rows(body: string): Row[] {
  const parsed = JSON.parse(body) as { r?: unknown };
  if (!Array.isArray(parsed.r)) throw new Error(`expected {"r": [...]}, got ${body.slice(0, 200)}`);
  return parsed.r as Row[];
}

function userRow(truth: Truth, row: Row | undefined, id: number): void {
  const u = truth.user(id);
  deepEqual(row, { $id: id, $label: 'User', uid: u.uid, name: u.name, age: u.age, status: u.status, score: u.score });
}

function scenario(
  name: ScenarioName,
  inputs: readonly number[][],
  build: (...args: number[]) => string,
  check: (body: string, args: number[]) => void,
): Scenario {
  return {
    name,
    requests: inputs.map((args) => build(...args)),
    check: (body, i) => check(body, inputs[i % inputs.length]!),
  };
}

export function readScenarios(truth: Truth, seed: number): Scenario[] {
  const n = truth.size.nodes;
  const next = seededSequence(seed ^ 0x5eed);
  const pick = (limit: number) => Math.floor(next() * limit);
  const inputs = (arity: number, limit: number) => Array.from({ length: RING }, () => Array.from({ length: arity }, () => pick(limit)));

  return [
    scenario('point_read', inputs(1, n), requestFor.point_read, (body, [id]) => {
      const r = rows(body);
      deepEqual(r.length, 1);
      userRow(truth, r[0], id!);
    }),
    scenario('one_hop', inputs(1, n), requestFor.one_hop, (body, [id]) => {
      const r = rows(body);
      const expected = truth.out(id!);
      deepEqual(
        r.map((row) => row.$id),
        expected,
      );
      r.forEach((row, k) => userRow(truth, row, expected[k]!));
    }),
    scenario('two_hop_count', inputs(1, n), requestFor.two_hop_count, (body, [id]) => {
      // `out` yields distinct neighbours per input row; across rows paths keep their multiplicity.
      const paths = truth.out(id!).reduce((sum, mid) => sum + truth.out(mid).length, 0);
      deepEqual(rows(body), [paths]);
    }),
    scenario('filtered_scan', [[]], requestFor.filtered_scan, (body) => deepEqual(rows(body), [truth.activeAged30])),
    scenario('order_range', inputs(1, n - PAGE + 1), requestFor.order_range, (body, [offset]) => {
      const r = rows(body);
      deepEqual(
        r.map((row) => row.score),
        Array.from(truth.scoresDesc.subarray(offset!, offset! + PAGE)),
      );
      for (const row of r) userRow(truth, row, row.$id as number);
    }),
    scenario('shortest_path', inputs(2, n), requestFor.shortest_path, (body, [a, b]) => {
      const path = rows(body) as unknown as number[];
      const hops = truth.distance(a!, b!, MAX_DEPTH);
      deepEqual(path.length, hops + 1, `path length from ${a} to ${b}`);
      if (hops < 0) return;
      deepEqual([path[0], path.at(-1)], [a, b]);
      for (let k = 1; k < path.length; k++)
        if (!truth.hasEdge(path[k - 1]!, path[k]!)) throw new Error(`no edge ${path[k - 1]} -> ${path[k]}`);
    }),
  ];
}

/** Inserts of INSERT_BATCH new users per request through a for_each write batch. */
export function insertScenario(truth: Truth, seed: number): Scenario {
  const bodies: string[] = [];
  for (let b = 0; b < 16; b++) {
    const batch = [];
    for (let k = 0; k < INSERT_BATCH; k++) batch.push(userProps(seed, truth.size.nodes + b * INSERT_BATCH + k));
    bodies.push(requestFor.insert_batch(batch));
  }
  return { name: 'insert_batch', requests: bodies, nodesPerRequest: INSERT_BATCH, check: (body) => deepEqual(JSON.parse(body), {}) };
}
