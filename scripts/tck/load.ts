/**
 * Loading the openCypher TCK (../shared/tck): every `.feature` file under `features/`, parsed
 * with @cucumber/gherkin and compiled to pickles, so a Scenario Outline comes out as one case
 * per Examples row with its `<placeholders>` filled in. Shared by scripts/tck-parse.ts (the
 * parser alone), scripts/tck.ts (the conformance runner) and the compile-time check of
 * test/cypher/semantics-tck.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AstBuilder, GherkinClassicTokenMatcher, Parser, compile } from '@cucumber/gherkin';

/** The TCK beside the repository: <repo>/../shared/tck, resolved from this file's place in dist/scripts/tck/. */
export const DEFAULT_TCK = fileURLToPath(new URL('../../../../shared/tck', import.meta.url));

/** One step of a case: its text (keyword dropped), its doc string and its data table (rows of cells). */
export interface TckStep {
  readonly text: string;
  readonly doc: string | null;
  readonly table: readonly (readonly string[])[] | null;
}

/** One test case: a Scenario, or one Examples row of a Scenario Outline. */
export interface TckCase {
  /** The feature file, relative to `features/` (e.g. `clauses/match/Match1.feature`). */
  readonly feature: string;
  /** The folder of the feature, relative to `features/` (e.g. `clauses/match`). */
  readonly folder: string;
  readonly scenario: string;
  /** The case's position in its feature file, from 0 (outline rows count one each). */
  readonly index: number;
  readonly steps: readonly TckStep[];
}

/** Every `.feature` file under `dir`, sorted by name at each level. */
export function featureFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...featureFiles(full));
    else if (entry.name.endsWith('.feature')) out.push(full);
  }
  return out;
}

/** The cases of one feature file (`path` absolute, `featuresDir` the `features/` folder). */
export function loadFeature(path: string, featuresDir: string): TckCase[] {
  const feature = relative(featuresDir, path);
  const folder = relative(featuresDir, join(path, '..'));
  let ids = 0;
  const newId = () => String(ids++);
  const document = new Parser(new AstBuilder(newId), new GherkinClassicTokenMatcher()).parse(readFileSync(path, 'utf8'));
  return compile(document, feature, newId).map((pickle, index) => ({
    feature,
    folder,
    scenario: pickle.name,
    index,
    steps: pickle.steps.map((s) => ({
      text: s.text.trim(),
      doc: s.argument?.docString?.content ?? null,
      table: s.argument?.dataTable?.rows.map((r) => r.cells.map((c) => c.value)) ?? null,
    })),
  }));
}

/** The TCK in `tckDir` (holding `features/`): its feature files and all their cases, in file order. */
export function loadTck(tckDir: string): { readonly files: readonly string[]; readonly cases: readonly TckCase[] } {
  const featuresDir = join(tckDir, 'features');
  const files = featureFiles(featuresDir);
  const cases = files.flatMap((path) => loadFeature(path, featuresDir));
  return { files: files.map((f) => relative(featuresDir, f)), cases };
}
