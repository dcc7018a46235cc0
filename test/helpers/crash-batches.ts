/**
 * Self-describing write batches for the kill -9 crash-cycle suite
 * (test/faults/crash-cycles.test.ts), and the check that finds every batch whole or absent.
 *
 * Batch (cycle, client, seq) adds k `Crash` nodes carrying (cy, cl, b, i, p) and k `Link`
 * edges, edge i from node i to node (i + 1) mod k carrying (cy, cl, b, i): knowing the
 * batch's key and size tells exactly what the database must hold for it.
 */
import type { Rng } from './prng.js';

export type BatchState =
  /** Sent, no answer yet. */
  | 'pending'
  /** Answered 200: must be present whole, with the ids of the answer, forever. */
  | 'acked'
  /** The answer was lost to the kill: present whole or absent, never half. */
  | 'lost'
  /** A lost batch found whole after a restart: must stay present whole. */
  | 'survived'
  /** A lost batch found absent after a restart: must stay absent. */
  | 'vanished'
  /** Answered with an error while the server was up (a failure of the test). */
  | 'refused';

export interface Batch {
  readonly key: string;
  readonly cycle: number;
  readonly client: number;
  readonly seq: number;
  readonly payloads: readonly string[];
  readonly durable: boolean;
  state: BatchState;
  nodeIds?: number[];
  edgeIds?: number[];
}

export function newBatch(rng: Rng, cycle: number, client: number, seq: number): Batch {
  const k = rng.chance(0.1) ? rng.between(50, 200) : rng.between(1, 12);
  const payloads = Array.from({ length: k }, (_, i) => {
    const n = rng.chance(0.05) ? rng.between(2000, 8000) : rng.between(0, 60);
    return `${cycle}.${client}.${seq}.${i}:` + 'é~x'.repeat(Math.ceil(n / 3)).slice(0, n);
  });
  return { key: `${cycle}/${client}/${seq}`, cycle, client, seq, payloads, durable: rng.chance(0.5), state: 'pending' };
}

const i64 = (n: number) => ({ value: { i64: n } });

/** The write request of a batch; its answer names every node (n<i>) and edge (e<i>). */
export function batchRequest(b: Batch): unknown {
  const k = b.payloads.length;
  const entries: unknown[] = [];
  const returns: string[] = [];
  const mark = [
    ['cy', i64(b.cycle)],
    ['cl', i64(b.client)],
    ['b', i64(b.seq)],
  ];
  for (let i = 0; i < k; i++) {
    entries.push({
      query: {
        name: `n${i}`,
        root: { add_n: { label: 'Crash', properties: [...mark, ['i', i64(i)], ['p', { value: { string: b.payloads[i] } }]] } },
      },
    });
    returns.push(`n${i}`);
  }
  for (let i = 0; i < k; i++) {
    entries.push({
      query: {
        name: `e${i}`,
        root: {
          add_e: {
            input: { nodes: { reference: { var: `n${i}` } } },
            label: 'Link',
            to: { var: `n${(i + 1) % k}` },
            properties: [...mark, ['i', i64(i)]],
          },
        },
      },
    });
    returns.push(`e${i}`);
  }
  return { request_type: 'write', query: { write: { entries, returns } } };
}

/** The node and edge ids of a batch's 200 answer, in index order. */
export function idsOfAnswer(b: Batch, body: any): { nodeIds: number[]; edgeIds: number[] } {
  const k = b.payloads.length;
  const pick = (name: string) => {
    const rows = body?.[name];
    if (!Array.isArray(rows) || rows.length !== 1 || typeof rows[0]?.$id !== 'number')
      throw new Error(`answer of ${b.key}: ${name} is ${JSON.stringify(rows)}`);
    return rows[0].$id as number;
  };
  return { nodeIds: Array.from({ length: k }, (_, i) => pick(`n${i}`)), edgeIds: Array.from({ length: k }, (_, i) => pick(`e${i}`)) };
}

/** Reads every Crash node and Link edge. */
export const SNAPSHOT_REQUEST = {
  request_type: 'read',
  query: {
    read: {
      entries: [
        {
          query: {
            name: 'nodes',
            root: {
              value_map: {
                input: { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'Crash' } } } } } },
              },
            },
          },
        },
        {
          query: {
            name: 'edges',
            root: {
              edge_properties: {
                input: { edges_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'Link' } } } } } },
              },
            },
          },
        },
      ],
      returns: ['nodes', 'edges'],
    },
  },
};

interface NodeRow {
  $id: number;
  $label: string;
  cy: number;
  cl: number;
  b: number;
  i: number;
  p: string;
}
interface EdgeRow {
  $id: number;
  $label: string;
  $from: number;
  $to: number;
  cy: number;
  cl: number;
  b: number;
  i: number;
}

export interface Verdict {
  readonly problems: string[];
  readonly maxNodeId: number;
  readonly maxEdgeId: number;
  /** Batch counts by state after the check. */
  readonly counts: Record<string, number>;
}

/**
 * Checks a snapshot ({nodes, edges} of SNAPSHOT_REQUEST) against what was sent, and moves
 * lost batches to survived or vanished. `floors` gives, per cycle, the greatest node and
 * edge ids the database held when that cycle's writes began: every id of a later batch
 * must be above them (ids are never reused).
 */
export function checkSnapshot(
  batches: ReadonlyMap<string, Batch>,
  snapshot: { nodes: NodeRow[]; edges: EdgeRow[] },
  floors: ReadonlyMap<number, { node: number; edge: number }>,
): Verdict {
  const problems: string[] = [];
  const nodesOf = new Map<string, NodeRow[]>();
  const edgesOf = new Map<string, EdgeRow[]>();
  let maxNodeId = -1;
  let maxEdgeId = -1;
  for (const n of snapshot.nodes) {
    const key = `${n.cy}/${n.cl}/${n.b}`;
    (nodesOf.get(key) ?? nodesOf.set(key, []).get(key)!).push(n);
    maxNodeId = Math.max(maxNodeId, n.$id);
  }
  for (const e of snapshot.edges) {
    const key = `${e.cy}/${e.cl}/${e.b}`;
    (edgesOf.get(key) ?? edgesOf.set(key, []).get(key)!).push(e);
    maxEdgeId = Math.max(maxEdgeId, e.$id);
  }
  for (const key of new Set([...nodesOf.keys(), ...edgesOf.keys()]))
    if (!batches.has(key)) problems.push(`batch ${key} is in the database but was never sent`);

  const seenAckedNodeIds = new Map<number, string>();
  for (const b of batches.values()) {
    const nodes = nodesOf.get(b.key) ?? [];
    const edges = edgesOf.get(b.key) ?? [];
    const k = b.payloads.length;
    const absent = nodes.length === 0 && edges.length === 0;
    const whole = wholeBatch(b, nodes, edges);
    const tag = `batch ${b.key} (k=${k}, ${b.durable ? 'await-durable' : 'plain'}, ${b.state})`;
    if (whole !== undefined && !absent) problems.push(`${tag} is present partially: ${whole}`);
    if (b.state === 'acked' || b.state === 'survived') {
      if (absent) problems.push(`${tag} is missing`);
    } else if (b.state === 'vanished' || b.state === 'refused') {
      if (!absent) problems.push(`${tag} is present`);
    } else if (b.state === 'lost' && whole === undefined) b.state = 'survived';
    else if (b.state === 'lost' && absent) b.state = 'vanished';
    if (b.state === 'acked' && whole === undefined) {
      const byIndex = [...nodes].sort((x, y) => x.i - y.i).map((n) => n.$id);
      const edgeByIndex = [...edges].sort((x, y) => x.i - y.i).map((e) => e.$id);
      if (JSON.stringify(byIndex) !== JSON.stringify(b.nodeIds) || JSON.stringify(edgeByIndex) !== JSON.stringify(b.edgeIds))
        problems.push(`${tag} has other ids than its answer: nodes ${byIndex} edges ${edgeByIndex}, answered ${b.nodeIds} / ${b.edgeIds}`);
    }
    if (b.state === 'acked') {
      for (const id of b.nodeIds ?? []) {
        const other = seenAckedNodeIds.get(id);
        if (other !== undefined) problems.push(`node id ${id} was answered to both ${other} and ${b.key}`);
        seenAckedNodeIds.set(id, b.key);
      }
    }
    const floor = floors.get(b.cycle);
    if (floor !== undefined && !absent) {
      const low = nodes.find((n) => n.$id <= floor.node) ?? edges.find((e) => e.$id <= floor.edge);
      if (low !== undefined)
        problems.push(
          `${tag} reuses id ${low.$id}, at or below the greatest id before its cycle (nodes ${floor.node}, edges ${floor.edge})`,
        );
    }
  }
  const counts: Record<string, number> = {};
  for (const b of batches.values()) counts[b.state] = (counts[b.state] ?? 0) + 1;
  return { problems, maxNodeId, maxEdgeId, counts };
}

/** Undefined when nodes and edges are exactly the batch, else what is wrong. */
function wholeBatch(b: Batch, nodes: NodeRow[], edges: EdgeRow[]): string | undefined {
  const k = b.payloads.length;
  if (nodes.length !== k || edges.length !== k) return `${nodes.length} of ${k} nodes, ${edges.length} of ${k} edges`;
  const byIndex = new Map<number, NodeRow>();
  for (const n of nodes) {
    if (n.$label !== 'Crash' || !Number.isInteger(n.i) || n.i < 0 || n.i >= k || byIndex.has(n.i)) return `bad node ${JSON.stringify(n)}`;
    if (n.p !== b.payloads[n.i]) return `node ${n.$id} (i=${n.i}) has payload ${JSON.stringify(n.p).slice(0, 80)}`;
    byIndex.set(n.i, n);
  }
  const edgeIndexes = new Set<number>();
  for (const e of edges) {
    if (e.$label !== 'Link' || !Number.isInteger(e.i) || e.i < 0 || e.i >= k || edgeIndexes.has(e.i))
      return `bad edge ${JSON.stringify(e)}`;
    edgeIndexes.add(e.i);
    const from = byIndex.get(e.i)!.$id;
    const to = byIndex.get((e.i + 1) % k)!.$id;
    if (e.$from !== from || e.$to !== to) return `edge ${e.$id} (i=${e.i}) goes ${e.$from} -> ${e.$to}, not ${from} -> ${to}`;
  }
  return undefined;
}
