/**
 * Runs every example of docs/cypher.md, in order, on one fresh embedded database through
 * Database.cypherText (the body of POST /v2/cypher), so the page cannot drift from what the
 * code answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { open } from '../../src/index.js';
import { tempDir } from '../helpers/server.js';
import { checkExample, examples } from '../helpers/doc-examples.js';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/cypher.md', import.meta.url)), 'utf8');

test('docs/cypher.md: the examples give the documented responses, in order on one fresh database', async (t) => {
  const list = examples(doc);
  assert.ok(list.length >= 10, `expected at least 10 examples, found ${list.length}`);
  const dir = tempDir('trellis-cypher-docs-');
  const db = await open(dir.path);
  try {
    for (const ex of list) await t.test(ex.title, () => checkExample((body) => db.cypherText(body), ex, 'docs/cypher.md'));
  } finally {
    await db.close();
    dir.remove();
  }
});
