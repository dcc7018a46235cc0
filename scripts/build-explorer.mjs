#!/usr/bin/env node
// Builds the explorer (explorer/, browser code) into dist/explorer-assets/, which the
// server sends as it is (src/server/explorer-files.ts): esbuild bundles and minifies the
// sources, every file but index.html gets a content hash in its name (so it can be cached
// for a year), and each is written three times: as is, gzip and brotli, so the server never
// compresses per request. manifest.json lists the files and what the first load costs.
//
//   node scripts/build-explorer.mjs [--quiet]
//
// Run by `npm run build` after tsc; it type-checks nothing (tsc -p explorer does).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(new globalThis.URL(import.meta.url).pathname), '..');
const source = join(root, 'explorer');
const out = join(root, 'dist', 'explorer-assets');
const assets = join(out, 'assets');
const quiet = process.argv.includes('--quiet');

/** Browsers of 2023 and later: module workers, WebGL2, JSON.parse's source text where it exists. */
const TARGET = ['chrome110', 'firefox115', 'safari16'];

rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const common = {
  bundle: true,
  minify: true,
  target: TARGET,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
  metafile: true,
};

// The layout worker first: the page names it by its hashed file name.
const worker = await build({
  ...common,
  entryPoints: { 'layout-worker': join(source, 'layout-worker.ts') },
  format: 'esm',
  outdir: assets,
  entryNames: '[name]-[hash]',
});
const workerFile = Object.keys(worker.metafile.outputs).find((f) => f.endsWith('.js'));

const page = await build({
  ...common,
  entryPoints: { main: join(source, 'main.ts') },
  format: 'esm',
  splitting: true,
  outdir: assets,
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  loader: { '.svg': 'file' },
  define: { __LAYOUT_WORKER__: JSON.stringify(`/assets/${relative(assets, join(root, workerFile))}`) },
});

const outputs = page.metafile.outputs;
const entry = Object.keys(outputs).find((f) => outputs[f].entryPoint !== undefined && f.endsWith('.js'));
const css = outputs[entry].cssBundle;
const icon = readFileSync(join(source, 'icon.svg'));
const iconName = `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 8).toUpperCase()}.svg`;
writeFileSync(join(assets, iconName), icon);

const url = (file) => `/assets/${relative(assets, join(root, file))}`;
const html = readFileSync(join(source, 'index.html'), 'utf8')
  .replaceAll('{{main.js}}', url(entry))
  .replaceAll('{{main.css}}', url(css))
  .replaceAll('{{icon.svg}}', `/assets/${iconName}`);
writeFileSync(join(out, 'index.html'), html);

/** The files a first visit loads: the page, its entry, its stylesheet and icon, and the chunks the entry imports statically. */
const firstLoad = new Set([join(out, 'index.html'), join(root, entry), join(root, css), join(assets, iconName)]);
const pending = [entry];
while (pending.length > 0) {
  for (const imported of outputs[pending.pop()].imports) {
    if (imported.kind !== 'import-statement' || firstLoad.has(join(root, imported.path))) continue;
    firstLoad.add(join(root, imported.path));
    pending.push(imported.path);
  }
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
const files = {};
let firstLoadGzip = 0;
let totalGzip = 0;
for (const name of ['index.html', ...readdirSync(assets).map((f) => `assets/${f}`)]) {
  const path = join(out, name);
  const body = readFileSync(path);
  const gzip = gzipSync(body, { level: 9 });
  const br = brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  writeFileSync(`${path}.gz`, gzip);
  writeFileSync(`${path}.br`, br);
  const type = TYPES[name.slice(name.lastIndexOf('.'))];
  if (type === undefined) throw new Error(`build-explorer: no content type for ${name}`);
  files[name === 'index.html' ? '/' : `/${name}`] = {
    file: name,
    type,
    bytes: body.length,
    gzip: gzip.length,
    br: br.length,
    immutable: name !== 'index.html',
  };
  totalGzip += gzip.length;
  if (firstLoad.has(path)) firstLoadGzip += gzip.length;
}
const manifest = {
  files,
  firstLoad: [...firstLoad].map((f) => `/${relative(out, f)}`.replace('/index.html', '/')),
  firstLoadGzip,
  totalGzip,
};
writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2));
if (!quiet) {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(
    `explorer: ${Object.keys(files).length} files in dist/explorer-assets; first load ${kib(firstLoadGzip)} gzip, all ${kib(totalGzip)} gzip`,
  );
}
