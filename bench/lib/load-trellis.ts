/**
 * Loads the benchmark dataset into Trellis through its public API: write requests with
 * for_each batches, exactly as a client would send them (embedded here; the HTTP bench
 * measures the same requests over the wire).
 */
import type { Database } from '../../src/index.js';
import { generateEdges, userProps, type DatasetSize } from './dataset.js';

/** Rows per load request over HTTP: about 9 MB of JSON each, under the 16 MiB body limit. */
export const NODE_BATCH = 100_000;
export const EDGE_BATCH = 250_000;
/**
 * Rows per load request through the embedded API, which has no body limit: one request
 * per million rows (the for_each limit). Each transaction rewrites the adjacency blocks
 * it touches once, so fewer, larger requests still save a little (docs/benchmarks.md).
 */
export const EMBEDDED_BATCHES = { nodes: 1_000_000, edges: 1_000_000 } as const;

export interface BatchSizes {
  readonly nodes: number;
  readonly edges: number;
}

const param = (name: string) => ({ expr: { param: name } });

export function nodeBatchRequest(rows: readonly object[]): object {
  return {
    request_type: 'write',
    query: {
      write: {
        entries: [
          {
            for_each: {
              param: 'rows',
              body: [
                {
                  query: {
                    root: {
                      add_n: {
                        label: 'User',
                        properties: [
                          ['uid', param('uid')],
                          ['name', param('name')],
                          ['age', param('age')],
                          ['status', param('status')],
                          ['score', param('score')],
                        ],
                      },
                    },
                  },
                },
              ],
            },
          },
        ],
        returns: [],
      },
    },
    parameters: { rows },
  };
}

export function edgeBatchRequest(rows: readonly { from: number; to: number; since: number }[]): object {
  return {
    request_type: 'write',
    query: {
      write: {
        entries: [
          {
            for_each: {
              param: 'rows',
              body: [
                {
                  query: {
                    root: {
                      add_e: {
                        input: { nodes: { reference: { param: 'from' } } },
                        label: 'FOLLOWS',
                        to: { param: 'to' },
                        properties: [['since', param('since')]],
                      },
                    },
                  },
                },
              ],
            },
          },
        ],
        returns: [],
      },
    },
    parameters: { rows },
  };
}

/** Node rows for batch [start, end); scores are sent as floats (never integral tokens). */
export function nodeRows(seed: number, start: number, end: number): object[] {
  const rows: object[] = [];
  for (let i = start; i < end; i++) rows.push(userProps(seed, i));
  return rows;
}

/** Floats stay floats on the wire: an integral score is written `512.0`, not `512`. */
const floatScores = (text: string) => text.replace(/"score":(\d+)([,}])/g, '"score":$1.0$2');

/**
 * The request texts that load the dataset, as a client would send them: for_each batches
 * of nodes, then of edges (by default NODE_BATCH and EDGE_BATCH, under the 16 MiB limit).
 */
export function loadRequests(
  seed: number,
  size: DatasetSize,
  batches: BatchSizes = { nodes: NODE_BATCH, edges: EDGE_BATCH },
): { nodes: string[]; edges: string[] } {
  const nodes: string[] = [];
  for (let start = 0; start < size.nodes; start += batches.nodes) {
    nodes.push(floatScores(JSON.stringify(nodeBatchRequest(nodeRows(seed, start, Math.min(size.nodes, start + batches.nodes))))));
  }
  const list = generateEdges(seed, size);
  const edges: string[] = [];
  for (let start = 0; start < size.edges; start += batches.edges) {
    const rows = [];
    for (let k = start; k < Math.min(size.edges, start + batches.edges); k++)
      rows.push({ from: list.from[k]!, to: list.to[k]!, since: list.since[k]! });
    edges.push(JSON.stringify(edgeBatchRequest(rows)));
  }
  return { nodes, edges };
}

export interface LoadTimes {
  /** Building the request texts (client side; not part of the load figure). */
  readonly buildMs: number;
  readonly nodesMs: number;
  readonly edgesMs: number;
}

/**
 * Loads a fresh database; node i gets id i because ids start at 0 and are sequential.
 * The requests are built first, so the load figures time the database alone.
 */
export async function loadTrellis(
  db: Database,
  seed: number,
  size: DatasetSize,
  batches: BatchSizes = EMBEDDED_BATCHES,
): Promise<LoadTimes> {
  const t0 = performance.now();
  const requests = loadRequests(seed, size, batches);
  const t1 = performance.now();
  for (const text of requests.nodes) await db.queryText(text);
  const t2 = performance.now();
  for (const text of requests.edges) await db.queryText(text);
  return { buildMs: t1 - t0, nodesMs: t2 - t1, edgesMs: performance.now() - t2 };
}
