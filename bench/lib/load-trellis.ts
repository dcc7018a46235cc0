/**
 * Loads the benchmark dataset into Trellis through its public API: write requests with
 * for_each batches, exactly as a client would send them (embedded here; the HTTP bench
 * measures the same requests over the wire).
 */
import type { Database } from '../../src/index.js';
import { generateEdges, userProps, type DatasetSize } from './dataset.js';

export const NODE_BATCH = 5_000;
export const EDGE_BATCH = 10_000;

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
                        properties: [['uid', param('uid')], ['name', param('name')], ['age', param('age')], ['status', param('status')], ['score', param('score')]],
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
                      add_e: { input: { nodes: { reference: { param: 'from' } } }, label: 'FOLLOWS', to: { param: 'to' }, properties: [['since', param('since')]] },
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

/** Loads a fresh database; node i gets id i because ids start at 0 and are sequential. */
export async function loadTrellis(db: Database, seed: number, size: DatasetSize): Promise<{ nodesMs: number; edgesMs: number }> {
  const t0 = performance.now();
  for (let start = 0; start < size.nodes; start += NODE_BATCH) {
    await db.queryText(JSON.stringify(nodeBatchRequest(nodeRows(seed, start, Math.min(size.nodes, start + NODE_BATCH)))).replace(/"score":(\d+)([,}])/g, '"score":$1.0$2'));
  }
  const t1 = performance.now();
  const edges = generateEdges(seed, size);
  for (let start = 0; start < size.edges; start += EDGE_BATCH) {
    const rows = [];
    for (let k = start; k < Math.min(size.edges, start + EDGE_BATCH); k++) rows.push({ from: edges.from[k]!, to: edges.to[k]!, since: edges.since[k]! });
    await db.queryText(edgeBatchRequest(rows));
  }
  return { nodesMs: t1 - t0, edgesMs: performance.now() - t1 };
}
