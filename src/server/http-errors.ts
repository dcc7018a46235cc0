/**
 * Error answers of the HTTP routes, the server's and the gateway's alike: the body
 * `{"error","msg"}` and the status from the error registry (src/core/errors.ts), never
 * written by hand, so a code always travels with its status.
 */
import { errorReply, type AnswerRoute, type ErrorBody, type ErrorCode } from '../core/errors.js';
import type { HttpResponse } from './http-types.js';

/** The answer for `error` with `msg`; `headers` adds to the JSON content type (e.g. `allow`, `retry-after`). */
export function errorResponse(error: ErrorCode, msg: string, headers?: Record<string, string>): HttpResponse {
  return errorBodyResponse({ error, msg }, headers);
}

/**
 * The answer for an error body (a thrown error's toErrorBody, a reply from a thread), with
 * its status on `route` (D16: named queries answer some codes with another status).
 */
export function errorBodyResponse(body: ErrorBody, headers?: Record<string, string>, route: AnswerRoute = 'any'): HttpResponse {
  return { ...errorReply(body, route), headers: { 'content-type': 'application/json', ...headers } };
}
