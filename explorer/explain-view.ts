/** The operator tree of /v2/cypher/explain (README, Cypher): operators source first, nested plans indented. */
import { h } from './dom.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isPlan(v: unknown): v is Record<string, unknown>[] {
  return Array.isArray(v) && v.length > 0 && v.every((op) => isObject(op) && typeof op.op === 'string');
}

function operator(op: Record<string, unknown>): HTMLLIElement {
  const details: string[] = [];
  const nested: HTMLElement[] = [];
  for (const [key, value] of Object.entries(op)) {
    if (key === 'op') continue;
    if (isPlan(value)) nested.push(h('li', {}, h('span', { class: 'muted' }, `${key}:`), plan(value)));
    else if (Array.isArray(value) && value.some(isPlan)) {
      value.forEach((v, i) => {
        if (isPlan(v)) nested.push(h('li', {}, h('span', { class: 'muted' }, `${key}[${i}]:`), plan(v)));
      });
    } else details.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return h(
    'li',
    {},
    h('span', { class: 'op' }, String(op.op)),
    ' ',
    h('span', {}, details.join(' ')),
    nested.length > 0 ? h('ul', {}, ...nested) : null,
  );
}

function plan(ops: Record<string, unknown>[]): HTMLUListElement {
  return h('ul', { class: 'tree' }, ...ops.map(operator));
}

export function renderExplain(target: HTMLElement, answer: Record<string, unknown>): void {
  const ops = Array.isArray(answer.operators) ? (answer.operators as Record<string, unknown>[]) : [];
  const bindings = Array.isArray(answer.bindings) ? (answer.bindings as { slot: number; name: string }[]) : [];
  const notices = Array.isArray(answer.notices) ? answer.notices : [];
  target.replaceChildren(
    h('p', {}, h('b', {}, `${String(answer.effect)} statement`), ` · planner ${String(answer.planner)} · ${ops.length} operators`),
    h(
      'p',
      { class: 'muted' },
      `bindings: ${bindings.map((b) => `${b.slot}=${b.name}`).join(', ') || 'none'} · returns: ${JSON.stringify(answer.returns)}`,
    ),
    notices.length > 0 ? h('p', {}, `notices: ${JSON.stringify(notices)}`) : '',
    plan(ops),
  );
}
