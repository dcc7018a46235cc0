/**
 * What a plan needs from the executor beyond its operations. Recording paths costs an
 * array per row per hop, so rows carry paths only when something reads them.
 */
import type { Entry, QueryPlan } from './batch.js';
import { inputOf, subTraversalsOf } from './catalog.js';
import type { PlanNode } from './ops.js';

const PATH_READERS = new Set<string>(['path', 'simple_path', 'other_n']);

function treeReadsPaths(root: PlanNode): boolean {
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (PATH_READERS.has(node.op)) return true;
    const input = inputOf(node);
    if (input !== null) stack.push(input);
    for (const sub of subTraversalsOf(node)) stack.push(sub.root);
  }
  return false;
}

function entriesReadPaths(entries: readonly Entry[]): boolean {
  return entries.some((e) => (e.kind === 'for_each' ? entriesReadPaths(e.body) : treeReadsPaths(e.root)));
}

/** True when any node (entries, for_each bodies, inputs, sub-traversals) reads row paths. */
export function needsPaths(plan: QueryPlan): boolean {
  return entriesReadPaths(plan.batch.entries);
}
