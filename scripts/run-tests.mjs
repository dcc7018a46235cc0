#!/usr/bin/env node
// Node 20's test runner does not expand globs, so this script finds the compiled test
// files and hands them over. Pass paths or substrings to run a subset:
//   npm test -- store     (every test file whose path contains "store")
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const testDir = join(root, 'dist', 'test');

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (name.endsWith('.test.js')) out.push(full);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = collect(testDir).filter(
  (f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s)),
);
if (files.length === 0) {
  console.error(`no test files matched ${filters.join(' ')}`);
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=2', '--test-timeout=120000', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
