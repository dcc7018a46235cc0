/**
 * The embedded example of README.md ("Embedded use"): run as written, on a fresh folder,
 * with each `// name = value` comment checked against what the code gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { tempDir } from '../helpers/server.js';

const ROOT = new URL('../../../', import.meta.url);
const INDEX = fileURLToPath(new URL('dist/src/index.js', ROOT));

/** The first ts block after a heading. */
function blockAfter(markdown: string, heading: string): string {
  const at = markdown.indexOf(heading);
  assert.ok(at >= 0, `README.md has a "${heading}" section`);
  const m = /```ts\n([\s\S]*?)```/.exec(markdown.slice(at));
  assert.ok(m !== null, `a ts block under "${heading}"`);
  return m[1]!;
}

test('README.md: the embedded example runs and gives what its comments say', async () => {
  const code = blockAfter(readFileSync(fileURLToPath(new URL('README.md', ROOT)), 'utf8'), '### Embedded use');
  const dir = tempDir('trellis-readme-embedded-');
  const checked: string[] = [];
  const lines = code.split('\n').map((line) => {
    const m = /\/\/ (\w+) = (.+?)(;|$)/.exec(line);
    if (m === null) return line;
    checked.push(m[1]!);
    return `${line}\nglobalThis.__readmeCheck(${JSON.stringify(m[1])}, ${m[1]}, (${m[2]}));`;
  });
  const module = lines
    .join('\n')
    .replace("from 'trellis'", `from ${JSON.stringify(pathToFileURL(INDEX).href)}`)
    .replace("'./data'", JSON.stringify(dir.path));
  const file = join(dir.path, '..', `readme-embedded-${process.pid}.mjs`);
  writeFileSync(file, module);
  const g = globalThis as { __readmeCheck?: (name: string, got: unknown, want: unknown) => void };
  g.__readmeCheck = (name, got, want) => assert.deepStrictEqual(got, want, `README.md: ${name}`);
  try {
    await import(pathToFileURL(file).href);
    assert.deepEqual(checked, ['res', 'none', 'text'], 'every documented value was checked');
  } finally {
    delete g.__readmeCheck;
    rmSync(file, { force: true });
    dir.remove();
  }
});
