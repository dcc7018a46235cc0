import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { bearerToken, digestOf, KeyRing, newKey } from '../../src/gateway/keys.js';
import type { KeyConfig } from '../../src/gateway/config.js';

function keyConfig(name: string, key: string): KeyConfig {
  return { name, sha256: digestOf(key).toString('hex'), databases: new Map(), metrics: false };
}

test('a new key is long and random, and its digest is the SHA-256 of the key text', () => {
  const a = newKey();
  const b = newKey();
  assert.notEqual(a.key, b.key);
  assert.match(a.key, /^trk_[A-Za-z0-9_-]{43}$/);
  assert.equal(a.sha256, createHash('sha256').update(a.key).digest('hex'));
});

test('the key ring finds a key by its digest and nothing else', () => {
  const ring = new KeyRing([keyConfig('one', 'secret-one'), keyConfig('two', 'secret-two')]);
  assert.equal(ring.find('secret-one')?.name, 'one');
  assert.equal(ring.find('secret-two')?.name, 'two');
  assert.equal(ring.find('secret-thre'), undefined);
  assert.equal(ring.find(''), undefined);
  assert.equal(ring.find(digestOf('secret-one').toString('hex')), undefined, 'the digest itself is not a key');
});

test('Authorization must be "Bearer <token>"; anything else is malformed', () => {
  assert.equal(bearerToken('Bearer abc.DEF-_~+/=='), 'abc.DEF-_~+/==');
  assert.equal(bearerToken('bearer abc'), 'abc', 'the scheme is case-insensitive');
  assert.equal(bearerToken(undefined), undefined);
  for (const bad of ['', 'Bearer', 'Bearer ', 'Basic abc', 'Bearer a b', 'Bearer a=b', 'Token abc', 'Bearerabc']) {
    assert.equal(bearerToken(bad), undefined, bad);
  }
});
