/**
 * The one msgpackr codec for thread messages. It keeps the value kinds apart that JSON
 * and structured clone would blur: bigint (i64) vs number (f64), typed arrays, DateTime,
 * and -0.0 (markNegativeZeros).
 */
import { Packr } from 'msgpackr';
import type { QueryPlan } from '../plan/batch.js';
import { markNegativeZeros, PACKR_OPTIONS, registerValueExtensions } from '../core/value-msgpack.js';
import type { Value } from '../core/value.js';
import { tableArray, tableOf, tabulate, type RowTable } from '../core/row-table.js';
import type { PlanMessage } from './messages.js';

registerValueExtensions();
const packr = new Packr(PACKR_OPTIONS);

export function encodeMessage(message: unknown): Uint8Array {
  return packr.pack(markNegativeZeros(message));
}

export function decodeMessage<T>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}

/** A plan for the writer: arrays of uniform rows (bulk loads) travel as row tables. */
export function toPlanMessage(plan: QueryPlan): PlanMessage {
  const params: [string, Value][] = [];
  const tables: [string, RowTable][] = [];
  for (const [name, value] of plan.params) {
    const table = tableOf(value) ?? tabulate(value);
    if (table === null) params.push([name, value]);
    else tables.push([name, table]);
  }
  return { type: plan.type, queryName: plan.queryName, batch: plan.batch, params, tables };
}

export function fromPlanMessage(message: PlanMessage): QueryPlan {
  const params = new Map(message.params);
  for (const [name, table] of message.tables) params.set(name, tableArray(table));
  return { type: message.type, queryName: message.queryName, batch: message.batch, params };
}
