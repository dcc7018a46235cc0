/**
 * Prints the top self-time functions of a V8 .cpuprofile (as written by `node --cpu-prof`).
 *
 *   node dist/bench/lib/profile-summary.js FILE.cpuprofile [--top 15] [--skip-ms 0]
 *
 * `--skip-ms` ignores the first milliseconds of samples (e.g. the dataset load before the
 * timed scenario starts).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string' }, 'skip-ms': { type: 'string' } }, allowPositionals: true });
const file = positionals[0];
if (file === undefined) {
  console.error('usage: profile-summary FILE.cpuprofile [--top N] [--skip-ms MS]');
  process.exit(2);
}
const top = Number(values.top ?? 15);
const skipUs = Number(values['skip-ms'] ?? 0) * 1000;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const frames = new Map<number, string>();
for (const n of profile.nodes) {
  const { functionName, url, lineNumber } = n.callFrame;
  frames.set(n.id, `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''}`.trim());
}

// Each sample's time is the delta to the next one; sum them per function.
const selfUs = new Map<string, number>();
let clock = 0;
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  clock += profile.timeDeltas[i] ?? 0;
  const dt = profile.timeDeltas[i + 1] ?? 0;
  if (clock < skipUs) continue;
  const name = frames.get(profile.samples[i]!) ?? '?';
  selfUs.set(name, (selfUs.get(name) ?? 0) + dt);
  total += dt;
}

console.log(`${basename(file)}: ${(total / 1000).toFixed(0)} ms sampled`);
for (const [name, us] of [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
}
