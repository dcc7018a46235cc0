/**
 * The layer table of docs/architecture.md says what `.dependency-cruiser.cjs` enforces: a
 * row for every layer it has a rule for, and in each row's "knows" column exactly the
 * layers that rule lets it import (as docs/errors.md is checked against the registry).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface Rule {
  readonly name: string;
  readonly to: { readonly path?: string | readonly string[] };
}

const root = new URL('../../../', import.meta.url);
const config = createRequire(import.meta.url)(new URL('.dependency-cruiser.cjs', root).pathname) as { forbidden: Rule[] };

/** `^src/core/` or `^src/database\.ts$` back to `src/core` or `src/database.ts`. */
const layerOfPattern = (pattern: string): string =>
  pattern
    .replace(/^\^/, '')
    .replace(/\/$|\$$/, '')
    .replace(/\\\./g, '.')
    .replace(/\[\.\]/g, '.');

/** What each layer may import, from the rules: every layer the rule does not forbid, but itself. */
function allowedByConfig(): Map<string, Set<string>> {
  const forbidden = new Map<string, Set<string>>();
  for (const rule of config.forbidden) {
    if (!rule.name.startsWith('layer:')) continue;
    const paths = rule.to.path === undefined ? [] : typeof rule.to.path === 'string' ? [rule.to.path] : rule.to.path;
    forbidden.set(rule.name.slice('layer:'.length), new Set(paths.map(layerOfPattern)));
  }
  const all = new Set([...forbidden.keys(), ...[...forbidden.values()].flatMap((s) => [...s])]);
  return new Map([...forbidden].map(([layer, no]) => [layer, new Set([...all].filter((l) => l !== layer && !no.has(l)))]));
}

/** The doc's rows: folder (`src/core`) to the layers of its "knows" column (`core` for src/core). */
function allowedByDoc(): Map<string, Set<string>> {
  const doc = readFileSync(new URL('docs/architecture.md', root), 'utf8');
  const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1));
  const rows = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = line.split(' | ');
    const folder = /^\| `([^`]+)`$/.exec(cells[0] ?? '')?.[1];
    if (folder === undefined || cells.length < 3) continue;
    // The list ends at a `;` (a note may follow) or the end of the cell.
    const knows = cells[cells.length - 1]!.replace(/ \|$/, '').split(';')[0]!;
    const names = knows.trim() === 'nothing' ? [] : [...knows.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rows.set(folder.replace(/\/$/, ''), new Set(names));
  }
  return rows;
}

/** `src/core` as the doc's "knows" column names it: `core`; `workers` and `src/database.ts` keep their file names. */
const shortName = (layer: string) => layer.replace(/^src\//, '');

test('the layer table of docs/architecture.md lists every layer with exactly what .dependency-cruiser.cjs lets it import', () => {
  const enforced = allowedByConfig();
  const documented = allowedByDoc();
  assert.ok(enforced.size >= 15, `the config has rules for ${enforced.size} layers`);
  assert.deepEqual([...documented.keys()].sort(), [...enforced.keys()].sort(), 'the rows are the layers the config has rules for');
  for (const [layer, allowed] of enforced) {
    assert.deepEqual(
      [...documented.get(layer)!].sort(),
      [...allowed].map(shortName).sort(),
      `the "knows" column of ${layer} lists what its rule allows`,
    );
  }
});
