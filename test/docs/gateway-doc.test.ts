/**
 * docs/gateway.md against the code: the example configuration it points to loads, the key
 * it quotes matches the example's digest, every code of its status table is in the error
 * registry with that status, and every configuration key it documents is one the loader
 * accepts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { ERROR_REGISTRY, isErrorCode } from '../../src/core/errors.js';
import { loadGatewayConfig } from '../../src/gateway/config.js';
import { KeyRing } from '../../src/gateway/keys.js';
import { gatewaySuite, type TestKey } from '../helpers/gateway.js';
import { redisSkip } from '../helpers/redis.js';

const ROOT = new URL('../../../', import.meta.url);
const path = (file: string) => fileURLToPath(new URL(file, ROOT));
const doc = readFileSync(path('docs/gateway.md'), 'utf8');

test('the example configuration loads, and the key the doc quotes is its key', () => {
  const config = loadGatewayConfig(path('docs/gateway.example.json'));
  const quoted = /Bearer (trk_[A-Za-z0-9_]+)/.exec(doc)?.[1];
  assert.ok(quoted, 'the doc quotes a key');
  assert.equal(new KeyRing(config.keys).find(quoted)?.name, 'example');
  assert.equal(config.databases.get('main')?.readers.length, 1);
});

test('every row of the status table names a registered code with its status', () => {
  const table = doc.slice(doc.indexOf('## Statuses'), doc.indexOf('## Rate limit and credit'));
  const listed: string[] = [];
  for (const line of table.split('\n')) {
    const m = /^\| (\d{3}) \| `([a-z_]+)` \|/.exec(line);
    if (m === null) continue;
    const [, status, code] = m;
    listed.push(code!);
    assert.ok(isErrorCode(code!), `${code} is in the registry`);
    assert.equal(ERROR_REGISTRY[code as keyof typeof ERROR_REGISTRY].status, Number(status), code);
  }
  // Every code the gateway itself answers with (the registry's "Gateway" entries and the
  // checks it shares with the server) has its row.
  const gatewayCodes = Object.entries(ERROR_REGISTRY)
    .filter(([, spec]) => spec.meaning.startsWith('Gateway'))
    .map(([code]) => code);
  for (const code of [
    ...gatewayCodes,
    'invalid_request',
    'invalid_request_option',
    'invalid_query_json',
    'query_timeout',
    'payload_too_large',
  ]) {
    assert.ok(listed.includes(code), `${code} has a row in the status table`);
  }
});

test('the configuration table documents the keys the loader accepts', () => {
  const table = doc.slice(doc.indexOf('## Configuration'), doc.indexOf('## Order of checks'));
  const documented = new Set([...table.matchAll(/^\| `([a-z_.<>[\]]+)`/gm)].map((m) => m[1]!.replace(/\..*/, '').replace(/\[\]$/, '')));
  for (const key of [
    'mode',
    'host',
    'redis',
    'rate_limit',
    'attempt_budget_ms',
    'plans',
    'default_plan',
    'databases',
    'keys',
    'log_level',
    'metrics',
    'explorer',
  ]) {
    assert.ok(documented.has(key), `${key} is documented`);
  }
});

describe('the curl examples of the local set-up, through a real gateway', { skip: redisSkip() }, () => {
  const example = loadGatewayConfig(path('docs/gateway.example.json'));
  const key = /Bearer (trk_[A-Za-z0-9_]+)/.exec(doc)![1]!;
  const docKey: TestKey = { name: 'example', key, sha256: example.keys[0]!.sha256, databases: { main: ['read', 'write'] } };
  const suite = gatewaySuite({
    file: ({ redis, writer }) => ({ mode: 'shared', redis: { url: redis }, databases: { main: { writer } }, keys: [docKey] }),
  });

  test('each curl of the set-up answers what the doc says', async () => {
    const setup = doc.slice(doc.indexOf('## Local set-up'), doc.indexOf('## Configuration'));
    const block = setup.slice(setup.indexOf('curl -s localhost:8080'));
    const calls = [...block.matchAll(/-d '([^']*)'\n# (\{.*?\})(?:\s|$)/g)];
    assert.equal(calls.length, 2);
    for (const [, body, expected] of calls) {
      const res = await fetch(`${suite.gateway.url}/v2/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'x-svc-database-id': 'main' },
        body: body!,
      });
      assert.deepEqual(await res.json(), JSON.parse(expected!));
    }
  });
});
