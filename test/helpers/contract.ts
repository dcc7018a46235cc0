/**
 * The answer contract every request to the server is held to, whatever it sent (the fuzz
 * suite's oracle): an answer arrives; its status is below 500; it is application/json in
 * valid UTF-8; a non-200 body is exactly {"error", "msg"}, both strings, with a code of
 * ERROR_REGISTRY answered with that code's status; a 200 body is an object of arrays (or
 * of index DDL receipts and statuses, the contract's objects), or, for a GET of the health
 * route, the health body (`ready` a boolean, `mode` a string), and for a GET of `/`, the
 * explorer's page (text/html).
 * Error messages are never compared.
 */
import { ERROR_REGISTRY, isErrorCode } from '../../src/core/errors.js';
import { showBytes, type RawOutcome } from './raw-http.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What was asked, where it changes what a 200 may be. */
export interface Asked {
  /** A GET of /healthz: its 200 is the health body, not query results. */
  readonly health?: boolean;
  /** A GET of /: its 200 is the explorer's HTML page (docs/explorer.md), not JSON. */
  readonly page?: boolean;
}

/** What is wrong with an answer, or undefined when it keeps the contract. */
export function judge(outcome: RawOutcome, asked: Asked = {}): string | undefined {
  if (outcome.kind !== 'response') return `no answer (${outcome.kind}: ${outcome.detail}; ${outcome.received.length} bytes received)`;
  const { status, headers, body } = outcome.response;
  if (status >= 500) return `status ${status}`;
  if (asked.page === true && status === 200)
    return /^text\/html\b/.test(headers.get('content-type') ?? '') ? undefined : `page answer: content-type ${headers.get('content-type')}`;
  if (!/^application\/json\b/.test(headers.get('content-type') ?? '')) return `content-type ${headers.get('content-type')}`;
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return 'the body is not valid UTF-8';
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'the body is not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the body is not a JSON object';
  const obj = value as Record<string, unknown>;
  if (status === 200 && asked.health === true) {
    if (typeof obj.ready !== 'boolean' || typeof obj.mode !== 'string')
      return 'health answer: "ready" is not a boolean or "mode" not a string';
    return undefined;
  }
  if (status === 200) {
    for (const [k, v] of Object.entries(obj))
      if (!Array.isArray(v) && !isIndexAnswer(v)) return `200 answer: "${k}" is not an array (nor an index receipt or status)`;
    return undefined;
  }
  const keys = Object.keys(obj).sort();
  if (keys.length !== 2 || keys[0] !== 'error' || keys[1] !== 'msg') return `error body keys ${JSON.stringify(keys)}`;
  if (typeof obj.error !== 'string' || typeof obj.msg !== 'string') return 'error or msg is not a string';
  if (!isErrorCode(obj.error)) return `unknown error code "${obj.error}"`;
  if (ERROR_REGISTRY[obj.error].status !== status)
    return `code ${obj.error} has status ${ERROR_REGISTRY[obj.error].status} in the registry, answered ${status}`;
  return undefined;
}

/**
 * An index DDL result, the one value a batch returns as an object (v2 wire §5.10): a
 * receipt (`kind` accepted, existing_operation or already_active) or an operation's status.
 */
function isIndexAnswer(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  if (['accepted', 'existing_operation', 'already_active'].includes(o.kind as string)) return true;
  return typeof o.operation_id === 'string' && ['queued', 'running', 'blocked', 'succeeded', 'aborted'].includes(o.status as string);
}

/** The answer (or its absence) in a line, for failure reports. */
export function describeOutcome(outcome: RawOutcome): string {
  if (outcome.kind !== 'response') return `${outcome.kind} after ${outcome.ms} ms: ${showBytes(outcome.received, 300)}`;
  return `${outcome.response.status} ${showBytes(outcome.response.body, 500)}`;
}
