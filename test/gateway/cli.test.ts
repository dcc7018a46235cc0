/**
 * `trellis gateway` as a user runs it: `key`, usage and configuration mistakes, `credit`
 * against a real Redis, and a gateway that starts while Redis is down (it serves, fails
 * closed, and reports not ready until Redis answers).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call, startTestGateway, testKey } from '../helpers/gateway.js';
import { redisSkip, startRedis, type TestRedis } from '../helpers/redis.js';
import { tempDir } from '../helpers/server.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;
const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'gateway', ...args], { encoding: 'utf8', timeout: 20_000 });

test('`gateway key` prints a new key and the SHA-256 digest to configure', () => {
  const out = run('key');
  assert.equal(out.status, 0, out.stderr);
  const { key, sha256 } = JSON.parse(out.stdout) as { key: string; sha256: string };
  assert.equal(createHash('sha256').update(key).digest('hex'), sha256);
  assert.notEqual(JSON.parse(run('key').stdout).key, key);
});

test('usage mistakes exit 2 with the usage; configuration mistakes exit 1 with one line', () => {
  const noConfig = run();
  assert.equal(noConfig.status, 2);
  assert.match(noConfig.stderr, /^trellis gateway: --config <file> is required\n\nUsage:/);
  assert.equal(run('--config', 'x.json', '--port', '99999').status, 2);
  const dir = tempDir();
  try {
    const file = join(dir.path, 'gw.json');
    writeFileSync(file, JSON.stringify({ mode: 'shared', redis: { url: 'redis://127.0.0.1:1' }, databases: {}, keys: [] }));
    const bad = run('--config', file);
    assert.equal(bad.status, 1);
    assert.equal(bad.stderr, `trellis gateway: ${file}: databases: names no database\n`);
    const missing = run('--config', join(dir.path, 'nope.json'));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^trellis gateway: cannot read the gateway configuration .*nope\.json: ENOENT/);
  } finally {
    dir.remove();
  }
});

describe('gateway credit and a late Redis', { skip: redisSkip() }, () => {
  let redis: TestRedis;
  const dir = tempDir();
  const file = join(dir.path, 'gw.json');
  before(async () => {
    redis = await startRedis();
    writeFileSync(
      file,
      JSON.stringify({ mode: 'shared', redis: { url: redis.url }, databases: { main: { writer: 'http://127.0.0.1:9' } }, keys: [] }),
    );
  });
  after(async () => {
    await redis?.stop();
    dir.remove();
  });

  test('`gateway credit` shows and changes a database credit state in Redis', async () => {
    assert.match(run('credit', '--config', file, '--database', 'main').stdout, /database "main": has credit/);
    assert.match(run('credit', '--config', file, '--database', 'main', '--exhausted').stdout, /credit exhausted/);
    assert.equal(await redis.command('GET', 'trellis:credit:{main}'), 'exhausted');
    assert.match(run('credit', '--config', file, '--database', 'main', '--restored').stdout, /has credit/);
    assert.equal(await redis.command('GET', 'trellis:credit:{main}'), null);
    const unknown = run('credit', '--config', file, '--database', 'other');
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /names no database "other"/);
  });

  test('a gateway started while Redis is down serves, fails closed, and becomes ready when Redis comes', async () => {
    await redis.stop();
    const key = testKey('k', { main: ['read'] });
    const gateway = await startTestGateway({
      mode: 'shared',
      redis: { url: redis.url },
      databases: { main: { writer: 'http://127.0.0.1:9' } },
      keys: [key],
    });
    try {
      assert.equal((await fetch(`${gateway.url}/readyz`)).status, 503);
      assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200);
      const read = { request_type: 'read', query: { read: { entries: [], returns: [] } } };
      const reply = await call(gateway.url, '/v2/query', read, { key: key.key, database: 'main' });
      assert.equal(reply.status, 503);
      assert.equal(reply.body.error, 'rate_limit_unavailable');
      await redis.restart();
      let ready = 0;
      for (const until = performance.now() + 10_000; performance.now() < until && ready !== 200;) {
        await new Promise((r) => setTimeout(r, 100));
        ready = (await fetch(`${gateway.url}/readyz`)).status;
      }
      assert.equal(ready, 200);
      // Admitted now: the writer of this database is not running, so the answer is the gateway's 503 for that.
      const admitted = await call(gateway.url, '/v2/query', read, { key: key.key, database: 'main' });
      assert.equal(admitted.body.error, 'backend_unavailable');
    } finally {
      await gateway.stop();
    }
  });
});
