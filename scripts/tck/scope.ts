/**
 * Which TCK cases are in scope for Trellis's openCypher (the in-scope figure the gate
 * measures) and which are not. A case is out of scope when any of its queries (set-up,
 * main or control) or steps uses:
 *
 *  - temporal values: a feature under `expressions/temporal/`, or a call of a temporal
 *    function (`date`, `time`, `datetime`, `localtime`, `localdatetime`, `duration`, or one in
 *    their namespace such as `datetime.fromepoch` or `duration.between`);
 *  - procedures: a `CALL` clause (procedure or subquery), or a step
 *    `there exists a procedure ...`;
 *  - EXISTS subqueries: `EXISTS { ... }`;
 *  - more than one label on a node, or label mutation: a node pattern with two labels or
 *    more (`(:A:B)`, in any clause, set-up included), a label predicate with two or more
 *    (`n:A:B`), `SET n:L` or `REMOVE n:L`.
 *
 * Queries are read with our parser (src/cypher/parser.ts) and the rules look at the syntax
 * tree; a query the parser rejects (the TCK's syntax-error cases) is matched by the rules'
 * text forms instead.
 */
import { parseCypher } from '../../src/cypher/parser.js';
import type { TckCase } from './load.js';

export type ScopeRule = 'temporal' | 'procedure' | 'exists-subquery' | 'multi-label';

export interface Scope {
  readonly inScope: boolean;
  /** The rules that put the case out of scope (empty when in scope). */
  readonly rules: readonly ScopeRule[];
}

const TEMPORAL = new Set(['date', 'time', 'datetime', 'localtime', 'localdatetime', 'duration']);
const QUERY_STEP = /^(executing query|executing control query|having executed):?$/;

/** The rules a query breaks, from its syntax tree. */
function treeRules(tree: unknown, out: Set<ScopeRule>): void {
  const visit = (x: unknown): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) {
      for (const item of x) visit(item);
      return;
    }
    const o = x as Record<string, unknown>;
    const kind = o.kind;
    const labels = o.labels as readonly unknown[] | undefined;
    if (kind === 'call' && 'procedure' in o) out.add('procedure');
    else if (kind === 'callSubquery') out.add('procedure');
    else if (kind === 'call') {
      const names = [...(o.namespace as { name: string }[]), o.name as { name: string }].map((n) => n.name.toLowerCase());
      if (TEMPORAL.has(names[0]!)) out.add('temporal');
    } else if (kind === 'exists' && (o.pattern !== null || o.query !== null)) out.add('exists-subquery');
    else if (kind === 'setLabels' || kind === 'removeLabels') out.add('multi-label');
    else if (Array.isArray(labels) && labels.length > 1 && (kind === undefined || kind === 'hasLabels')) out.add('multi-label');
    for (const key of Object.keys(o)) if (key !== 'span') visit(o[key]);
  };
  visit(tree);
}

const LABEL = String.raw`(?:\w+|\x60[^\x60]*\x60)`;
const TEXT_RULES: readonly (readonly [ScopeRule, RegExp])[] = [
  ['temporal', /\b(?:date|time|datetime|localtime|localdatetime|duration)\s*(?:\.\s*\w+\s*)?\(/i],
  ['procedure', /\bCALL\b/i],
  ['exists-subquery', /\bEXISTS\s*\{/i],
  ['multi-label', new RegExp(String.raw`\w\s*:\s*${LABEL}\s*:\s*${LABEL}|\(\s*:\s*${LABEL}\s*:\s*${LABEL}`)],
  ['multi-label', new RegExp(String.raw`\b(?:SET|REMOVE)\b[^;]*?\b\w+\s*:\s*${LABEL}\s*(?:$|[,\n]|:)`, 'i')],
];

/** The rules a query breaks: from its syntax tree, or from its text when it does not parse. */
export function queryRules(query: string, out: Set<ScopeRule> = new Set()): Set<ScopeRule> {
  let tree: unknown;
  try {
    tree = parseCypher(query);
  } catch {
    for (const [rule, re] of TEXT_RULES) if (re.test(query)) out.add(rule);
    return out;
  }
  treeRules(tree, out);
  return out;
}

/** Whether a case is in scope, and if not, why. */
export function classify(c: TckCase): Scope {
  const rules = new Set<ScopeRule>();
  if (c.feature.startsWith('expressions/temporal/')) rules.add('temporal');
  for (const step of c.steps) {
    if (step.text.startsWith('there exists a procedure')) rules.add('procedure');
    if (QUERY_STEP.test(step.text) && step.doc !== null) queryRules(step.doc, rules);
  }
  return { inScope: rules.size === 0, rules: [...rules] };
}
