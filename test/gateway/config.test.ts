import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayConfigError, parseGatewayConfig } from '../../src/gateway/config.js';

const DIGEST = 'a'.repeat(64);

function file(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    mode: 'shared',
    redis: { url: 'redis://127.0.0.1:6379' },
    databases: { main: { writer: 'http://127.0.0.1:6969' } },
    keys: [{ name: 'app', sha256: DIGEST, databases: { main: ['read', 'write'] } }],
    ...overrides,
  });
}

function rejects(text: string, pattern: RegExp): void {
  assert.throws(
    () => parseGatewayConfig('gw.json', text),
    (err: unknown) => err instanceof GatewayConfigError && pattern.test(err.message) && err.message.startsWith('gw.json: '),
  );
}

test('defaults: port 8080 on loopback, the idea plan, a 30 s budget, rate limiting and metrics on', () => {
  const config = parseGatewayConfig('gw.json', file());
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8080);
  assert.equal(config.rateLimit, true);
  assert.equal(config.metrics, true);
  assert.equal(config.maxBodyBytes, 2 * 1024 * 1024);
  assert.deepEqual(config.redis, { url: 'redis://127.0.0.1:6379', keyPrefix: 'trellis:', deadlineMs: 50, reserveMs: 10 });
  const main = config.databases.get('main')!;
  assert.deepEqual(main.limits, { rate: 5, burst: 10 });
  assert.equal(main.attemptBudgetMs, 30_000);
  assert.deepEqual(main.readers, []);
  assert.deepEqual([...config.keys[0]!.databases.get('main')!].sort(), ['read', 'write']);
});

test("HelixDB's tiers are plans; a database's own rate, burst and budget override its plan", () => {
  const config = parseGatewayConfig(
    'gw.json',
    file({
      plans: { big: { rate: 100, burst: 150 } },
      attempt_budget_ms: 5000,
      databases: {
        a: { writer: 'http://127.0.0.1:1/', plan: 'growth' },
        b: { writer: 'http://127.0.0.1:2', plan: 'startup', burst: 99 },
        c: { writer: 'http://127.0.0.1:3', plan: 'big', rate: 0.5, attempt_budget_ms: 100, readers: ['http://127.0.0.1:4/'] },
      },
      keys: [],
    }),
  );
  assert.deepEqual(config.databases.get('a')!.limits, { rate: 20, burst: 40 });
  assert.equal(config.databases.get('a')!.writer, 'http://127.0.0.1:1');
  assert.equal(config.databases.get('a')!.attemptBudgetMs, 5000);
  assert.deepEqual(config.databases.get('b')!.limits, { rate: 10, burst: 99 });
  assert.deepEqual(config.databases.get('c')!.limits, { rate: 0.5, burst: 150 });
  assert.equal(config.databases.get('c')!.attemptBudgetMs, 100);
  assert.deepEqual(config.databases.get('c')!.readers, ['http://127.0.0.1:4']);
});

test('mistakes name the file, the path and what is wrong', () => {
  rejects('{', /cannot read it as JSON/);
  rejects(file({ mode: 'both' }), /mode/);
  rejects(file({ extra: 1 }), /unknown key "extra"/);
  rejects(file({ databases: { main: { writer: 'ftp://x' } } }), /databases\.main\.writer/);
  rejects(file({ databases: { main: { writer: 'http://h', plan: 'gold' } } }), /databases\.main\.plan: unknown plan "gold"/);
  rejects(file({ databases: { main: { writer: 'http://h', rate: 0 } } }), /databases\.main\.rate/);
  rejects(file({ databases: {} }), /databases: names no database/);
  rejects(file({ keys: [{ name: 'k', sha256: 'xyz', databases: {} }] }), /keys\.0\.sha256/);
  rejects(
    file({ keys: [{ name: 'k', sha256: DIGEST, databases: { other: ['read'] } }] }),
    /names database "other", which is not in "databases"/,
  );
  rejects(file({ keys: [{ name: 'k', sha256: DIGEST, databases: { main: ['admin'] } }] }), /keys\.0\.databases/);
  rejects(
    file({
      keys: [
        { name: 'a', sha256: DIGEST, databases: {} },
        { name: 'b', sha256: DIGEST.toUpperCase(), databases: {} },
      ],
    }),
    /keys\.1\.sha256: the same key digest appears twice/,
  );
  rejects(
    file({ mode: 'cluster', databases: { a: { writer: 'http://h' }, b: { writer: 'http://h' } }, keys: [] }),
    /cluster-mode gateway serves exactly one database, this file names 2/,
  );
  rejects(file({ redis: { url: 'http://x' } }), /redis\.url/);
  rejects(file({ redis: { url: 'redis://h', reserve_ms: -1 } }), /redis\.reserve_ms/);
  rejects(file({ redis: { url: 'redis://h', reserve_ms: 1.5 } }), /redis\.reserve_ms/);
  rejects(file({ redis: { url: 'redis://h', reserve_ms: 1001 } }), /redis\.reserve_ms/);
  rejects(file({ redis: { url: 'unix://relative/redis.sock' } }), /redis\.url: must be a Redis URL .*unix:\/\/\//);
});

test('redis.reserve_ms sets how far ahead a gateway reserves tokens; 0 sends every admission to Redis', () => {
  assert.equal(parseGatewayConfig('gw.json', file({ redis: { url: 'redis://h', reserve_ms: 0 } })).redis.reserveMs, 0);
  assert.equal(parseGatewayConfig('gw.json', file({ redis: { url: 'redis://h', reserve_ms: 250 } })).redis.reserveMs, 250);
});

test('Redis on a unix socket: unix:///path', () => {
  const config = parseGatewayConfig('gw.json', file({ redis: { url: 'unix:///run/redis/redis.sock?db=2' } }));
  assert.equal(config.redis.url, 'unix:///run/redis/redis.sock?db=2');
});
