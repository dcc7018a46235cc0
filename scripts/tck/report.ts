/**
 * The TCK runner's report: every case's verdict, figures per group (by default the folder
 * under features/, e.g. clauses/match) and totals over the in-scope cases and over all.
 */
import type { TckCase } from './load.js';
import type { Status } from './run.js';
import type { ScopeRule } from './scope.js';

export interface CaseResult {
  readonly feature: string;
  readonly scenario: string;
  /** The case's position in its feature file, from 0. */
  readonly index: number;
  readonly inScope: boolean;
  /** The scope rules that put the case out of scope. */
  readonly outOfScope: readonly ScopeRule[];
  readonly status: Status;
  readonly reason: string;
  readonly ms: number;
}

export interface Figures {
  cases: number;
  pass: number;
  fail: number;
  skip: number;
}

export interface TckReport {
  readonly tck: string;
  readonly inScope: Figures;
  readonly all: Figures;
  /** In-scope and all figures per group. */
  readonly groups: Record<string, { inScope: Figures; all: Figures }>;
  readonly ms: number;
  readonly cases: readonly CaseResult[];
}

export type Grouping = 'top' | 'folder' | 'feature';

export const emptyFigures = (): Figures => ({ cases: 0, pass: 0, fail: 0, skip: 0 });

/** The group of a case: `clauses` (top), `clauses/match` (folder) or the feature file. */
export function groupOf(c: Pick<TckCase, 'feature'>, grouping: Grouping): string {
  const parts = c.feature.split('/');
  if (grouping === 'feature') return c.feature;
  return parts.slice(0, grouping === 'top' ? 1 : Math.min(2, parts.length - 1)).join('/');
}

export function summarise(tck: string, results: readonly CaseResult[], grouping: Grouping, ms: number): TckReport {
  const inScope = emptyFigures();
  const all = emptyFigures();
  const groups: TckReport['groups'] = {};
  for (const r of results) {
    const g = (groups[groupOf(r, grouping)] ??= { inScope: emptyFigures(), all: emptyFigures() });
    const add = (f: Figures) => {
      f.cases++;
      f[r.status]++;
    };
    add(all);
    add(g.all);
    if (r.inScope) {
      add(inScope);
      add(g.inScope);
    }
  }
  return { tck, inScope, all, groups, ms, cases: results };
}

const pct = (n: number, d: number) => (d === 0 ? '   -  ' : `${((100 * n) / d).toFixed(1).padStart(5)}%`);

function line(name: string, f: Figures, width: number): string {
  return `${name.padEnd(width)} ${String(f.cases).padStart(5)} ${String(f.pass).padStart(5)} ${String(f.fail).padStart(5)} ${String(f.skip).padStart(5)} ${pct(f.pass, f.cases)}`;
}

/** The report as text: the groups (in-scope figures, then all), totals and the first `maxFailures` failures. */
export function formatReport(report: TckReport, maxFailures: number): string {
  const names = Object.keys(report.groups).sort();
  const width = Math.max(24, ...names.map((n) => n.length));
  const head = `${'group'.padEnd(width)} cases  pass  fail  skip   pass%`;
  const out: string[] = [];
  out.push('In scope, by group:', head);
  for (const n of names) if (report.groups[n]!.inScope.cases > 0) out.push(line(n, report.groups[n]!.inScope, width));
  out.push('', 'All cases, by group:', head);
  for (const n of names) out.push(line(n, report.groups[n]!.all, width));
  out.push('', 'Totals:', head, line('in scope', report.inScope, width), line('all', report.all, width));
  const failures = report.cases.filter((c) => c.status === 'fail' && c.inScope);
  const skips = new Map<string, number>();
  for (const c of report.cases) if (c.status === 'skip') skips.set(c.reason, (skips.get(c.reason) ?? 0) + 1);
  if (skips.size > 0) {
    out.push('', 'Skipped, by reason:');
    for (const [reason, n] of [...skips].sort((a, b) => b[1] - a[1])) out.push(`  ${String(n).padStart(5)}  ${reason}`);
  }
  if (failures.length > 0) {
    const shown = failures.slice(0, maxFailures);
    out.push(
      '',
      `In-scope failures (${shown.length} of ${failures.length}${shown.length < failures.length ? '; --verbose lists all' : ''}):`,
    );
    for (const f of shown) out.push(`  ${f.feature} #${f.index} ${f.scenario}`, `      ${f.reason.replace(/\n/g, '\\n')}`);
  }
  const perCase = report.all.cases === 0 ? 0 : report.ms / report.all.cases;
  out.push(
    '',
    `TCK in-scope passing: ${report.inScope.pass} of ${report.inScope.cases} (all: ${report.all.pass} of ${report.all.cases}); ${(report.ms / 1000).toFixed(1)} s, ${perCase.toFixed(1)} ms per case`,
  );
  return out.join('\n');
}
