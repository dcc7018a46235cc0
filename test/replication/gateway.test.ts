/**
 * The gateway in front of a writer and a replica (docs/replication.md, "Read-your-writes"),
 * all real: nats-server, Redis, the writer publishing its log, a replica following it, and
 * the gateway. A replica slowed on purpose (SIGSTOP and SIGCONT in turn) never gives a key
 * a read older than its own last write; a replica stopped outright stops receiving reads,
 * and after SIGCONT catches up and receives them again.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { natsSkip, startNats, type TestNats } from '../helpers/nats.js';
import { redisSkip, startRedis, type TestRedis } from '../helpers/redis.js';
import { call, startTestGateway, testKey } from '../helpers/gateway.js';

const skip = natsSkip() || redisSkip();
let nats: TestNats | undefined;
let redis: TestRedis | undefined;
const dirs: { remove(): void }[] = [];

before(async () => {
  if (skip !== false) return;
  nats = await startNats();
  redis = await startRedis();
});
after(async () => {
  await nats?.stop();
  await redis?.stop();
  for (const d of dirs) d.remove();
});

function folder(): string {
  const dir = tempDir('trellis-ryw-');
  dirs.push(dir);
  return dir.path;
}

const addNamed = (name: string) => ({
  request_type: 'write',
  query: {
    write: {
      entries: [{ query: { root: { add_n: { label: 'R', properties: [['name', { value: { string: name } }]] } } } }],
      returns: [],
    },
  },
});

const countNamed = (name: string) => ({
  request_type: 'read',
  query: {
    read: {
      entries: [
        {
          query: {
            name: 'c',
            root: {
              count: {
                input: { nodes_where: { predicate: { eq: { left: { property: 'name' }, right: { constant: { string: name } } } } } },
              },
            },
          },
        },
      ],
      returns: ['c'],
    },
  },
});

async function lsnOf(server: TestServer): Promise<number> {
  const res = await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(2000) });
  await res.text();
  return Number(res.headers.get('x-trellis-lsn') ?? 0);
}

test(
  'through the gateway: 1,000 write-then-read rounds against a lagging replica read every write; a replica stopped for 30 s gets no reads, then catches up',
  { skip },
  async () => {
    const stream = 'gateway-ryw';
    const writer = await startTestServer(['--data', folder(), '--nats', nats!.url, '--stream', stream]);
    const replica = await startTestServer([
      '--mode',
      'replica',
      '--data',
      folder(),
      '--nats',
      nats!.url,
      '--stream',
      stream,
      '--writer-url',
      writer.url,
    ]);
    const writerKey = testKey('writer-key', { db: ['read', 'write'] });
    const readerKey = testKey('reader-key', { db: ['read'] });
    const gateway = await startTestGateway({
      mode: 'cluster',
      redis: { url: redis!.url },
      rate_limit: false,
      databases: { db: { writer: writer.url, readers: [replica.url], attempt_budget_ms: 10_000 } },
      keys: [writerKey, readerKey],
    });
    let slowing: NodeJS.Timeout | undefined;
    try {
      // The replica lags on purpose: stopped and continued every 50 ms in turn.
      let stopped = false;
      slowing = setInterval(() => {
        stopped = !stopped;
        replica.proc.kill(stopped ? 'SIGSTOP' : 'SIGCONT');
      }, 50);
      let stale = 0;
      let fromReplica = 0;
      for (let i = 0; i < 1000; i++) {
        const name = `n${i}`;
        const w = await call(gateway.url, '/v2/query', addNamed(name), { key: writerKey.key });
        assert.equal(w.status, 200, w.text);
        assert.ok(Number(w.headers.get('x-trellis-lsn')) > 0, 'a write answer carries its LSN through the gateway');
        // Now and then the read waits a little, so the replica has caught up and is eligible.
        if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 300));
        const r = await call(gateway.url, '/v2/query', countNamed(name), { key: writerKey.key });
        assert.equal(r.status, 200, r.text);
        if (r.text !== '{"c":[1]}') stale++;
        if (r.headers.get('x-trellis-lsn') !== null) fromReplica++;
      }
      clearInterval(slowing);
      slowing = undefined;
      replica.proc.kill('SIGCONT');
      assert.equal(stale, 0, 'no read older than the key own last write');
      assert.ok(fromReplica > 0, 'the replica answered some of the reads (the test would otherwise only exercise the writer)');

      // Stopped outright for 30 s (issue 28): once its /readyz poll times out the gateway
      // sends it nothing, and writes and reads go on through the writer all along.
      replica.proc.kill('SIGSTOP');
      const stoppedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 2500));
      let last = 0;
      for (let i = 0; i < 30 || Date.now() - stoppedAt < 30_000; i++) {
        if (i >= 30) await new Promise((resolve) => setTimeout(resolve, 250));
        const w = await call(gateway.url, '/v2/query', addNamed(`stopped${i}`), { key: writerKey.key });
        last = Number(w.headers.get('x-trellis-lsn'));
        const started = Date.now();
        const r = await call(gateway.url, '/v2/query', countNamed(`n${i % 1000}`), { key: readerKey.key });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.headers.get('x-trellis-lsn'), null, 'the stopped replica got no read');
        assert.ok(Date.now() - started < 2000, 'no read waited on the stopped replica');
      }
      replica.proc.kill('SIGCONT');
      // It catches up, and the gateway sends it reads again.
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && (await lsnOf(replica)) < last) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok((await lsnOf(replica)) >= last, 'the replica caught up after SIGCONT');
      let served = false;
      for (let i = 0; i < 200 && !served; i++) {
        const r = await call(gateway.url, '/v2/query', countNamed('n1'), { key: readerKey.key });
        assert.equal(r.text, '{"c":[1]}');
        served = r.headers.get('x-trellis-lsn') !== null;
        if (!served) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(served, 'the replica receives reads again once it is ready');
    } finally {
      if (slowing !== undefined) clearInterval(slowing);
      replica.proc.kill('SIGCONT');
      await gateway.stop();
      await replica.stop();
      await writer.stop();
    }
  },
);
