/**
 * The explorer's files as the server sends them (src/server/explorer-files.ts): the page
 * at `/` and every built file, brotli, gzip or plain as the client accepts, with the
 * strict Content-Security-Policy, a year's caching for hashed names and none for the
 * page; `--explorer false` makes them 404; a server without a build says how to make one.
 * The first load stays within its budget of 250 KiB gzip (docs/benchmarks.md).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  acceptedEncodings,
  CONTENT_SECURITY_POLICY,
  EXPLORER_DIR,
  explorerRoutes,
  loadExplorerFiles,
} from '../../src/server/explorer-files.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { killOnExit } from '../helpers/reap.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request that neither adds nor decodes an encoding (fetch would do both). */
function raw(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const manifest = JSON.parse(readFileSync(join(EXPLORER_DIR, 'manifest.json'), 'utf8')) as {
  files: Record<string, { file: string; type: string; immutable: boolean }>;
  firstLoad: string[];
  firstLoadGzip: number;
};
const dir = tempDir('trellis-explorer-files-');
let server: TestServer;
let off: TestServer;

before(async () => {
  server = killOnExit(await startTestServer(['--data', join(dir.path, 'on')]));
  off = killOnExit(await startTestServer(['--data', join(dir.path, 'off'), '--explorer', 'false']));
});
after(async () => {
  await server?.stop();
  await off?.stop();
  dir.remove();
});

test('GET / is the page: brotli, gzip or plain as accepted, the same bytes each way, with the CSP and no caching', async () => {
  const plain = readFileSync(join(EXPLORER_DIR, 'index.html'));
  const br = await raw(`${server.url}/`, { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.status, 200);
  assert.equal(br.headers['content-encoding'], 'br');
  assert.deepEqual(brotliDecompressSync(br.body), plain);
  const gz = await raw(`${server.url}/`, { 'accept-encoding': 'gzip' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.deepEqual(gunzipSync(gz.body), plain);
  const none = await raw(`${server.url}/`, { 'accept-encoding': 'br;q=0, identity' });
  assert.equal(none.headers['content-encoding'], undefined);
  assert.deepEqual(none.body, plain);
  for (const r of [br, gz, none]) {
    assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(r.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
    assert.equal(r.headers['cache-control'], 'no-cache');
    assert.equal(r.headers['vary'], 'accept-encoding');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
  }
  assert.match(CONTENT_SECURITY_POLICY, /^default-src 'self'; script-src 'self'; style-src 'self';/);
  assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe|https?:|\*/, 'no inline code, no other origin');
  const html = plain.toString('utf8');
  assert.doesNotMatch(html, /https?:\/\/|<script>|style=/, 'the page loads nothing from elsewhere and has no inline script or style');
  const head = await raw(`${server.url}/`, { 'accept-encoding': 'br' }, 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.body.length, 0);
  assert.equal(Number(head.headers['content-length']), br.body.length);
});

test('every built file is served with its type, hashed names cached for a year', async () => {
  const paths = Object.keys(manifest.files);
  assert.ok(paths.some((p) => /^\/assets\/main-[A-Z0-9]+\.js$/.test(p)));
  assert.ok(paths.some((p) => /^\/assets\/layout-worker-[A-Z0-9]+\.js$/.test(p)));
  assert.ok(paths.some((p) => p.endsWith('.css')));
  for (const [path, entry] of Object.entries(manifest.files)) {
    const r = await raw(`${server.url}${path}`, { 'accept-encoding': 'gzip' });
    assert.equal(r.status, 200, path);
    assert.equal(r.headers['content-type'], entry.type, path);
    assert.deepEqual(gunzipSync(r.body), readFileSync(join(EXPLORER_DIR, entry.file)), path);
    assert.equal(r.headers['cache-control'], entry.immutable ? 'public, max-age=31536000, immutable' : 'no-cache', path);
  }
  const missing = await raw(`${server.url}/assets/main-NOPE.js`);
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.body.toString()).error, 'not_found');
});

test('the first load is at most 250 KiB gzip', () => {
  assert.ok(manifest.firstLoad.includes('/'));
  assert.ok(manifest.firstLoadGzip <= 250 * 1024, `${manifest.firstLoadGzip} bytes`);
});

test('--explorer false: the page and its files are 404, and the OpenAPI document does not list them', async () => {
  for (const path of ['/', ...Object.keys(manifest.files)]) {
    const r = await raw(`${off.url}${path}`);
    assert.equal(r.status, 404, path);
    assert.equal(JSON.parse(r.body.toString()).error, 'not_found');
  }
  const doc = (await (await fetch(`${off.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  assert.equal(doc.paths['/'], undefined);
  assert.equal(doc.paths['/assets/{file}'], undefined);
  assert.ok(doc.paths['/v2/query']);
});

test('without a build, / answers 404 saying how to build it', async () => {
  const empty = tempDir('trellis-no-build-');
  try {
    const files = loadExplorerFiles(empty.path);
    assert.equal(files, null);
    const routes = explorerRoutes(files);
    assert.deepEqual(
      routes.map((r) => `${r.method} ${r.path}`),
      ['GET /'],
    );
    const answer = await routes[0]!.handler({ method: 'GET', path: '/', headers: new Map(), body: Buffer.alloc(0) });
    assert.equal(answer.status, 404);
    assert.match(String(answer.body), /"error":"not_found".*npm run build/);
  } finally {
    empty.remove();
  }
});

test('Accept-Encoding: names with a zero weight are refused, others taken in any case', () => {
  assert.deepEqual([...acceptedEncodings('gzip, deflate, br')], ['gzip', 'deflate', 'br']);
  assert.deepEqual([...acceptedEncodings('BR;q=0.5, gzip;q=0')], ['br']);
  assert.deepEqual([...acceptedEncodings('gzip; q=0.000, *;q=1')], ['*']);
  assert.deepEqual([...acceptedEncodings(undefined)], []);
  assert.deepEqual([...acceptedEncodings('')], []);
});
