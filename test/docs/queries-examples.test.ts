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
import { statusOf, toErrorBody } from '../../src/core/errors.js';
import { tempDir } from '../helpers/server.js';
import { fencedBlocks, type Block } from '../helpers/markdown.js';

const ROOT = new URL('../../../', import.meta.url);
const read = (file: string) => readFileSync(fileURLToPath(new URL(file, ROOT)), 'utf8');

interface Expected {
  readonly body: string;
  readonly status: number;
  /** Compare the response text (whitespace outside strings ignored), not just the parsed value. */
  readonly exact: boolean;
  readonly line: number;
}

interface Example {
  readonly title: string;
  readonly request: string;
  readonly line: number;
  readonly response: Expected;
}

const isRequest = (b: Block) => /^json\s+request\b/.test(b.info);
const isResponse = (b: Block) => /^json\s+response\b/.test(b.info);

/** Request/response pairs; a request without a response right after it (or the reverse) is an error. */
function examples(markdown: string): Example[] {
  const blocks = fencedBlocks(markdown);
  const out: Example[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (isResponse(b)) throw new Error(`line ${b.line}: a response block must directly follow a request block`);
    if (!isRequest(b)) continue;
    const next = blocks[i + 1];
    if (next === undefined || !isResponse(next)) throw new Error(`line ${b.line}: request block has no response block after it`);
    const title = /title="([^"]*)"/.exec(b.info)?.[1] ?? `example at line ${b.line}`;
    const status = Number(/status=(\d+)/.exec(next.info)?.[1] ?? 200);
    out.push({
      title,
      request: b.body,
      line: b.line,
      response: { body: next.body, status, exact: /\bexact\b/.test(next.info), line: next.line },
    });
    i++;
  }
  return out;
}

/** JSON text without the whitespace between tokens. */
function compact(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}

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

async function check(query: (body: string) => Promise<string>, ex: Example): Promise<void> {
  const where = `docs/queries.md line ${ex.line} ("${ex.title}")`;
  const want = ex.response;
  let text: string;
  try {
    text = await query(ex.request);
  } catch (err) {
    const body = toErrorBody(err);
    if (want.status === 200) assert.fail(`${where}: expected success, got ${body.error}: ${body.msg}`);
    assert.equal(statusOf(body.error), want.status, `${where}: HTTP status`);
    assert.deepEqual(body, parseJson(want.body), `${where}: error body`);
    return;
  }
  assert.equal(want.status, 200, `${where}: expected status ${want.status}, but the request succeeded with ${text}`);
  assert.deepEqual(parseJson(text), parseJson(want.body), `${where}: response`);
  if (want.exact) assert.equal(text, compact(want.body), `${where}: response text`);
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
    for (const ex of list) await t.test(ex.title, () => check(query, ex));
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
