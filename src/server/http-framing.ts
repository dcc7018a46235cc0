/**
 * The transport's checks of a request's head that need no socket: its method's name, and
 * framing that another HTTP parser in front could read differently from uWS (request
 * smuggling). uWS frames a body by the first Content-Length and reads any
 * Transfer-Encoding as chunked; a proxy may have used another Content-Length, or a
 * coding uWS ignores. uws.ts answers these 400 `invalid_request_framing` and closes.
 */
import { clip } from '../core/clip.js';
import type { HttpResponse } from './http-types.js';

const METHODS: Record<string, string> = {
  get: 'GET',
  post: 'POST',
  head: 'HEAD',
  put: 'PUT',
  delete: 'DELETE',
  options: 'OPTIONS',
  patch: 'PATCH',
};

/** The method as HttpRequest has it (uppercase), from uWS's lowercase name. */
export function methodName(raw: string): string {
  return METHODS[raw] ?? raw.toUpperCase();
}

function quoteAll(values: readonly string[]): string {
  return clip(values.map((v) => `"${clip(v)}"`).join(', '));
}

function differ(values: readonly string[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i] !== values[0]) return true;
  return false;
}

/** Why the body's length is ambiguous (Content-Length sent with different values), or null. */
export function ambiguousLength(repeated: ReadonlyMap<string, readonly string[]> | undefined): string | null {
  const lengths = repeated?.get('content-length');
  if (lengths === undefined || !differ(lengths)) return null;
  return `Content-Length is sent ${lengths.length} times with different values (${quoteAll(lengths)}); the body's length is ambiguous`;
}

/**
 * For a request without Content-Length: why its Transfer-Encoding is refused (anything but
 * one `chunked`), or null.
 */
export function unsafeTransferEncoding(
  headers: ReadonlyMap<string, string>,
  repeated: ReadonlyMap<string, readonly string[]> | undefined,
): string | null {
  const coding = headers.get('transfer-encoding');
  if (coding === undefined || (coding.toLowerCase() === 'chunked' && repeated?.has('transfer-encoding') !== true)) return null;
  const sent = quoteAll(repeated?.get('transfer-encoding') ?? [coding]);
  return `Transfer-Encoding must be "chunked" alone, got ${sent}; send chunked or a Content-Length`;
}

/** Whether a handler's answer can be written: a status from 200 to 599 and a string or byte body. */
export function isValidResponse(r: unknown): r is HttpResponse {
  if (typeof r !== 'object' || r === null) return false;
  const { status, body } = r as HttpResponse;
  return Number.isInteger(status) && status >= 200 && status <= 599 && (typeof body === 'string' || body instanceof Uint8Array);
}
