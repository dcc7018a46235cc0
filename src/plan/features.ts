/**
 * What a plan needs from the executor beyond its operations. Recording paths costs an
 * array per row per hop, so rows carry paths only when something reads them.
 */
import type { QueryPlan } from './batch.js';
import { someNode } from './walk.js';

const PATH_READERS = new Set<string>(['path', 'simple_path', 'other_n']);

/**
 * True when any node (entries, for_each bodies, inputs, sub-traversals, traversal
 * expressions) reads row paths.
 */
export function needsPaths(plan: QueryPlan): boolean {
  return someNode(plan.batch.entries, (node) => PATH_READERS.has(node.op));
}
