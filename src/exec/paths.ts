/**
 * Paths of rows (reference §5.9): path and simple_path. Rows record their path only when
 * the plan reads paths (src/plan/features.ts sets x.trackPath). Shortest paths between two
 * nodes are shortest-path.ts and weighted-path.ts.
 */
import type { Executor } from './context.js';
import { kept, rowFlow } from './flow.js';
import type { Row } from './row.js';

export const path: Executor<'path'> = (node, x, ctx) => ({ ...x.rows(node.input, ctx, node), showPath: true });

export const simplePath: Executor<'simple_path'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  return rowFlow(kept(input.rows, isSimplePath), input);
};

/** No element twice on the row's path. */
function isSimplePath(row: Row): boolean {
  const keys = row.path ?? [];
  return new Set(keys).size === keys.length;
}
