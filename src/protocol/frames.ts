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

/** Both frames are one table: [u32 count], per entry `fields` u32 and a payload length, then the payloads. */
interface Entry {
  readonly fields: readonly number[];
  readonly payload: Uint8Array;
}

/** One buffer of its own (transferable). */
function encodeTable(entries: readonly Entry[], fields: number): Uint8Array {
  const stride = 4 * (fields + 1);
  let size = HEAD + entries.length * stride;
  for (const e of entries) size += e.payload.byteLength;
  const out = new Uint8Array(new ArrayBuffer(size));
  const view = new DataView(out.buffer);
  view.setUint32(0, entries.length, true);
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

function decodeTable(bytes: Uint8Array, fields: number): Entry[] {
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
  return out;
}

export function encodeRequests(requests: readonly RequestFrame[]): Uint8Array {
  return encodeTable(
    requests.map((r) => ({ fields: [r.flags], payload: r.body })),
    1,
  );
}

export function decodeRequests(bytes: Uint8Array): RequestFrame[] {
  return decodeTable(bytes, 1).map((e) => ({ flags: e.fields[0]!, body: e.payload }));
}

const encoder = new TextEncoder();

export function encodeAnswers(
  answers: readonly (AnswerFrame | { readonly kind: 'response'; readonly status: number; readonly text: string })[],
): Uint8Array {
  return encodeTable(
    answers.map((a) =>
      a.kind === 'write'
        ? { fields: [1, a.awaitDurable ? 1 : 0], payload: a.plan }
        : { fields: [0, a.status], payload: 'text' in a ? encoder.encode(a.text) : a.body },
    ),
    2,
  );
}

export function decodeAnswers(bytes: Uint8Array): AnswerFrame[] {
  return decodeTable(bytes, 2).map(({ fields: [kind, status], payload }) =>
    kind === 1 ? { kind: 'write', awaitDurable: status === 1, plan: payload } : { kind: 'response', status: status!, body: payload },
  );
}
