/**
 * The request/response examples of a documentation page: a ```json request block followed
 * directly by a ```json response block (`status=N` when not 200, `exact` to compare the
 * text). Tests run them in order against a fresh database (docs/queries.md, docs/cypher.md).
 */
import assert from 'node:assert/strict';
import { parseJson } from '../../src/core/json.js';
import { errorJson, statusOf, toErrorBody } from '../../src/core/errors.js';
import { fencedBlocks, type Block } from './markdown.js';

export interface Expected {
  readonly body: string;
  readonly status: number;
  /** Compare the response text (whitespace outside strings ignored), not just the parsed value. */
  readonly exact: boolean;
  readonly line: number;
}

export interface Example {
  readonly title: string;
  readonly request: string;
  readonly line: number;
  readonly response: Expected;
}

const isRequest = (b: Block) => /^json\s+request\b/.test(b.info);
const isResponse = (b: Block) => /^json\s+response\b/.test(b.info);

/** Request/response pairs; a request without a response right after it (or the reverse) is an error. */
export function examples(markdown: string): Example[] {
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

/** Runs one example and checks its answer (an error by its body and status). */
export async function checkExample(query: (body: string) => Promise<string>, ex: Example, page: string): Promise<void> {
  const where = `${page} line ${ex.line} ("${ex.title}")`;
  const want = ex.response;
  let text: string;
  try {
    text = await query(ex.request);
  } catch (err) {
    const body = toErrorBody(err);
    if (want.status === 200) assert.fail(`${where}: expected success, got ${body.error}: ${body.msg}`);
    assert.equal(statusOf(body.error), want.status, `${where}: HTTP status`);
    // Through the error body's JSON text, so numbers (spans) compare as the page's do.
    assert.deepEqual(parseJson(errorJson(body)), parseJson(want.body), `${where}: error body`);
    return;
  }
  assert.equal(want.status, 200, `${where}: expected status ${want.status}, but the request succeeded with ${text}`);
  assert.deepEqual(parseJson(text), parseJson(want.body), `${where}: response`);
  if (want.exact) assert.equal(text, compact(want.body), `${where}: response text`);
}
