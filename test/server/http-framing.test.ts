/** The transport's pure checks (src/server/http-framing.ts, http-status.ts, http-errors.ts), without sockets. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_REGISTRY, type ErrorCode } from '../../src/core/errors.js';
import { errorBodyResponse, errorResponse } from '../../src/server/http-errors.js';
import { ambiguousLength, isValidResponse, methodName, unsafeTransferEncoding } from '../../src/server/http-framing.js';
import { statusLine } from '../../src/server/http-status.js';

const headers = (entries: Record<string, string>) => new Map(Object.entries(entries));

test('status lines: the reason phrase of a known status, a neutral one for another', () => {
  assert.equal(statusLine(200), '200 OK');
  assert.equal(statusLine(404), '404 Not Found');
  assert.equal(statusLine(413), '413 Payload Too Large');
  assert.equal(statusLine(429), '429 Too Many Requests');
  assert.equal(statusLine(599), '599 Status 599');
  assert.equal(statusLine(599), '599 Status 599', 'the second call answers the kept line');
  for (const code of Object.keys(ERROR_REGISTRY) as ErrorCode[]) {
    const status = ERROR_REGISTRY[code].status;
    assert.doesNotMatch(statusLine(status), /Status/, `the status of ${code} (${status}) has its reason phrase`);
  }
});

test('methods: uWS lowercase names become the uppercase ones handlers see, unknown ones uppercased', () => {
  assert.deepEqual(['get', 'post', 'head', 'delete', 'brew'].map(methodName), ['GET', 'POST', 'HEAD', 'DELETE', 'BREW']);
});

test('Content-Length sent twice: ambiguous only when the values differ', () => {
  assert.equal(ambiguousLength(undefined), null);
  assert.equal(ambiguousLength(new Map([['content-length', ['5', '5']]])), null);
  const msg = ambiguousLength(new Map([['content-length', ['5', '6', '5']]]));
  assert.equal(msg, 'Content-Length is sent 3 times with different values ("5", "6", "5"); the body\'s length is ambiguous');
});

test('Transfer-Encoding: one "chunked" (any case) passes; another coding, a list or a repeat is refused', () => {
  assert.equal(unsafeTransferEncoding(headers({}), undefined), null);
  assert.equal(unsafeTransferEncoding(headers({ 'transfer-encoding': 'Chunked' }), undefined), null);
  assert.match(unsafeTransferEncoding(headers({ 'transfer-encoding': 'gzip, chunked' }), undefined)!, /got "gzip, chunked"/);
  const repeated = new Map([['transfer-encoding', ['chunked', 'chunked']]]);
  assert.match(
    unsafeTransferEncoding(headers({ 'transfer-encoding': 'chunked' }), repeated)!,
    /got "chunked", "chunked"; send chunked or a Content-Length$/,
  );
});

test('valid handler answers: a status from 200 to 599 and a string or byte body', () => {
  assert.ok(isValidResponse({ status: 200, body: '' }));
  assert.ok(isValidResponse({ status: 599, body: new Uint8Array(1) }));
  for (const bad of [
    null,
    7,
    { status: 199, body: '' },
    { status: 600, body: '' },
    { status: 200.5, body: '' },
    { status: 200, body: 7 },
    { status: 200 },
  ])
    assert.equal(isValidResponse(bad), false, JSON.stringify(bad));
});

test('error answers take their status from the registry, and on named queries the D16 status', () => {
  const notFound = errorResponse('not_found', 'no route', { allow: 'POST' });
  assert.deepEqual(notFound, {
    status: 404,
    headers: { 'content-type': 'application/json', allow: 'POST' },
    body: '{"error":"not_found","msg":"no route"}',
  });
  assert.equal(errorResponse('payload_too_large', 'x').status, 413);
  assert.equal(errorBodyResponse({ error: 'node_not_found', msg: 'x' }).status, 400);
  assert.equal(errorBodyResponse({ error: 'node_not_found', msg: 'x' }, undefined, 'named_query').status, 404);
  assert.equal(errorBodyResponse({ error: 'invalid_query', msg: 'x' }, undefined, 'named_query').status, 400);
});
