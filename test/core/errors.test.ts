import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_REGISTRY, GraphError, toErrorBody } from '../../src/core/errors.js';
import { renderErrorsDoc } from '../../src/core/errors-doc.js';

test('docs/errors.md is the rendering of the registry', () => {
  const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  assert.equal(doc, renderErrorsDoc(), 'run `npm run docs:errors` after changing src/core/errors.ts');
});

test('every code is snake_case with a 4xx/5xx status and a meaning', () => {
  for (const [code, spec] of Object.entries(ERROR_REGISTRY)) {
    assert.match(code, /^[a-z][a-z0-9_]*$/);
    assert.ok(spec.status >= 400 && spec.status < 600, code);
    assert.ok(spec.meaning.length > 10, code);
  }
});

test('foreign errors become internal_error without leaking their message', () => {
  assert.deepEqual(toErrorBody(new TypeError('x is undefined at /secret/path.js')), {
    error: 'internal_error',
    msg: 'internal error (TypeError)',
  });
  assert.deepEqual(toErrorBody(new GraphError('invalid_query', 'p: bad')), { error: 'invalid_query', msg: 'p: bad' });
});
