/**
 * The one msgpackr codec for thread messages. It keeps the value kinds apart that JSON
 * and structured clone would blur: bigint (i64) vs number (f64), typed arrays, DateTime.
 */
import { Packr } from 'msgpackr';
import type { QueryPlan } from '../plan/batch.js';
import { PACKR_OPTIONS, registerValueExtensions } from '../value-msgpack.js';
import type { PlanMessage } from './messages.js';

registerValueExtensions();
const packr = new Packr(PACKR_OPTIONS);

export function encodeMessage(message: unknown): Uint8Array {
  return packr.pack(message);
}

export function decodeMessage<T>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}

export function toPlanMessage(plan: QueryPlan): PlanMessage {
  return { type: plan.type, queryName: plan.queryName, batch: plan.batch, params: [...plan.params] };
}

export function fromPlanMessage(message: PlanMessage): QueryPlan {
  return { type: message.type, queryName: message.queryName, batch: message.batch, params: new Map(message.params) };
}
