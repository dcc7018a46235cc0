/**
 * GET /metrics on the real server: the Prometheus text format; every answer counted by
 * route, status and code, the transport's own answers (413, framing 400) included; the
 * writer's batches, commit latency and queue; the README's list of metrics is the list
 * the server serves. `--metrics false` is in test/http/request-ids.test.ts with the server
 * it starts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { countAllRequest, get, post, serverForFile, writeRequest } from '../helpers/server.js';
import { scrape, type Scrape } from '../helpers/metrics.js';
import { rawExchange, statusOf } from '../helpers/raw.js';
import { userProps } from '../../bench/lib/dataset.js';
import { nodeBatchRequest } from '../../bench/lib/load-trellis.js';

const server = serverForFile();
const port = () => Number(new URL(server.url()).port);

const REQUESTS = 'trellis_http_requests_total';
const addNode = (label: string) => writeRequest([{ query: { name: 'n', root: { add_n: { label, properties: [] } } } }], ['n']);

/** What rose between two scrapes, for the requests counter: `route status code` -> count. */
function requestDelta(before: Scrape, after: Scrape): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const s of after.samples) {
    if (s.name !== REQUESTS) continue;
    const rose = s.value - before.value(REQUESTS, s.labels);
    if (rose !== 0) delta[`${s.labels.route} ${s.labels.status} ${s.labels.code}`] = rose;
  }
  return delta;
}

test('GET /metrics answers the Prometheus text format, with the process metrics', async () => {
  const metrics = await scrape(server.url());
  assert.equal(metrics.contentType, 'text/plain; version=0.0.4; charset=utf-8');
  assert.match(metrics.text, /^# HELP trellis_http_requests_total /m);
  assert.match(metrics.text, /^# TYPE trellis_http_requests_total counter$/m);
  assert.match(metrics.text, /^# TYPE trellis_http_request_duration_seconds histogram$/m);
  assert.ok(metrics.value('trellis_process_resident_memory_bytes') > 0, 'the default process metrics are there');
  assert.equal(metrics.value('trellis_writer_up'), 1);
});

test('every answer is counted once by route, status and code, unknown paths as "other", transport answers too', async () => {
  const before = await scrape(server.url());
  for (let i = 0; i < 3; i++) assert.equal((await post(`${server.url()}/v2/query`, countAllRequest)).status, 200);
  assert.equal((await post(`${server.url()}/v2/query`, '{"request_type":')).status, 400);
  assert.equal((await get(`${server.url()}/healthz`)).status, 200);
  assert.equal((await get(`${server.url()}/readyz`)).status, 200);
  assert.equal((await get(`${server.url()}/v2/query`)).status, 405);
  assert.equal((await get(`${server.url()}/no/such/path?x=1`)).status, 404);
  assert.equal((await get(`${server.url()}/Another_unknown`)).status, 404);
  // Refused by the transport before any handler: a declared body over the limit (past the
  // drain limit, so the connection closes at once), and an ambiguous framing.
  const tooLarge = await rawExchange(port(), ['POST /v2/query HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n']);
  assert.equal(statusOf(tooLarge.out), 413);
  const framing = await rawExchange(port(), ['POST /v2/query HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}']);
  assert.equal(statusOf(framing.out), 400);
  const after = await scrape(server.url());

  assert.deepEqual(requestDelta(before, after), {
    // The first scrape is counted once it is answered, so the second one sees it.
    '/metrics 200 ok': 1,
    '/v2/query 200 ok': 3,
    '/v2/query 400 invalid_query_json': 1,
    '/healthz 200 ok': 1,
    '/readyz 200 ok': 1,
    '/v2/query 405 method_not_allowed': 1,
    'other 404 not_found': 2,
    '/v2/query 413 payload_too_large': 1,
    '/v2/query 400 invalid_request_framing': 1,
  });
  const count = (s: Scrape, route: string) => s.value('trellis_http_request_duration_seconds_count', { route });
  assert.equal(count(after, '/v2/query') - count(before, '/v2/query'), 7, 'the latency histogram saw every /v2/query answer');
  assert.equal(count(after, 'other') - count(before, 'other'), 2);
  assert.ok(
    after.samples.every(
      (s) => s.labels.route === undefined || ['/v2/query', '/healthz', '/readyz', '/metrics', 'other'].includes(s.labels.route),
    ),
    'no raw path becomes a route label',
  );
});

test('writes: batches committed and failed, their commit (and durable) latency; the queue is empty again after', async () => {
  const before = await scrape(server.url());
  for (let i = 0; i < 4; i++) assert.equal((await post(`${server.url()}/v2/query`, addNode('Counted'))).status, 200);
  const durable = await post(`${server.url()}/v2/query`, addNode('Durable'), { 'X-Svc-Await-Durable': 'true' });
  assert.equal(durable.status, 200, durable.text);
  // An edge to a node that does not exist fails in the writer, and keeps nothing.
  const missing = writeRequest([
    {
      query: {
        name: 'e',
        root: { add_e: { input: { nodes: { reference: { ids: [0] } } }, label: 'E', to: { ids: [999_999] }, properties: [] } },
      },
    },
  ]);
  const failed = await post(`${server.url()}/v2/query`, missing);
  assert.equal(failed.body?.error, 'node_not_found', failed.text);
  const after = await scrape(server.url());

  const rose = (name: string, labels?: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
  assert.equal(rose('trellis_writer_batches_committed_total'), 5);
  assert.equal(rose('trellis_writer_batches_failed_total', { code: 'node_not_found' }), 1);
  assert.equal(rose('trellis_writer_commit_seconds_count'), 4, 'plain batches: commit latency');
  assert.equal(rose('trellis_writer_durable_seconds_count'), 1, 'the await-durable batch: latency to the flush');
  assert.ok(rose('trellis_writer_commit_seconds_sum') > 0);
  assert.equal(after.value('trellis_writer_queue_depth'), 0);
  assert.equal(after.value('trellis_writer_restarts_total'), 0);
});

test('the writer queue depth counts a batch while the writer thread runs it', async () => {
  // One large load keeps the writer busy for a while; scrapes taken meanwhile see it waiting.
  const load = nodeBatchRequest(Array.from({ length: 50_000 }, (_, i) => userProps(1, i)));
  let answered = false;
  const write = post(`${server.url()}/v2/query`, load).finally(() => (answered = true));
  let deepest = 0;
  let scrapes = 0;
  while (!answered) {
    deepest = Math.max(deepest, (await scrape(server.url())).value('trellis_writer_queue_depth'));
    scrapes++;
  }
  const res = await write;
  assert.equal(res.status, 200, res.text.slice(0, 200));
  assert.equal(deepest, 1, `${scrapes} scrapes while the load ran: the queue depth never showed it`);
  assert.equal((await scrape(server.url())).value('trellis_writer_queue_depth'), 0);
});

test('README: the Observability section lists exactly the metrics the server serves (besides the process ones)', async () => {
  const readme = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
  const section = /^## Observability\n([\s\S]*?)^## /m.exec(readme)?.[1];
  assert.ok(section, 'README.md has an "## Observability" section');
  // A replica's own metrics (trellis_replica_*) are served by replicas only: test/replication/crash.test.ts.
  const documented = new Set(
    [...section.matchAll(/^\| `(trellis_[a-z_]+)`/gm)].map((m) => m[1]!).filter((name) => !name.startsWith('trellis_replica_')),
  );
  const { text } = await scrape(server.url());
  const served = new Set(
    [...text.matchAll(/^# TYPE (trellis_[a-z_]+) /gm)].map((m) => m[1]!).filter((name) => !/^trellis_(process|nodejs)_/.test(name)),
  );
  assert.deepEqual([...documented].sort(), [...served].sort());
});
