/**
 * Request options (DECISIONS D2): what the X-Svc-* headers ask for, independent of HTTP,
 * and the rules that tie them to the request type. Front ends parse them (src/server/
 * headers.ts); the query pipeline checks them once it knows the request type.
 */
import { GraphError } from './errors.js';

export interface RequestOptions {
  warm: boolean;
  requireWriter: boolean;
  /** Tri-state: absent, true or false; only `true` has an effect (and only on writes). */
  awaitDurable: boolean | undefined;
  databaseId: string | undefined;
  tenantId: string | undefined;
}

export type RequestType = 'read' | 'write';

/** Options that only make sense for one request type; `X-Svc-Await-Durable: false` on a read is accepted. */
export function checkOptionsForRequestType(opts: Pick<RequestOptions, 'warm' | 'awaitDurable'>, requestType: RequestType): void {
  if (opts.warm && requestType === 'write') {
    throw new GraphError('invalid_request_option', 'X-Svc-Warm is only valid for read requests');
  }
  if (opts.awaitDurable === true && requestType === 'read') {
    throw new GraphError('invalid_request_option', 'X-Svc-Await-Durable is only valid for write requests');
  }
}

/** The options the query pipeline needs, as bit flags for thread messages. */
export type PipelineOptions = Pick<RequestOptions, 'warm' | 'requireWriter' | 'awaitDurable'>;

const WARM = 1;
const REQUIRE_WRITER = 2;
const AWAIT_DURABLE_TRUE = 4;
const AWAIT_DURABLE_FALSE = 8;

export function optionFlags(o: PipelineOptions): number {
  return (
    (o.warm ? WARM : 0) |
    (o.requireWriter ? REQUIRE_WRITER : 0) |
    (o.awaitDurable === true ? AWAIT_DURABLE_TRUE : o.awaitDurable === false ? AWAIT_DURABLE_FALSE : 0)
  );
}

export function fromOptionFlags(flags: number): PipelineOptions {
  return {
    warm: (flags & WARM) !== 0,
    requireWriter: (flags & REQUIRE_WRITER) !== 0,
    awaitDurable: (flags & AWAIT_DURABLE_TRUE) !== 0 ? true : (flags & AWAIT_DURABLE_FALSE) !== 0 ? false : undefined,
  };
}
