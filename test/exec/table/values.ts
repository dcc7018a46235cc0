/**
 * Helpers of the value-semantics tests: Cypher maps from object literals, an in-memory
 * ElementAccess with a small graph, and an assertion on the Cypher error a call raises.
 */
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { mapSet, newMap, type CypherMap, type CypherValue } from '../../../src/core/cypher-value.js';
import { CypherError } from '../../../src/core/errors.js';
import { runtimeError, type ElementAccess } from '../../../src/exec/table/env.js';
import type { EdgeRecord, NodeRecord } from '../../../src/store/types.js';
import type { Value } from '../../../src/core/value.js';

/** A Cypher map (null-prototype, as the runtime makes them) from an object literal. */
export function map(entries: { [key: string]: CypherValue }): CypherMap {
  const out = newMap();
  for (const k of Object.keys(entries)) mapSet(out, k, entries[k]!);
  return out;
}

/**
 * Node 1 (:Person {name: 'Popeye', level: 9001}), node 2 without a label or properties,
 * relationship 10 (1)-[:KNOWS {since: 1999}]->(2); node 3 and relationship 11 were deleted.
 */
export function graph(): ElementAccess {
  const nodes = new Map<number, NodeRecord>([
    [1, { id: 1, label: 'Person', props: { name: 'Popeye', level: 9001n, $internal: 'hidden' } as { [k: string]: Value } }],
    [2, { id: 2, label: '', props: {} }],
  ]);
  const rels = new Map<number, EdgeRecord>([[10, { id: 10, label: 'KNOWS', from: 1, to: 2, props: { since: 1999n } }]]);
  return {
    node(id, at) {
      const rec = nodes.get(id);
      if (rec === undefined) throw runtimeError('entity_not_found', 'DeletedEntityAccess', `node ${id} was deleted`, at);
      return rec;
    },
    rel(id, at) {
      const rec = rels.get(id);
      if (rec === undefined) throw runtimeError('entity_not_found', 'DeletedEntityAccess', `relationship ${id} was deleted`, at);
      return rec;
    },
    relType(id, at) {
      // Relationship 11 was deleted by the statement: its type is still known.
      return id === 11 ? 'DELETED' : this.rel(id, at).label;
    },
    deleting() {},
  };
}

export const AT = { start: 7, end: 12 } as const;

/** Asserts that `fn` throws a runtime CypherError with this code and detail, pointing at AT. */
export function assertCypherError(fn: () => unknown, code: string, detail: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CypherError, `expected a CypherError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.equal(err.details.detail, detail);
    assert.equal(err.details.phase, 'runtime');
    assert.deepEqual(err.details.span, AT);
    return true;
  });
}

/** A value as text for assertion messages (bigints and null-prototype maps included). */
export const show = (v: unknown): string => inspect(v, { depth: 6, breakLength: Infinity });
