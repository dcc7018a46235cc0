/**
 * What the server does with every answer it writes (the transport's onAnswer, uws.ts),
 * its own 404s, 405s, 413s and framing 400s included: count it by route, status and code
 * when metrics are on, and log it. Every request is logged at `debug`; at `info` and
 * above only what needs a look: a 5xx at `error` (but a health check's 503, "not ready",
 * which is its answer), a request slower than a second at `warn`. Lines carry the
 * request's id (`req_id`), the one sent back in `x-request-id`.
 *
 * Metrics and logs name the route (routes.ts routeLabels), never the raw path, which the
 * client chooses: a path in a label would make a new series per path. A log line adds the
 * path, clipped, when it is not the route itself.
 */
import { clip } from '../core/clip.js';
import type { Logger } from '../observe/log.js';
import { codeOf, type RequestMetrics } from '../observe/metrics.js';
import type { AnswerListener } from './uws.js';

/** Requests slower than this are logged at `warn`. */
const SLOW_REQUEST_SECONDS = 1;
/**
 * Routes whose 503 is the answer asked for, not a failure: a health check that is not
 * ready yet (starting, a replica past its lag bound). A load balancer polls them; logging
 * each at `error` would bury the real ones.
 */
const HEALTH_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

export function observeAnswers(logger: Logger, metrics: RequestMetrics | null, routeOf: (path: string) => string): AnswerListener {
  // Read once: the level is fixed for the server's life, and the common answer (2xx, fast,
  // at `info`) then costs a comparison and no object; with metrics off, not even its route.
  const debug = logger.isLevelEnabled('debug');
  return (method, path, requestId, status, body, seconds) => {
    const slow = seconds >= SLOW_REQUEST_SECONDS;
    // Looked up for a 5xx only: the common answer pays nothing for it.
    const healthFailure = status >= 500 && HEALTH_ROUTES.has(path);
    const failed = status >= 500 && !healthFailure;
    const logged = debug || slow || failed;
    if (!logged && metrics === null) return;
    const route = routeOf(path);
    // A health check's 503 body is the contract's HealthResponse, which has no error code.
    const code = healthFailure && status === 503 ? 'not_ready' : codeOf(status, body);
    metrics?.observe(route, status, code, seconds);
    if (!logged) return;
    const ms = Math.round(seconds * 1e6) / 1000;
    const fields =
      route === path
        ? { req_id: requestId, method, route, status, code, ms }
        : { req_id: requestId, method, route, path: clip(path), status, code, ms };
    if (failed) logger.error(fields, 'request answered with a server error');
    else if (slow) logger.warn(fields, 'slow request');
    else logger.debug(fields, 'request');
  };
}
