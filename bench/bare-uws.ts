/**
 * The HTTP baseline: a bare uWebSockets.js server (one thread) that reads each POST body
 * and answers a fixed JSON body, the same bytes as a typical point-read response. It is
 * the ceiling for "uWS plus nothing" on this machine, measured in the same run as Trellis.
 *
 *   node dist/bench/bare-uws.js '<response body>'
 *
 * Prints `bare-uws listening on PORT` then `bare-uws ready`.
 */
import uws from 'uWebSockets.js';

const body = process.argv[2] ?? '{}';
const app = uws.App();
app.post('/*', (res) => {
  res.onAborted(() => undefined);
  // Drain the request body as a real handler must before answering.
  res.onData((_chunk, isLast) => {
    if (isLast) res.cork(() => res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(body));
  });
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    console.error('bare-uws: could not listen');
    process.exit(1);
  }
  console.log(`bare-uws listening on ${uws.us_socket_local_port(socket)}`);
  console.log('bare-uws ready');
});
const stop = () => process.exit(0);
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
