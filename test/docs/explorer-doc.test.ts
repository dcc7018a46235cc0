/**
 * docs/explorer.md against the explorer: the sample statement and the example are the
 * ones the page runs, the hooks it lists are in the page, and the pictures it shows exist.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXAMPLE_CYPHER, SAMPLE_CYPHER } from '../../explorer/sample.js';
import { fencedBlocks } from '../helpers/markdown.js';

const ROOT = new URL('../../../', import.meta.url);
const read = (file: string) => readFileSync(fileURLToPath(new URL(file, ROOT)), 'utf8');
const doc = read('docs/explorer.md');

test('docs/explorer.md shows the sample statement and the example the page runs', () => {
  const blocks = fencedBlocks(doc);
  assert.equal(blocks.find((b) => b.info === 'cypher sample')?.body.trimEnd(), SAMPLE_CYPHER);
  assert.equal(blocks.find((b) => b.info === 'cypher example')?.body.trimEnd(), EXAMPLE_CYPHER);
});

test('the data-testid hooks the page must have are in it and in the docs', () => {
  const html = read('explorer/index.html');
  for (const id of [
    'editor',
    'run',
    'tab-graph',
    'tab-table',
    'tab-json',
    'graph',
    'node-count',
    'table',
    'json',
    'schema',
    'explain',
    'error',
  ]) {
    assert.match(html, new RegExp(`data-testid="${id}"`), id);
    assert.match(doc, new RegExp(`\`${id}\``), id);
  }
  const hooks = doc.slice(doc.indexOf('## Hooks for tests'));
  for (const [, id] of hooks.matchAll(/^\| `([a-z-]+)`/gm))
    if (!id!.endsWith('-')) assert.match(html, new RegExp(`data-testid="${id}"`), id);
});

test('the pictures docs/explorer.md shows exist', () => {
  const pictures = [...doc.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!);
  assert.ok(pictures.length >= 5);
  for (const picture of pictures) assert.ok(existsSync(fileURLToPath(new URL(`docs/${picture}`, ROOT))), picture);
});
