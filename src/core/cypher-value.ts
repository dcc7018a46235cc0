/**
 * The values a Cypher query computes with (openCypher's type system, D23): integers are
 * exact 64-bit `bigint`s and floats `number`s, so `1` and `1.0` stay different types; lists
 * are arrays; maps are plain objects; nodes, relationships and paths are references by id
 * whose properties are read from the transaction when asked (so a SET earlier in the
 * statement shows, and a deleted element can be told apart).
 *
 * Stored property values (core/value.ts) are a subset: scalars and lists of scalars.
 * `fromStored` and `toStored` convert at the store's edge.
 */
import { DateTime, setOwn, type Value, type ValueObject } from './value.js';

export class NodeRef {
  constructor(readonly id: number) {}
}

export class RelRef {
  constructor(readonly id: number) {}
}

/** A path: `nodes.length === rels.length + 1`; rels[i] joins nodes[i] and nodes[i+1]. */
export class PathValue {
  constructor(
    readonly nodes: readonly NodeRef[],
    readonly rels: readonly RelRef[],
  ) {}
}

export type CypherValue = null | boolean | bigint | number | string | CypherValue[] | CypherMap | NodeRef | RelRef | PathValue;

export interface CypherMap {
  [key: string]: CypherValue;
}

export function isCypherMap(v: CypherValue | undefined): v is CypherMap {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof NodeRef) &&
    !(v instanceof RelRef) &&
    !(v instanceof PathValue)
  );
}

/** A fresh map that a key named `__proto__` cannot corrupt. */
export function newMap(): CypherMap {
  return Object.create(null) as CypherMap;
}

export function mapSet(map: CypherMap, key: string, value: CypherValue): void {
  setOwn(map as unknown as ValueObject, key, value as Value);
}

/** A stored property value as a Cypher value: typed arrays become lists, date_times RFC 3339 text. */
export function fromStored(v: Value): CypherValue {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof DateTime) return new Date(v.ms).toISOString();
  if (v instanceof BigInt64Array) return Array.from(v);
  if (v instanceof Float64Array || v instanceof Float32Array || v instanceof Uint8Array) return Array.from(v);
  if (Array.isArray(v)) return v.map(fromStored);
  const out = newMap();
  for (const key of Object.keys(v)) mapSet(out, key, fromStored(v[key]!));
  return out;
}

/** The properties of a record as a Cypher map (internal `$` properties hidden). */
export function propertiesOf(props: ValueObject): CypherMap {
  const out = newMap();
  for (const key of Object.keys(props)) if (!key.startsWith('$')) mapSet(out, key, fromStored(props[key]!));
  return out;
}

export type StoredCheck = { readonly ok: true; readonly value: Value } | { readonly ok: false; readonly why: string };

/**
 * A Cypher value as a property value, when it may be stored: a scalar, or a list whose
 * items are all scalars of one type (nulls excluded). Maps, nested lists, mixed lists and
 * elements cannot be stored (reference/cypher.md, "Semantics").
 */
export function toStored(v: CypherValue): StoredCheck {
  if (v === null || typeof v !== 'object') return { ok: true, value: v };
  if (!Array.isArray(v)) return { ok: false, why: `${typeName(v)} values cannot be stored as properties` };
  let kind: string | null = null;
  for (const item of v) {
    if (item === null || typeof item === 'object') return { ok: false, why: 'a stored list may hold only non-null scalars' };
    const k = typeof item;
    if (kind !== null && k !== kind) return { ok: false, why: 'a stored list must hold items of one type' };
    kind = k;
  }
  return { ok: true, value: v as Value };
}

/** openCypher's name of a value's type, for messages. */
export function typeName(v: CypherValue): string {
  if (v === null) return 'Null';
  switch (typeof v) {
    case 'boolean':
      return 'Boolean';
    case 'bigint':
      return 'Integer';
    case 'number':
      return 'Float';
    case 'string':
      return 'String';
  }
  if (Array.isArray(v)) return 'List';
  if (v instanceof NodeRef) return 'Node';
  if (v instanceof RelRef) return 'Relationship';
  if (v instanceof PathValue) return 'Path';
  return 'Map';
}
