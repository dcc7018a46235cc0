#!/usr/bin/env node
// The coverage floor (`lines` in .c8rc.json) may only rise: c8 fails a run below it, and
// this check fails a commit that lowers it relative to its parent commit. It also says
// when the measured figure has moved a point past the floor, so the floor can follow it.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const root = new globalThis.URL('..', import.meta.url).pathname;
const floor = JSON.parse(readFileSync(`${root}.c8rc.json`, 'utf8')).lines;
const hasParent = spawnSync('git', ['rev-parse', '--verify', '--quiet', 'HEAD~1'], { cwd: root }).status === 0;
const parent = spawnSync('git', ['show', 'HEAD~1:.c8rc.json'], { cwd: root, encoding: 'utf8' });
if (parent.status === 0) {
  const previous = JSON.parse(parent.stdout).lines;
  if (typeof previous === 'number' && floor < previous) {
    console.error(`coverage floor lowered from ${previous}% to ${floor}% (.c8rc.json "lines"); it may only rise`);
    process.exit(1);
  }
} else {
  console.log(
    hasParent
      ? 'coverage floor: the parent commit has no floor yet'
      : 'coverage floor: no parent commit to compare with (shallow clone); rule not checked',
  );
}
try {
  const measured = JSON.parse(readFileSync(`${root}coverage/coverage-summary.json`, 'utf8')).total.lines.pct;
  console.log(`coverage: ${measured}% of lines (floor ${floor}%)`);
  if (measured >= floor + 1)
    console.log(`coverage is a point or more above the floor: raise "lines" in .c8rc.json to ${Math.floor(measured)}`);
} catch {
  // No summary (c8 did not run): the floor itself was still checked above.
}
