#!/usr/bin/env node
// Installs the benchmark peers (bench/peers) where they are missing: on a clean clone, and
// after a peer was added to bench/peers/package.json. `npm ci --prefix bench/peers` runs
// when a dependency is not in its node_modules; then a peer built with node-gyp whose
// binary is missing is rebuilt (npm 11 runs install scripts only for the packages that
// `allowScripts` lists, and an install that skipped them leaves no binary).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const peers = new globalThis.URL('../bench/peers/', import.meta.url).pathname;
const modules = join(peers, 'node_modules');
/** The binary each node-gyp peer builds. */
const NATIVE = { 'better-sqlite3': 'build/Release/better_sqlite3.node', 'hnswlib-node': 'build/Release/addon.node' };

function npm(args) {
  console.error(`[peers] npm ${args.join(' ')}`);
  const result = spawnSync('npm', args, { stdio: 'inherit', cwd: peers });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const { dependencies } = JSON.parse(readFileSync(join(peers, 'package.json'), 'utf8'));
if (Object.keys(dependencies).some((name) => !existsSync(join(modules, name, 'package.json')))) npm(['ci']);
for (const [name, binary] of Object.entries(NATIVE)) {
  if (name in dependencies && !existsSync(join(modules, name, binary))) npm(['rebuild', name]);
}
