/**
 * The TCK's side effects, by diffing the graph before and after the query under test.
 *
 * The TCK counts differences between two states of the graph, each state being four sets:
 *  - nodes: the node identities; relationships: the relationship identities;
 *  - labels: the label NAMES in use (a label counts once however many nodes carry it);
 *  - properties: the triples (element identity, key, value) over nodes and relationships.
 * `+x` is the size of after \ before and `-x` of before \ after. So creating two `:Label`
 * nodes in an empty graph is +labels 1 (Create1 [4]); deleting the last `:N` node is
 * -labels 1 (Delete6 [1]); deleting a node drops its properties (-properties 1, Delete6
 * [1]); overwriting a value is +properties 1 and -properties 1 (Set1 [1]); setting a
 * property to the value it already has, or to null when absent, changes nothing.
 * Values compare as the TCK compares them (tckText: 1 and 1.0 differ).
 */
import { fromStored } from '../../src/core/cypher-value.js';
import type { GraphReader } from '../../src/store/types.js';
import { tckText, type TckValue } from './values.js';

export const SIDE_EFFECT_KEYS = [
  '+nodes',
  '-nodes',
  '+relationships',
  '-relationships',
  '+labels',
  '-labels',
  '+properties',
  '-properties',
] as const;
export type SideEffectKey = (typeof SIDE_EFFECT_KEYS)[number];
export type SideEffects = Record<SideEffectKey, number>;

export interface GraphState {
  readonly nodes: ReadonlySet<number>;
  readonly relationships: ReadonlySet<number>;
  readonly labels: ReadonlySet<string>;
  readonly properties: ReadonlySet<string>;
}

function propertyTriples(kind: 'n' | 'r', id: number, props: Record<string, unknown>, out: Set<string>): void {
  for (const key of Object.keys(props)) {
    if (key.startsWith('$')) continue; // internal, never a Cypher property (core/cypher-value.ts propertiesOf)
    const value = fromStored(props[key] as never) as TckValue;
    if (value === null) continue;
    out.add(`${kind}${id}\u0000${key}\u0000${tckText(value)}`);
  }
}

/** The state of the graph a reader sees. */
export function snapshot(reader: GraphReader): GraphState {
  const nodes = new Set<number>();
  const relationships = new Set<number>();
  const labels = new Set<string>();
  const properties = new Set<string>();
  for (const id of reader.nodeIds()) {
    const rec = reader.getNode(id);
    if (rec === undefined) continue;
    nodes.add(id);
    if (rec.label !== '') labels.add(rec.label);
    propertyTriples('n', id, rec.props, properties);
  }
  for (const id of reader.edgeIds()) {
    const rec = reader.getEdge(id);
    if (rec === undefined) continue;
    relationships.add(id);
    propertyTriples('r', id, rec.props, properties);
  }
  return { nodes, relationships, labels, properties };
}

const minus = <T>(a: ReadonlySet<T>, b: ReadonlySet<T>) => [...a].filter((x) => !b.has(x)).length;

export function diff(before: GraphState, after: GraphState): SideEffects {
  return {
    '+nodes': minus(after.nodes, before.nodes),
    '-nodes': minus(before.nodes, after.nodes),
    '+relationships': minus(after.relationships, before.relationships),
    '-relationships': minus(before.relationships, after.relationships),
    '+labels': minus(after.labels, before.labels),
    '-labels': minus(before.labels, after.labels),
    '+properties': minus(after.properties, before.properties),
    '-properties': minus(before.properties, after.properties),
  };
}

/** The expected side effects of a `the side effects should be:` table (`| +nodes | 1 |` rows; absent keys are 0). */
export function expectedSideEffects(table: readonly (readonly string[])[]): SideEffects | string {
  const out = Object.fromEntries(SIDE_EFFECT_KEYS.map((k) => [k, 0])) as SideEffects;
  for (const row of table) {
    const [key, count] = row;
    if (!(SIDE_EFFECT_KEYS as readonly string[]).includes(key ?? '') || !/^\d+$/.test(count ?? ''))
      return `unknown side effect row ${row.join(' | ')}`;
    out[key as SideEffectKey] = Number(count);
  }
  return out;
}

/** The keys whose counts differ, as `+nodes 1 (expected 2)`; empty when they agree. */
export function sideEffectDifferences(expected: SideEffects, actual: SideEffects): string {
  return SIDE_EFFECT_KEYS.filter((k) => expected[k] !== actual[k])
    .map((k) => `${k} ${actual[k]} (expected ${expected[k]})`)
    .join(', ');
}
