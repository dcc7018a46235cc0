/**
 * POST /v2/cypher/explain: what a compiled statement would do, without running it
 * (reference/cypher.md, "Explain"):
 *
 *   {"effect": "Read"|"Write",
 *    "bindings": [{"slot": 0, "name": "n"|null}, ...],   every slot of the statement's rows
 *    "returns": [["name", slot], ...],                     the result columns
 *    "operators": [{"op": "scan", ...}, ...],              source first, the result last
 *    "planner": "trellis-table-v1", "notices": []}
 *
 * Each operator is named by its `t` (plan/table.ts) with its main fields: slots, labels,
 * types, direction, and its expressions written back as Cypher-like text (slots by their
 * names when known, else `#slot`). Plans run inside an operator are nested lists of the
 * same shape: `body` (optional, foreach), `match` (merge), `branches` (union), and
 * `subqueries` for the pattern predicates and comprehensions of its expressions, which the
 * text names `subquery[i]`. `from_traversal` lists its traversal's operations, source first.
 */
import { isScalar, nonFiniteName, scalarText, type ScalarStyle } from '../core/scalar-text.js';
import { clip } from '../core/clip.js';
import { floatText, stringifyJson } from '../core/json-stringify.js';
import type { PlanNode } from '../plan/ops.js';
import type {
  CreateNode,
  CreatePattern,
  CreateRel,
  PatternProperties,
  PlanLiteral,
  RowExpr,
  SetAction,
  TableNode,
  MapProjectionItem,
} from '../plan/table.js';
import type { CompiledCypher } from './compile.js';

export const PLANNER = 'trellis-table-v1';

/** Longest text of one expression in an explanation. */
const EXPR_CHARS = 300;

export interface ExplainBinding {
  readonly slot: number;
  readonly name: string | null;
}

export type ExplainOperator = { readonly op: string } & { readonly [field: string]: unknown };

export interface CypherExplain {
  readonly effect: 'Read' | 'Write';
  readonly bindings: readonly ExplainBinding[];
  readonly returns: readonly (readonly [string, number])[];
  readonly operators: readonly ExplainOperator[];
  readonly planner: string;
  readonly notices: readonly unknown[];
}

export function explainCypher(compiled: CompiledCypher): CypherExplain {
  const { statement } = compiled;
  const names = compiled.slotNames;
  const bindings: ExplainBinding[] = [];
  for (let slot = 0; slot < statement.slotCount; slot++) bindings.push({ slot, name: names[slot] ?? null });
  return {
    effect: compiled.effect === 'write' ? 'Write' : 'Read',
    bindings,
    returns: statement.columns.map(([name, slot]) => [name, slot] as const),
    operators: new Explainer(names).chain(statement.root),
    planner: PLANNER,
    notices: [],
  };
}

/** The explanation as the response body. */
export function explainJson(compiled: CompiledCypher): string {
  return JSON.stringify(explainCypher(compiled));
}

class Explainer {
  constructor(private readonly names: readonly (string | null)[]) {}

  /** The operators of a chain, source first. */
  chain(root: TableNode): ExplainOperator[] {
    const out: ExplainOperator[] = [];
    let node: TableNode | null = root;
    while (node !== null) {
      out.push(this.operator(node));
      node = 'input' in node ? node.input : null;
    }
    return out.reverse();
  }

  private operator(node: TableNode): ExplainOperator {
    const subs: TableNode[] = [];
    const x = (e: RowExpr) => this.expr(e, subs);
    const fields = this.fields(node, x);
    return subs.length === 0 ? { op: node.t, ...fields } : { op: node.t, ...fields, subqueries: subs.map((s) => this.chain(s)) };
  }

  private fields(node: TableNode, x: (e: RowExpr) => string): Record<string, unknown> {
    switch (node.t) {
      case 'unit':
      case 'argument':
      case 'eager':
        return {};
      case 'from_traversal':
        return { slot: node.slot, kind: node.kind, traversal: traversalChain(node.root) };
      case 'scan':
        return { slot: node.slot, label: node.label };
      case 'expand':
        return {
          from: node.from,
          rel: node.rel,
          to: node.to,
          types: node.types,
          direction: node.direction,
          length: node.length,
          toBound: node.toBound,
          relBound: node.relBound,
          ...(node.properties.length > 0 ? { properties: this.properties(node.properties, x) } : {}),
        };
      case 'check_node':
        return { slot: node.slot, labels: node.labels, properties: this.properties(node.properties, x) };
      case 'shortest_path':
        return {
          from: node.from,
          to: node.to,
          path: node.path,
          rel: node.rel,
          types: node.types,
          direction: node.direction,
          min: node.min,
          max: node.max,
          all: node.all,
        };
      case 'bind_path':
        return { slot: node.path.slot, elements: node.path.elements };
      case 'filter':
        return { predicate: x(node.predicate) };
      case 'optional':
        return { slots: node.slots, body: this.chain(node.body) };
      case 'project':
        return { items: node.items.map(([slot, e]) => [slot, x(e)]), only: node.only, distinct: node.distinct };
      case 'aggregate':
        return {
          keys: node.keys.map(([slot, e]) => [slot, x(e)]),
          aggregations: node.aggregations.map((a) => [
            a.slot,
            `${a.fn === 'count_star' ? 'count(*' : `${a.fn}(${a.distinct ? 'DISTINCT ' : ''}${a.args.map(x).join(', ')}`})`,
          ]),
        };
      case 'sort':
        return { keys: node.keys.map((k) => `${x(k.expr)} ${k.descending ? 'DESC' : 'ASC'}`) };
      case 'skip':
      case 'limit':
        return { count: x(node.count) };
      case 'unwind':
        return { slot: node.slot, list: x(node.list) };
      case 'create':
        return this.pattern(node.pattern, x);
      case 'merge':
        return {
          match: this.chain(node.match),
          create: this.pattern(node.create, x),
          onMatch: node.onMatch.map((a) => this.action(a, x)),
          onCreate: node.onCreate.map((a) => this.action(a, x)),
        };
      case 'set':
        return { actions: node.actions.map((a) => this.action(a, x)) };
      case 'delete':
        return { targets: node.targets.map(x), detach: node.detach };
      case 'foreach':
        return { slot: node.slot, list: x(node.list), body: this.chain(node.body) };
      case 'union':
        return { all: node.all, branches: node.branches.map((b) => this.chain(b)) };
    }
  }

  private properties(props: PatternProperties, x: (e: RowExpr) => string): [string, string][] {
    return props.map(([key, e]) => [key, x(e)]);
  }

  /** A created element's properties: the listed entries, or the map they come from (`CREATE (n $props)`). */
  private created(e: CreateNode | CreateRel, x: (e: RowExpr) => string): Record<string, unknown> {
    return e.propertyMap === null ? { properties: this.properties(e.properties, x) } : { property_map: x(e.propertyMap) };
  }

  private pattern(p: CreatePattern, x: (e: RowExpr) => string): Record<string, unknown> {
    return {
      nodes: p.nodes.map((n) => ({ slot: n.slot, label: n.label, bound: n.bound, ...this.created(n, x) })),
      rels: p.rels.map((r) => ({ slot: r.slot, type: r.type, from: r.from, to: r.to, ...this.created(r, x) })),
      paths: p.paths.map((path) => ({ slot: path.slot, elements: path.elements })),
    };
  }

  private action(a: SetAction, x: (e: RowExpr) => string): string {
    switch (a.kind) {
      case 'property':
        return `${x(a.object)}.${a.key} = ${x(a.value)}`;
      case 'replace':
        return `${this.slot(a.slot)} = ${x(a.value)}`;
      case 'merge':
        return `${this.slot(a.slot)} += ${x(a.value)}`;
      case 'remove_property':
        return `REMOVE ${x(a.object)}.${a.key}`;
    }
  }

  private slot(slot: number): string {
    return this.names[slot] ?? `#${slot}`;
  }

  /** An expression as text, clipped; its subquery plans are appended to `subs`. */
  private expr(e: RowExpr, subs: TableNode[]): string {
    return clip(this.text(e, subs), EXPR_CHARS);
  }

  private text(e: RowExpr, subs: TableNode[]): string {
    const t = (inner: RowExpr) => this.text(inner, subs);
    switch (e.k) {
      case 'literal':
        return literalText(e.value);
      case 'param':
        return `$${e.name}`;
      case 'slot':
        return this.slot(e.slot);
      case 'property':
        return `${t(e.object)}.${e.key}`;
      case 'index':
        return `${t(e.object)}[${t(e.index)}]`;
      case 'slice':
        return `${t(e.object)}[${e.from === null ? '' : t(e.from)}..${e.to === null ? '' : t(e.to)}]`;
      case 'has_labels':
        return `${t(e.object)}${e.labels.map((l) => `:${l}`).join('')}`;
      case 'not':
        return `NOT (${t(e.operand)})`;
      case 'negate':
        return `-(${t(e.operand)})`;
      case 'plus':
        return `+(${t(e.operand)})`;
      case 'and':
      case 'or':
      case 'xor':
        return `(${t(e.left)} ${e.k.toUpperCase()} ${t(e.right)})`;
      case 'arith':
        return `(${t(e.left)} ${e.op} ${t(e.right)})`;
      case 'string_op':
        return `(${t(e.left)} ${STRING_OPS[e.op]} ${t(e.right)})`;
      case 'in':
        return `(${t(e.left)} IN ${t(e.right)})`;
      case 'compare': {
        let out = t(e.operands[0]!);
        e.ops.forEach((op, i) => (out += ` ${op} ${t(e.operands[i + 1]!)}`));
        return `(${out})`;
      }
      case 'is_null':
        return `(${t(e.operand)} IS ${e.negated ? 'NOT ' : ''}NULL)`;
      case 'list':
        return `[${e.items.map(t).join(', ')}]`;
      case 'map':
        return `{${e.entries.map(([k, v]) => `${k}: ${t(v)}`).join(', ')}}`;
      case 'call':
        return `${e.name}(${e.args.map(t).join(', ')})`;
      case 'case': {
        const parts = ['CASE'];
        if (e.subject !== null) parts.push(t(e.subject));
        for (const [when, then] of e.alternatives) parts.push(`WHEN ${t(when)} THEN ${t(then)}`);
        if (e.otherwise !== null) parts.push(`ELSE ${t(e.otherwise)}`);
        parts.push('END');
        return parts.join(' ');
      }
      case 'list_comprehension':
        return `[${this.slot(e.slot)} IN ${t(e.list)}${e.where === null ? '' : ` WHERE ${t(e.where)}`}${e.project === null ? '' : ` | ${t(e.project)}`}]`;
      case 'quantifier':
        return `${e.quantifier}(${this.slot(e.slot)} IN ${t(e.list)} WHERE ${t(e.predicate)})`;
      case 'reduce':
        return `reduce(${this.slot(e.accumulator)} = ${t(e.init)}, ${this.slot(e.slot)} IN ${t(e.list)} | ${t(e.step)})`;
      case 'map_projection':
        return `${t(e.object)} {${e.items.map((item) => this.projectionItem(item, t)).join(', ')}}`;
      case 'subquery': {
        const i = subs.push(e.plan) - 1;
        if (e.exists) return `exists(subquery[${i}])`;
        return `[subquery[${i}]${e.project === null ? '' : ` | ${t(e.project)}`}]`;
      }
    }
  }

  private projectionItem(item: MapProjectionItem, t: (e: RowExpr) => string): string {
    switch (item.kind) {
      case 'property':
        return `.${item.key}`;
      case 'all':
        return '.*';
      case 'entry':
        return `${item.key}: ${t(item.value)}`;
    }
  }
}

const STRING_OPS = { startsWith: 'STARTS WITH', endsWith: 'ENDS WITH', contains: 'CONTAINS', regex: '=~' } as const;

/** Literals as Cypher writes them: strings quoted, floats with a fraction, NaN and the infinities named. */
const CYPHER_LITERALS: ScalarStyle = {
  string: (s) => JSON.stringify(s),
  number: (n) => (Number.isFinite(n) ? floatText(n) : nonFiniteName(n)),
};

function literalText(v: PlanLiteral): string {
  if (v === null) return 'null';
  if (isScalar(v)) return scalarText(v, CYPHER_LITERALS);
  return `[${(v as readonly PlanLiteral[]).map(literalText).join(', ')}]`;
}

/** The operations of a traversal, source first: each with its fields but its input, as JSON text clipped. */
function traversalChain(root: PlanNode): { readonly op: string; readonly detail: string }[] {
  const out: { op: string; detail: string }[] = [];
  let node: PlanNode | null = root;
  while (node !== null) {
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) if (key !== 'op' && key !== 'path' && key !== 'input') rest[key] = value;
    out.push({ op: node.op, detail: clip(stringifyJson(rest), EXPR_CHARS) });
    node = 'input' in node && node.input !== null ? node.input : null;
  }
  return out.reverse();
}
