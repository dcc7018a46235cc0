/**
 * Binary frames for the read pool: the /v2/query requests of one task go to a worker as one
 * buffer (raw bodies, unparsed), and come back as one buffer of answers. The main thread
 * then neither parses JSON nor encodes messages per request: a task is a copy of the
 * bodies, a reply is the response bytes the socket sends.
 *
 * Task:   [u32 count][u32 sliceMs] then per request [u32 flags, u32 spentMs, u32 queryId,
 *         u32 route, u32 length], then the bodies. sliceMs 0: run every request to the
 *         end; otherwise a read that runs longer is stopped and answered `preempted` (it
 *         goes to the heavy lane). spentMs: execution time the request already had in
 *         earlier attempts. route: what the body is (RequestRoute: a /v2/query request, a
 *         Cypher statement to run or to explain, or the parameters of a call of a named
 *         query). queryId: which named query (its place in the project's list the
 *         threads were started with), 0 for the other routes.
 * Answer: [u32 count][u32 0] then per answer [u32 kind, u32 status, u32 length], then
 *         payloads: kind 0 is a response body (UTF-8 JSON, with `status`), kind 1 a write
 *         plan (msgpack PlanMessage) for the writer, with `status` 1 when it awaits
 *         durability, kind 2 a preempted read, with `status` its execution time so far.
 */
import type { RequestRoute } from './messages.js';

/** Count and one u32 of the whole frame (the slice of a task). */
const HEAD = 8;

const ROUTES: readonly RequestRoute[] = ['query', 'cypher', 'cypher_explain', 'named', 'import'];

export interface RequestFrame {
  /** request-options.ts optionFlags. */
  readonly flags: number;
  /** Execution time (ms) the request had in earlier, preempted attempts. */
  readonly spentMs: number;
  /** The named query a `named` request calls (its place in the project's list); 0 otherwise. */
  readonly queryId: number;
  readonly route: RequestRoute;
  readonly body: Uint8Array;
}

export interface TaskFrame {
  /** Preempt reads running longer than this (ms); 0: never. */
  readonly sliceMs: number;
  readonly requests: readonly RequestFrame[];
}

export type AnswerFrame =
  | { readonly kind: 'response'; readonly status: number; readonly body: Uint8Array; readonly lsn?: number }
  | { readonly kind: 'write'; readonly awaitDurable: boolean; readonly plan: Uint8Array }
  | { readonly kind: 'preempted'; readonly spentMs: number };

/** Both frames are one table: [u32 count], per entry `fields` u32 and a payload length, then the payloads. */
interface Entry {
  readonly fields: readonly number[];
  readonly payload: Uint8Array;
}

/** One buffer of its own (transferable). */
function encodeTable(entries: readonly Entry[], fields: number, extra = 0): Uint8Array {
  const stride = 4 * (fields + 1);
  let size = HEAD + entries.length * stride;
  for (const e of entries) size += e.payload.byteLength;
  const out = new Uint8Array(new ArrayBuffer(size));
  const view = new DataView(out.buffer);
  view.setUint32(0, entries.length, true);
  view.setUint32(4, extra, true);
  let at = HEAD + entries.length * stride;
  entries.forEach((e, i) => {
    const row = HEAD + i * stride;
    for (let f = 0; f < fields; f++) view.setUint32(row + 4 * f, e.fields[f]!, true);
    view.setUint32(row + 4 * fields, e.payload.byteLength, true);
    out.set(e.payload, at);
    at += e.payload.byteLength;
  });
  return out;
}

function decodeTable(bytes: Uint8Array, fields: number): { extra: number; entries: Entry[] } {
  const stride = 4 * (fields + 1);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(0, true);
  const out: Entry[] = [];
  let at = HEAD + count * stride;
  for (let i = 0; i < count; i++) {
    const row = HEAD + i * stride;
    const values: number[] = [];
    for (let f = 0; f < fields; f++) values.push(view.getUint32(row + 4 * f, true));
    const length = view.getUint32(row + 4 * fields, true);
    out.push({ fields: values, payload: bytes.subarray(at, at + length) });
    at += length;
  }
  return { extra: view.getUint32(4, true), entries: out };
}

export function encodeTask(task: TaskFrame): Uint8Array {
  return encodeTable(
    task.requests.map((r) => ({ fields: [r.flags, r.spentMs, r.queryId, ROUTES.indexOf(r.route)], payload: r.body })),
    4,
    task.sliceMs,
  );
}

export function decodeTask(bytes: Uint8Array): TaskFrame {
  const { extra, entries } = decodeTable(bytes, 4);
  return {
    sliceMs: extra,
    requests: entries.map((e) => ({
      flags: e.fields[0]!,
      spentMs: e.fields[1]!,
      queryId: e.fields[2]!,
      route: ROUTES[e.fields[3]!] ?? 'query',
      body: e.payload,
    })),
  };
}

const encoder = new TextEncoder();

/** An answer as a thread makes it: a response may still be text (encodeAnswers writes it as UTF-8). */
export type AnswerToEncode =
  AnswerFrame | { readonly kind: 'response'; readonly status: number; readonly text: string; readonly lsn?: number };

/** An LSN in two u32 fields, plus one (0: none); LSNs pass 2^32 within months at a thousand batches a second. */
const LSN_SPLIT = 2 ** 32;
function lsnFields(lsn: number | undefined): [number, number] {
  if (lsn === undefined) return [0, 0];
  const n = lsn + 1;
  return [n % LSN_SPLIT, Math.floor(n / LSN_SPLIT)];
}

const EMPTY = new Uint8Array(0);

function answerEntry(a: AnswerToEncode): Entry {
  switch (a.kind) {
    case 'write':
      return { fields: [1, a.awaitDurable ? 1 : 0, 0, 0], payload: a.plan };
    case 'preempted':
      return { fields: [2, Math.min(0xffffffff, Math.round(a.spentMs)), 0, 0], payload: EMPTY };
    default:
      return { fields: [0, a.status, ...lsnFields(a.lsn)], payload: 'text' in a ? encoder.encode(a.text) : a.body };
  }
}

export function encodeAnswers(answers: readonly AnswerToEncode[]): Uint8Array {
  return encodeTable(answers.map(answerEntry), 4);
}

export function decodeAnswers(bytes: Uint8Array): AnswerFrame[] {
  return decodeTable(bytes, 4).entries.map(({ fields: [kind, status, lsnLow, lsnHigh], payload }): AnswerFrame => {
    if (kind === 1) return { kind: 'write', awaitDurable: status === 1, plan: payload };
    if (kind === 2) return { kind: 'preempted', spentMs: status! };
    const lsn = lsnLow! + lsnHigh! * LSN_SPLIT - 1;
    return lsn < 0 ? { kind: 'response', status: status!, body: payload } : { kind: 'response', status: status!, body: payload, lsn };
  });
}
