/**
 * Routing behind the gateway with real servers: a writer and two `--mode reader` servers
 * on the same data folder. Writes and X-Svc-Require-Writer reads reach the writer; other
 * reads are spread over all three; warming reads fan out and answer 204; a reader killed
 * mid-load costs nothing and loses no write; a dead writer is 503; a slow answer is 408.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, gatewaySuite, testKey } from '../helpers/gateway.js';
import { parseMetrics, queriesServed } from '../helpers/metrics.js';
import { redisSkip } from '../helpers/redis.js';
import { countLabel, readRequest, writeRequest } from '../helpers/server.js';

const LIMITS = { rate: 0.001, burst: 1_000_000 };
const key = testKey('app', { main: ['read', 'write'], dead: ['read', 'write'], slow: ['read', 'write'] }, true);
const COUNT = readRequest([countLabel('n', 'Item')], ['n']);
const addItem = (i: number) =>
  writeRequest([{ query: { name: 'n', root: { add_n: { label: 'Item', properties: [['i', { value: { i64: i } }]] } } } }], ['n']);

/** A read of `rows` for_each iterations: enough work to outlast a budget of a few ms. */
function slowRead(rows: number): unknown {
  return {
    request_type: 'read',
    parameters: { rows: Array.from({ length: rows }, (_, i) => ({ i })) },
    query: { read: { entries: [{ for_each: { param: 'rows', body: [countLabel('n', 'Item')] } }], returns: [] } },
  };
}

describe('gateway routing', { skip: redisSkip() }, () => {
  const suite = gatewaySuite({
    readers: 2,
    file: ({ redis, writer, readers }) => ({
      mode: 'shared',
      redis: { url: redis },
      databases: {
        main: { writer, readers, ...LIMITS },
        dead: { writer: 'http://127.0.0.1:9', ...LIMITS },
        slow: { writer, attempt_budget_ms: 20, ...LIMITS },
      },
      keys: [key],
    }),
  });

  /** The gateway's count of failed attempts on the servers of a database in a role. */
  const failures = async (database: string, role: 'writer' | 'reader') => {
    const res = await fetch(`${suite.gateway.url}/metrics`, { headers: { authorization: `Bearer ${key.key}` } });
    return parseMetrics(await res.text())
      .filter((s) => s.name === 'trellis_gateway_backend_failures_total' && s.labels.database === database && s.labels.role === role)
      .reduce((sum, s) => sum + s.value, 0);
  };
  const served = async () => Promise.all([suite.writer, ...suite.readers].map((s) => queriesServed(s.url)));
  const delta = (a: number[], b: number[]) => b.map((x, i) => x - a[i]!);
  const send = (body: unknown, headers: Record<string, string> = {}, database = 'main') =>
    call(suite.gateway.url, '/v2/query', body, { key: key.key, database, headers });

  test('writes reach the writer alone; reads are spread over the readers and the writer', async () => {
    const start = await served();
    for (let i = 0; i < 5; i++) assert.equal((await send(addItem(i))).status, 200);
    const afterWrites = await served();
    assert.deepEqual(delta(start, afterWrites), [5, 0, 0]);
    const replies = await Promise.all(Array.from({ length: 60 }, () => send(COUNT)));
    for (const r of replies) assert.equal(r.status, 200, r.text);
    const spread = delta(afterWrites, await served());
    assert.equal(
      spread.reduce((a, b) => a + b, 0),
      60,
    );
    for (const n of spread) assert.ok(n > 0, `every server took some reads: ${spread.join(', ')}`);
    // The readers see the writer's commits.
    assert.ok(
      replies.every((r) => r.body.n[0] === 5),
      JSON.stringify(replies.map((r) => r.body)),
    );
  });

  test('X-Svc-Require-Writer reads reach the writer alone', async () => {
    const start = await served();
    for (let i = 0; i < 6; i++) assert.equal((await send(COUNT, { 'x-svc-require-writer': 'true' })).status, 200);
    assert.deepEqual(delta(start, await served()), [6, 0, 0]);
  });

  test('a warming read fans out to every server, answers 204 with no body, and costs one token', async () => {
    const start = await served();
    const tokens = await suite.limiter.peek('main', LIMITS);
    const reply = await send(COUNT, { 'x-svc-warm': 'true' });
    assert.equal(reply.status, 204);
    assert.equal(reply.text, '');
    assert.deepEqual(delta(start, await served()), [1, 1, 1]);
    assert.equal(Math.round(tokens! - (await suite.limiter.peek('main', LIMITS))!), 1);
    const writerOnly = await send(COUNT, { 'x-svc-warm': 'true', 'x-svc-require-writer': 'true' });
    assert.equal(writerOnly.status, 204);
    assert.deepEqual(delta(start, await served()), [2, 1, 1]);
  });

  test('a database whose writer is down is 503 backend_unavailable, for reads and writes, each attempt counted', async () => {
    const before = await failures('dead', 'writer');
    for (const body of [COUNT, addItem(-1)]) {
      const reply = await send(body, {}, 'dead');
      assert.equal(reply.status, 503);
      assert.equal(reply.body.error, 'backend_unavailable');
    }
    // The read tried the one server once; the refused write was sent once more, 100 ms later.
    assert.equal((await failures('dead', 'writer')) - before, 3);
  });

  test('past the attempt budget the answer is 408 query_timeout, and the msg says a write may still land', async () => {
    const reply = await send(slowRead(120_000), {}, 'slow');
    assert.equal(reply.status, 408, reply.text);
    assert.equal(reply.body.error, 'query_timeout');
    assert.match(reply.body.msg, /budget of 20 ms; a write's outcome is unknown/);
  });

  test('a reader killed mid-load: every read is answered, every acknowledged write is kept, one token each', async () => {
    const before = await suite.limiter.peek('main', LIMITS);
    const failedBefore = await failures('main', 'reader');
    const acknowledged: number[] = [];
    let reads = 0;
    let sent = 0;
    let next = 1000;
    const refused: string[] = [];
    const deadline = performance.now() + 3000;
    const client = async () => {
      while (performance.now() < deadline) {
        const write = sent % 5 === 0;
        const i = next++;
        sent++;
        const reply = await send(write ? addItem(i) : COUNT);
        if (reply.status !== 200) refused.push(`${reply.status} ${reply.text}`);
        else if (write) acknowledged.push(i);
        else reads++;
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, client));
    await new Promise((r) => setTimeout(r, 1000));
    await suite.readers[0]!.kill9();
    await load;
    assert.deepEqual(refused, []);
    assert.ok(reads > 50, `reads answered: ${reads}`);
    const count = await send(COUNT, { 'x-svc-require-writer': 'true' });
    assert.equal(count.body.n[0], 5 + acknowledged.length, 'every acknowledged write is in the database');
    const spent = Math.round(before! - (await suite.limiter.peek('main', LIMITS))!);
    // Reads did meet the dead reader, and were answered by another server at no token.
    assert.ok((await failures('main', 'reader')) > failedBefore, 'a read failed on the killed reader and was retried');
    assert.equal(spent, sent + 1, 'one token per request, retries free');
  });
});
