/**
 * Binary frames for the read pool: every /v2/query request of one event-loop turn goes to
 * a worker as one buffer (raw bodies, unparsed), and comes back as one buffer of answers.
 * The main thread then neither parses JSON nor encodes messages per request: a task is a
 * copy of the bodies, a reply is the response bytes the socket sends.
 *
 * Task:   [u32 count] then per request [u32 flags, u32 length], then the bodies.
 * Answer: [u32 count] then per answer [u32 kind, u32 status, u32 length], then payloads:
 *         kind 0 is a response body (UTF-8 JSON, with `status`), kind 1 a write plan
 *         (msgpack PlanMessage) for the writer, with `status` 1 when it awaits durability.
 */
const HEAD = 4;

export interface RequestFrame {
  readonly flags: number;
  readonly body: Uint8Array;
}

export type AnswerFrame =
  | { readonly kind: 'response'; readonly status: number; readonly body: Uint8Array }
  | { readonly kind: 'write'; readonly awaitDurable: boolean; readonly plan: Uint8Array };

/** One buffer of its own (transferable) holding the requests. */
export function encodeRequests(requests: readonly RequestFrame[]): Uint8Array {
  let size = HEAD + requests.length * 8;
  for (const r of requests) size += r.body.byteLength;
  const out = new Uint8Array(new ArrayBuffer(size));
  const view = new DataView(out.buffer);
  view.setUint32(0, requests.length, true);
  let at = HEAD + requests.length * 8;
  requests.forEach((r, i) => {
    view.setUint32(HEAD + i * 8, r.flags, true);
    view.setUint32(HEAD + i * 8 + 4, r.body.byteLength, true);
    out.set(r.body, at);
    at += r.body.byteLength;
  });
  return out;
}

export function decodeRequests(bytes: Uint8Array): RequestFrame[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(0, true);
  const out: RequestFrame[] = [];
  let at = HEAD + count * 8;
  for (let i = 0; i < count; i++) {
    const flags = view.getUint32(HEAD + i * 8, true);
    const length = view.getUint32(HEAD + i * 8 + 4, true);
    out.push({ flags, body: bytes.subarray(at, at + length) });
    at += length;
  }
  return out;
}

const encoder = new TextEncoder();

export function encodeAnswers(answers: readonly (AnswerFrame | { readonly kind: 'response'; readonly status: number; readonly text: string })[]): Uint8Array {
  const payloads = answers.map((a) => ('text' in a ? encoder.encode(a.text) : a.kind === 'write' ? a.plan : a.body));
  let size = HEAD + answers.length * 12;
  for (const p of payloads) size += p.byteLength;
  const out = new Uint8Array(new ArrayBuffer(size));
  const view = new DataView(out.buffer);
  view.setUint32(0, answers.length, true);
  let at = HEAD + answers.length * 12;
  answers.forEach((a, i) => {
    const p = payloads[i]!;
    view.setUint32(HEAD + i * 12, a.kind === 'write' ? 1 : 0, true);
    view.setUint32(HEAD + i * 12 + 4, a.kind === 'write' ? (a.awaitDurable ? 1 : 0) : a.status, true);
    view.setUint32(HEAD + i * 12 + 8, p.byteLength, true);
    out.set(p, at);
    at += p.byteLength;
  });
  return out;
}

export function decodeAnswers(bytes: Uint8Array): AnswerFrame[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(0, true);
  const out: AnswerFrame[] = [];
  let at = HEAD + count * 12;
  for (let i = 0; i < count; i++) {
    const kind = view.getUint32(HEAD + i * 12, true);
    const status = view.getUint32(HEAD + i * 12 + 4, true);
    const length = view.getUint32(HEAD + i * 12 + 8, true);
    const payload = bytes.subarray(at, at + length);
    out.push(kind === 1 ? { kind: 'write', awaitDurable: status === 1, plan: payload } : { kind: 'response', status, body: payload });
    at += length;
  }
  return out;
}
