/** The gateway's answers: error bodies from the registry, each with the request's id. */
import { errorReply, type ErrorCode } from '../core/errors.js';
import { REQUEST_ID_HEADER } from '../observe/log.js';
import type { HttpResponse } from '../server/http-types.js';

export function gatewayError(requestId: string, error: ErrorCode, msg: string, extra?: Record<string, string>): HttpResponse {
  return { ...errorReply({ error, msg }), headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId, ...extra } };
}
