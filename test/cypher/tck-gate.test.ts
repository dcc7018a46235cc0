/**
 * The TCK gate: the openCypher TCK (../shared/tck) through scripts/tck.ts, in process, each
 * case on a fresh database, must pass at least as many in-scope cases as docs/cypher.md
 * records on its line `TCK in-scope passing: N of M` (M the in-scope count, which must not
 * drift either). Skipped when the TCK folder is absent.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TCK, runTck } from '../../scripts/tck.js';

/** docs/cypher.md, from dist/test/cypher/. */
const DOC = fileURLToPath(new URL('../../../docs/cypher.md', import.meta.url));
export const GATE_LINE = /^TCK in-scope passing: (\d+) of (\d+)$/m;

test('the TCK gate: in-scope passes at least the figure recorded in docs/cypher.md', { timeout: 900_000 }, async (t) => {
  if (!existsSync(DEFAULT_TCK)) {
    t.skip(`no TCK at ${DEFAULT_TCK}`);
    return;
  }
  const m = GATE_LINE.exec(readFileSync(DOC, 'utf8'));
  assert.ok(m !== null, `docs/cypher.md has no line "TCK in-scope passing: N of M"`);
  const [recorded, inScope] = [Number(m[1]), Number(m[2])];
  const report = await runTck({ tck: DEFAULT_TCK });
  const failures = report.cases
    .filter((c) => c.inScope && c.status !== 'pass')
    .slice(0, 10)
    .map((c) => `${c.feature} #${c.index} ${c.scenario}: ${c.status} ${c.reason}`);
  t.diagnostic(
    `TCK in-scope passing: ${report.inScope.pass} of ${report.inScope.cases} (all: ${report.all.pass} of ${report.all.cases}) in ${(report.ms / 1000).toFixed(1)} s`,
  );
  assert.equal(report.inScope.cases, inScope, 'the in-scope count changed: update docs/cypher.md (and say why)');
  assert.ok(
    report.inScope.pass >= recorded,
    `${report.inScope.pass} in-scope cases pass, fewer than the ${recorded} recorded in docs/cypher.md; first failures:\n${failures.join('\n')}`,
  );
});
