/**
 * Runs every example of docs/queries.md, in order, on one fresh embedded database, and the
 * curl examples of README.md on another, so the documentation cannot drift from what the
 * code answers. The block convention is described at the top of docs/queries.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { open } from '../../src/index.js';
import { parseJson } from '../../src/core/json.js';
import { tempDir } from '../helpers/server.js';
import { checkExample, examples } from '../helpers/doc-examples.js';

const ROOT = new URL('../../../', import.meta.url);
const read = (file: string) => readFileSync(fileURLToPath(new URL(file, ROOT)), 'utf8');

async function withFreshDb(fn: (query: (body: string) => Promise<string>) => Promise<void>): Promise<void> {
  const dir = tempDir('trellis-docs-');
  const db = await open(dir.path);
  try {
    await fn((body) => db.queryText(body));
  } finally {
    await db.close();
    dir.remove();
  }
}

test('the block parser insists on a response after every request', () => {
  const fence = '```';
  const ok = `${fence}json request title="a"\n{}\n${fence}\n\ntext\n\n${fence}json response\n{}\n${fence}\n`;
  assert.equal(examples(ok).length, 1);
  assert.throws(() => examples(`${fence}json request\n{}\n${fence}\n`), /no response block/);
  assert.throws(() => examples(`${fence}json request\n{}\n${fence}\n${fence}json\n{}\n${fence}\n`), /no response block/);
  assert.throws(() => examples(`${fence}json response\n{}\n${fence}\n`), /must directly follow/);
});

test('docs/queries.md: every request block has its response block', () => {
  const list = examples(read('docs/queries.md'));
  assert.ok(list.length >= 15, `expected at least 15 examples, found ${list.length}`);
  for (const ex of list) {
    assert.doesNotThrow(() => parseJson(ex.request), `line ${ex.line}: request is not valid JSON`);
    assert.doesNotThrow(() => parseJson(ex.response.body), `line ${ex.response.line}: response is not valid JSON`);
  }
});

test('docs/queries.md: the examples give the documented responses, in order on one fresh database', async (t) => {
  const list = examples(read('docs/queries.md'));
  await withFreshDb(async (query) => {
    for (const ex of list) await t.test(ex.title, () => checkExample(query, ex, 'docs/queries.md'));
  });
});

/** The `curl ... -d '<body>'` commands of README.md, each followed by a `# <response>` line. */
function readmeExamples(markdown: string): { body: string; response: string }[] {
  const out: { body: string; response: string }[] = [];
  for (const m of markdown.matchAll(/^curl [^\n]*?-d '([^']*)'\n# (.*)$/gm)) out.push({ body: m[1]!, response: m[2]! });
  return out;
}

test('README.md: the curl examples give the responses shown', async () => {
  const list = readmeExamples(read('README.md'));
  assert.equal(list.length, 2, 'README.md should hold two curl -d examples, each followed by a "# <response>" line');
  await withFreshDb(async (query) => {
    for (const [i, ex] of list.entries()) {
      assert.deepEqual(parseJson(await query(ex.body)), parseJson(ex.response), `README curl example ${i + 1}`);
    }
  });
});
