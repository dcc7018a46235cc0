/**
 * Visiting every operation of a plan: entry roots, for_each bodies, inputs, sub-traversals
 * (branch and repeat bodies, and the operation trees of traversal expressions).
 */
import type { Entry } from './batch.js';
import { inputOf, subTraversalsOf } from './catalog.js';
import { expressionTraversalsOf } from './expr-walk.js';
import type { PlanNode } from './ops.js';

export function walkPlan(node: PlanNode, visit: (node: PlanNode) => void): void {
  visit(node);
  const input = inputOf(node);
  if (input !== null) walkPlan(input, visit);
  for (const sub of subTraversalsOf(node)) walkPlan(sub.root, visit);
  for (const root of expressionTraversalsOf(node)) walkPlan(root, visit);
}

/** Visits every query entry (including those inside for_each bodies), in textual order. */
export function walkEntries(entries: readonly Entry[], visit: (entry: Extract<Entry, { kind: 'query' }>) => void): void {
  for (const entry of entries) {
    if (entry.kind === 'for_each') walkEntries(entry.body, visit);
    else visit(entry);
  }
}

export function someNode(entries: readonly Entry[], test: (node: PlanNode) => boolean): boolean {
  let found = false;
  walkEntries(entries, (entry) => {
    if (!found) walkPlan(entry.root, (node) => (found ||= test(node)));
  });
  return found;
}
