#!/usr/bin/env node
// `npm test`: the whole gate CI runs. With no arguments: the layer rule, lint and format
// checks, then every test under c8, which fails below the coverage floor in .c8rc.json
// (a floor that may only rise: see scripts/coverage-floor.mjs). With arguments, only the
// test files whose path contains one of them, without the checks or coverage:
//   npm test -- store
// Node 20's test runner does not expand globs, so this script finds the compiled files.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new globalThis.URL('..', import.meta.url).pathname;
const testDir = join(root, 'dist', 'test');
const bin = (name) => join(root, 'node_modules', '.bin', name);

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (name.endsWith('.test.js')) out.push(full);
  }
  return out;
}

function run(what, command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root });
  if (result.status !== 0) {
    console.error(`\nnpm test: ${what} failed`);
    process.exit(result.status ?? 1);
  }
}

const filters = process.argv.slice(2);
const files = collect(testDir).filter((f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s)));
if (files.length === 0) {
  console.error(`no test files matched ${filters.join(' ')}`);
  process.exit(1);
}
// Each file runs in its own process under this timeout: a hang fails in at most 5 minutes.
// The whole openCypher TCK (test/cypher/tck-gate.test.ts) takes about a minute alone and
// passed 2 minutes on a 2-core machine that other work loaded (load average 12).
const testArgs = ['--test', '--test-concurrency=2', '--test-timeout=300000', ...files];
if (filters.length > 0) {
  run('tests', process.execPath, testArgs);
} else {
  run('the layer rule (dependency-cruiser)', bin('depcruise'), ['src', 'workers', 'explorer', '--config', '.dependency-cruiser.cjs']);
  run('lint (eslint)', bin('eslint'), ['.']);
  run('the format check (prettier --check; `npm run format` fixes it)', bin('prettier'), ['--check', '--log-level', 'warn', '.']);
  run('tests or the coverage floor', bin('c8'), [process.execPath, ...testArgs]);
  run('the coverage floor rule', process.execPath, [join(root, 'scripts', 'coverage-floor.mjs')]);
}
