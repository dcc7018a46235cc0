/**
 * The project corpus under test/hql/projects: valid projects load, each invalid one
 * reports exactly the diagnostics in its expected.txt (every problem of every file, at
 * once); `trellis check` and the server's start-up report the same.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadProject } from '../../src/hql/project.js';
import { failedStart, tempDir } from '../helpers/server.js';
import { HQL_PROJECTS as PROJECTS } from '../helpers/hql-projects.js';

const INVALID = join(PROJECTS, 'invalid');
const CLI = new URL('../../src/cli.js', import.meta.url).pathname;

test('the valid projects load, with their queries compiled', () => {
  const loaded = loadProject(join(PROJECTS, 'social'), { mcp: true });
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.report);
  assert.ok(loaded.project.queries.has('getUser'));
  assert.equal(loaded.project.schema.nodes.size, 2);
  assert.equal(loaded.project.config.mcp, true);
});

for (const name of readdirSync(INVALID).sort()) {
  test(`invalid project ${name}: every diagnostic, as expected.txt has them`, () => {
    const loaded = loadProject(join(INVALID, name), { mcp: false });
    assert.equal(loaded.ok, false);
    if (loaded.ok) return;
    assert.equal(`${loaded.report}\n`, readFileSync(join(INVALID, name, 'expected.txt'), 'utf8'));
    assert.equal(loaded.count, loaded.report.split('\n\n').length, 'count is the number of diagnostics shown');
  });
}

test('trellis check: exit 0 and a summary for a valid project', () => {
  const run = spawnSync(process.execPath, [CLI, 'check', '--project', join(PROJECTS, 'social')], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /is valid: \d+ queries, 2 node types, 2 edge types/);
});

test('trellis check: exit 1 and every diagnostic for an invalid project', () => {
  const dir = join(INVALID, 'query-errors');
  const run = spawnSync(process.execPath, [CLI, 'check', '--project', dir], { encoding: 'utf8' });
  assert.equal(run.status, 1);
  assert.equal(run.stderr, `${readFileSync(join(dir, 'expected.txt'), 'utf8')}\ntrellis check: 23 problems in ${dir}\n`);
});

test('trellis check without a project is a usage error (exit 2)', () => {
  const empty = tempDir();
  try {
    const run = spawnSync(process.execPath, [CLI, 'check'], { encoding: 'utf8', cwd: empty.path });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /no project: give --project DIR/);
  } finally {
    empty.remove();
  }
});

test('the server refuses to start on an invalid project, printing every diagnostic', async () => {
  const data = tempDir();
  try {
    const dir = join(INVALID, 'schema-errors');
    const run = await failedStart(['--data', data.path, '--project', dir]);
    assert.equal(run.code, 1);
    assert.ok(run.stderr.startsWith(readFileSync(join(dir, 'expected.txt'), 'utf8')), run.stderr);
    assert.match(run.stderr, /trellis: the project in .* has 8 problems; the server did not start/);
    assert.doesNotMatch(run.stdout, /listening/);
  } finally {
    data.remove();
  }
});
