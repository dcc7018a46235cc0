import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphError } from '../../src/core/errors.js';
import { checkOptionsForRequestType, parseRequestOptions, type RequestOptions } from '../../src/server/headers.js';

const parse = (entries: Record<string, string>) => parseRequestOptions(new Map(Object.entries(entries)));

function rejects(fn: () => unknown, msg: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof GraphError);
    assert.equal(err.code, 'invalid_request_option');
    assert.equal(err.status, 400);
    assert.equal(err.msg, msg);
    return true;
  });
}

const BOOLEANS = [
  ['warm', 'warm'],
  ['require-writer', 'requireWriter'],
  ['await-durable', 'awaitDurable'],
] as const;

test('no headers: defaults, await-durable unset', () => {
  assert.deepEqual(parse({}), { warm: false, requireWriter: false, awaitDurable: undefined, databaseId: undefined, tenantId: undefined });
});

for (const [suffix, field] of BOOLEANS) {
  test(`x-svc-${suffix}: every accepted boolean form, under both names`, () => {
    const forms: [string, boolean][] = [
      ['true', true],
      ['TRUE', true],
      ['True', true],
      ['tRuE', true],
      ['1', true],
      [' true ', true],
      ['\t1', true],
      ['false', false],
      ['FALSE', false],
      ['False', false],
      ['0', false],
      ['  0  ', false],
    ];
    for (const prefix of ['x-svc-', 'x-helix-']) {
      for (const [value, expected] of forms) {
        assert.equal(parse({ [`${prefix}${suffix}`]: value })[field], expected, `${prefix}${suffix}: ${JSON.stringify(value)}`);
      }
    }
  });

  test(`x-svc-${suffix}: anything else is invalid_request_option naming the header as sent`, () => {
    for (const prefix of ['x-svc-', 'x-helix-']) {
      for (const value of ['', ' ', 'yes', 'no', 'on', '2', '01', 'truee', 't', 'null']) {
        rejects(() => parse({ [`${prefix}${suffix}`]: value }), `${prefix}${suffix} must be true, false, 1 or 0, got "${value}"`);
      }
    }
  });

  test(`x-svc-${suffix}: the canonical header wins over the alias`, () => {
    assert.equal(parse({ [`x-svc-${suffix}`]: 'true', [`x-helix-${suffix}`]: 'false' })[field], true);
    assert.equal(parse({ [`x-svc-${suffix}`]: 'false', [`x-helix-${suffix}`]: 'true' })[field], false);
    // The alias is not even looked at when the canonical header is present.
    assert.equal(parse({ [`x-svc-${suffix}`]: '0', [`x-helix-${suffix}`]: 'garbage' })[field], false);
    rejects(
      () => parse({ [`x-svc-${suffix}`]: 'garbage', [`x-helix-${suffix}`]: '1' }),
      `x-svc-${suffix} must be true, false, 1 or 0, got "garbage"`,
    );
  });
}

test('await-durable is tri-state', () => {
  assert.equal(parse({}).awaitDurable, undefined);
  assert.equal(parse({ 'x-svc-await-durable': 'false' }).awaitDurable, false);
  assert.equal(parse({ 'x-svc-await-durable': 'true' }).awaitDurable, true);
});

test('database id: trimmed, alias accepted, canonical wins, empty rejected', () => {
  assert.equal(parse({ 'x-svc-database-id': ' 01HZX ' }).databaseId, '01HZX');
  assert.equal(parse({ 'x-helix-database-id': 'db2' }).databaseId, 'db2');
  assert.equal(parse({ 'x-svc-database-id': 'a', 'x-helix-database-id': 'b' }).databaseId, 'a');
  rejects(() => parse({ 'x-svc-database-id': '' }), 'x-svc-database-id must not be empty');
  rejects(() => parse({ 'x-helix-database-id': '   ' }), 'x-helix-database-id must not be empty');
});

test('tenant id: trimmed, alias accepted, canonical wins, empty treated as absent', () => {
  assert.equal(parse({ 'x-svc-tenant-id': ' t1 ' }).tenantId, 't1');
  assert.equal(parse({ 'x-helix-tenant-id': 't2' }).tenantId, 't2');
  assert.equal(parse({ 'x-svc-tenant-id': 'a', 'x-helix-tenant-id': 'b' }).tenantId, 'a');
  assert.equal(parse({ 'x-svc-tenant-id': '' }).tenantId, undefined);
});

test('all options together', () => {
  assert.deepEqual(
    parse({
      'x-svc-warm': '1',
      'x-helix-require-writer': 'TRUE',
      'x-svc-await-durable': '0',
      'x-svc-database-id': 'd',
      'x-helix-tenant-id': 't',
    }),
    { warm: true, requireWriter: true, awaitDurable: false, databaseId: 'd', tenantId: 't' },
  );
});

test('checkOptionsForRequestType', () => {
  const opts = (o: Partial<RequestOptions>): RequestOptions => ({ ...parse({}), ...o });
  checkOptionsForRequestType(opts({ warm: true }), 'read');
  checkOptionsForRequestType(opts({ awaitDurable: true }), 'write');
  checkOptionsForRequestType(opts({ awaitDurable: false }), 'read');
  checkOptionsForRequestType(opts({ awaitDurable: false }), 'write');
  checkOptionsForRequestType(opts({ warm: false, requireWriter: true }), 'write');
  checkOptionsForRequestType(opts({ requireWriter: true }), 'read');
  rejects(() => checkOptionsForRequestType(opts({ warm: true }), 'write'), 'X-Svc-Warm is only valid for read requests');
  rejects(() => checkOptionsForRequestType(opts({ awaitDurable: true }), 'read'), 'X-Svc-Await-Durable is only valid for write requests');
});

const OPTION_NAMES = ['warm', 'require-writer', 'await-durable', 'database-id', 'tenant-id'].flatMap((s) => [`x-svc-${s}`, `x-helix-${s}`]);
const parseRepeated = (entries: Record<string, string[]>) =>
  parseRequestOptions(new Map(Object.entries(entries).map(([k, v]) => [k, v[0]!])), new Map(Object.entries(entries)));

test('an option header sent twice with different values is invalid_request_option naming it', () => {
  for (const name of OPTION_NAMES) {
    rejects(() => parseRepeated({ [name]: ['1', '0'] }), `${name} is sent 2 times with different values ("1" and "0"); send it once`);
    rejects(
      () => parseRepeated({ [name]: ['1', '1', 'true'] }),
      `${name} is sent 3 times with different values ("1" and "true"); send it once`,
    );
  }
});

test('an option header repeated with the same value is accepted', () => {
  assert.equal(parseRepeated({ 'x-svc-warm': ['true', 'true'] }).warm, true);
  assert.equal(parseRepeated({ 'x-helix-database-id': ['d', 'd', 'd'] }).databaseId, 'd');
  // Other repeated headers are none of this parser's business.
  assert.equal(parseRepeated({ accept: ['a', 'b'], 'x-svc-warm': ['0'] }).warm, false);
});

test('a repeated alias with different values is 400 even when the canonical header is present', () => {
  rejects(
    () => parseRepeated({ 'x-svc-warm': ['true'], 'x-helix-warm': ['true', 'false'] }),
    'x-helix-warm is sent 2 times with different values ("true" and "false"); send it once',
  );
});

test('canonical and alias with different values: the canonical one wins (not an error)', () => {
  assert.equal(parseRepeated({ 'x-svc-warm': ['false'], 'x-helix-warm': ['true'] }).warm, false);
  assert.equal(parseRepeated({ 'x-svc-database-id': ['a'], 'x-helix-database-id': ['b'] }).databaseId, 'a');
});

test('messages quote at most 200 characters of a header value', () => {
  const long = 'v'.repeat(65536);
  const cut = `${'v'.repeat(200)}…(cut, 65536 characters)`;
  rejects(() => parse({ 'x-svc-warm': long }), `x-svc-warm must be true, false, 1 or 0, got "${cut}"`);
  rejects(
    () => parseRepeated({ 'x-svc-tenant-id': [long, 'b'] }),
    `x-svc-tenant-id is sent 2 times with different values ("${cut}" and "b"); send it once`,
  );
});
