/**
 * The gateway's error answers: bodies from the registry. The request's id is not set here:
 * the transport writes `x-request-id` on every answer (start.ts, `requestId`).
 */
import { errorReply, type ErrorCode } from '../core/errors.js';
import type { HttpResponse } from '../server/http-types.js';

export function gatewayError(error: ErrorCode, msg: string, extra?: Record<string, string>): HttpResponse {
  return { ...errorReply({ error, msg }), headers: { 'content-type': 'application/json', ...extra } };
}
