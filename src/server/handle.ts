/**
 * Transport-free request handling: the route table and the /v2/query pipeline in the
 * reference's order of checks (server-gateway §2.3): headers, body (size checked by the
 * transport), JSON and plan, header/request-type compatibility, writer availability,
 * readiness, execution.
 */
import { GraphError, statusOf, toErrorBody, type ErrorBody } from '../errors.js';
import { preparePlan } from '../database.js';
import { checkOptionsForRequestType, parseRequestOptions } from './headers.js';
import type { Handler, HttpRequest, HttpResponse } from './http-types.js';
import { createRouter } from './routes.js';
import type { QueryService } from './service.js';

const JSON_TYPE = { 'content-type': 'application/json' };

export function errorResponse(body: ErrorBody): HttpResponse {
  return { status: statusOf(body.error), headers: JSON_TYPE, body: JSON.stringify({ error: body.error, msg: body.msg }) };
}

async function handleQuery(service: QueryService, req: HttpRequest): Promise<HttpResponse> {
  try {
    const options = parseRequestOptions(req.headers);
    const plan = preparePlan(req.body);
    checkOptionsForRequestType(options, plan.type);
    if (service.mode === 'reader' && (plan.type === 'write' || options.requireWriter)) {
      throw new GraphError(
        'writer_mode_required',
        plan.type === 'write' ? 'this server is in reader mode; send writes to a writer' : 'X-Svc-Require-Writer is set but this server is in reader mode',
      );
    }
    // Only start-up blocks every query; a writer thread being replaced fails writes alone
    // (the service answers not_ready for them) while reads carry on.
    if (service.health().index_runtime !== 'ready') throw new GraphError('not_ready', 'the database is still opening; retry shortly');
    const reply = plan.type === 'read' ? await service.read(plan) : await service.write(plan, options.awaitDurable === true);
    return reply.ok ? { status: 200, headers: JSON_TYPE, body: reply.body } : errorResponse(reply.error);
  } catch (err) {
    return errorResponse(toErrorBody(err));
  }
}

function healthResponse(service: QueryService, strict: boolean): HttpResponse {
  const health = service.health();
  return { status: strict && !health.ready ? 503 : 200, headers: JSON_TYPE, body: JSON.stringify(health) };
}

export function createHandler(service: QueryService): Handler {
  return createRouter([
    { method: 'POST', path: '/v2/query', handler: (req) => handleQuery(service, req) },
    { method: 'GET', path: '/healthz', handler: () => healthResponse(service, false) },
    { method: 'GET', path: '/readyz', handler: () => healthResponse(service, true) },
  ]);
}
