import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLIP_LIMIT, clip } from '../../src/core/clip.js';

test('text up to the limit comes back unchanged', () => {
  assert.equal(CLIP_LIMIT, 200);
  for (const s of ['', 'x', 'a'.repeat(199), 'b'.repeat(200)]) assert.equal(clip(s), s);
});

test('longer text is cut at the limit and marked with its full length', () => {
  assert.equal(clip('a'.repeat(201)), `${'a'.repeat(200)}…(cut, 201 characters)`);
  assert.equal(clip('z'.repeat(65536)), `${'z'.repeat(200)}…(cut, 65536 characters)`);
  assert.equal(clip('abcdef', 3), 'abc…(cut, 6 characters)');
});

test('a surrogate pair is never split', () => {
  const s = `${'a'.repeat(199)}😀${'b'.repeat(10)}`;
  assert.equal(clip(s), `${'a'.repeat(199)}…(cut, ${s.length} characters)`);
  const t = `${'a'.repeat(198)}😀${'b'.repeat(10)}`;
  assert.equal(clip(t), `${'a'.repeat(198)}😀…(cut, ${t.length} characters)`);
});
