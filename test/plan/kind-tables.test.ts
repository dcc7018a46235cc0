/**
 * Every per-operation table is a mapped type over `OpKind`: the catalogue of traits, the
 * payload checks, the wire schemas and the executors. Adding a kind to the union without an
 * entry in each must not compile. The type checks below run when the tests are built (`tsc`
 * fails on an unused `@ts-expect-error`); the test asserts at run time that the tables
 * agree on the kinds they hold.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOG } from '../../src/plan/catalog.js';
import { PAYLOAD_CHECKS } from '../../src/plan/validate.js';
import type { OpKind } from '../../src/plan/ops.js';
import { OPS } from '../../src/wire/ops.js';
import { EXECUTORS } from '../../src/exec/registry.js';

/** A copy of the union of kinds with one more, as declaring a new operation in ops.ts makes it. */
type WithNewKind = OpKind | 'new_kind';
type TableOf<Kinds extends string> = { readonly [K in Kinds]: unknown };

// Complete for today's kinds...
const complete: readonly TableOf<OpKind>[] = [CATALOG, PAYLOAD_CHECKS, OPS, EXECUTORS];

// ...and refused as tables of the union with one kind more.
// @ts-expect-error the catalogue has no entry for 'new_kind'
const catalog: TableOf<WithNewKind> = CATALOG;
// @ts-expect-error the payload checks have no entry for 'new_kind'
const payloadChecks: TableOf<WithNewKind> = PAYLOAD_CHECKS;
// @ts-expect-error the wire schemas have no entry for 'new_kind'
const wire: TableOf<WithNewKind> = OPS;
// @ts-expect-error the executors have no entry for 'new_kind'
const executors: TableOf<WithNewKind> = EXECUTORS;

test('every per-operation table holds exactly the same kinds', () => {
  const kinds = Object.keys(CATALOG).sort();
  assert.ok(kinds.length > 70, `the catalogue lists ${kinds.length} kinds`);
  for (const table of [...complete, catalog, payloadChecks, wire, executors]) assert.deepEqual(Object.keys(table).sort(), kinds);
});
