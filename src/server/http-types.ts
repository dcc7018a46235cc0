/**
 * The transport-neutral request/response shapes. Handlers see only these, so the query
 * pipeline can be tested without sockets and the HTTP library can change behind uws.ts.
 */
export interface HttpRequest {
  /** Uppercase, e.g. `GET`. */
  method: string;
  /** The path without the query string, as sent (not percent-decoded). */
  path: string;
  /** Lowercase names; when a header is repeated, the first value is here (see `repeated`). */
  headers: ReadonlyMap<string, string>;
  /**
   * The names sent more than once, each with all its values in the order sent; undefined
   * (the common case, nothing allocated) when no name was repeated.
   */
  repeated?: ReadonlyMap<string, readonly string[]>;
  body: Buffer;
  /** What a transport's beforeBody hook learned from the head (the gateway's key and database). */
  context?: unknown;
  /**
   * The request's id (the caller's `x-request-id` when acceptable, else a new one), sent
   * back in `x-request-id`; undefined when the transport names no requests.
   */
  id?: string | undefined;
}

export interface HttpResponse {
  status: number;
  /** `content-type: application/json` is added unless set here; `content-length` is always computed. */
  headers?: Record<string, string>;
  /** `''` for none. */
  body: string | Uint8Array;
  /**
   * Called once the transport has taken the body's bytes (uWS sends or copies them before
   * `end` returns), so the buffer may be used again: the writer's snapshot pieces.
   */
  sent?: () => void;
}

export type Handler = (req: HttpRequest) => Promise<HttpResponse> | HttpResponse;
