/**
 * The explorer's files (docs/explorer.md), built by scripts/build-explorer.mjs into
 * dist/explorer-assets: read once at start-up and served from memory, each already
 * compressed (brotli and gzip, picked by Accept-Encoding), so a request costs no disk
 * read and no compression. Hashed names are cached for a year; the page itself is
 * revalidated on every visit, so a new build shows at once.
 *
 * Every answer carries a Content-Security-Policy that allows only this origin: the page
 * loads nothing from elsewhere and talks only to the routes it was served from, which is
 * also why it works unchanged behind the gateway.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorResponse } from './http-errors.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import type { Route } from './routes.js';

/** Where `npm run build` puts the files, from dist/src/server/. */
export const EXPLORER_DIR = fileURLToPath(new URL('../../explorer-assets/', import.meta.url));

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "worker-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

interface ManifestEntry {
  readonly file: string;
  readonly type: string;
  readonly immutable: boolean;
}

/** One file in its three encodings. */
interface ExplorerFile {
  readonly type: string;
  readonly immutable: boolean;
  readonly identity: Buffer;
  readonly gzip: Buffer;
  readonly br: Buffer;
}

export type ExplorerFiles = ReadonlyMap<string, ExplorerFile>;

/**
 * The built files by URL path (`/` for the page), or null when the folder holds no build
 * (`tsc` alone was run): the server then answers `/` with a 404 saying so.
 */
export function loadExplorerFiles(dir: string = EXPLORER_DIR): ExplorerFiles | null {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return null;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { files: Record<string, ManifestEntry> };
  const files = new Map<string, ExplorerFile>();
  for (const [path, entry] of Object.entries(manifest.files)) {
    const base = join(dir, entry.file);
    files.set(path, {
      type: entry.type,
      immutable: entry.immutable,
      identity: readFileSync(base),
      gzip: readFileSync(`${base}.gz`),
      br: readFileSync(`${base}.br`),
    });
  }
  return files;
}

/** The encodings a client accepts with a non-zero weight, from its Accept-Encoding. */
export function acceptedEncodings(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  if (header === undefined) return accepted;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (name) accepted.add(name.trim());
  }
  return accepted;
}

/** The answer for one file: the smallest encoding the client takes. */
export function fileResponse(file: ExplorerFile, req: HttpRequest): HttpResponse {
  const accepted = acceptedEncodings(req.headers.get('accept-encoding'));
  const headers: Record<string, string> = {
    'content-type': file.type,
    'cache-control': file.immutable ? IMMUTABLE : REVALIDATE,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    vary: 'accept-encoding',
  };
  let body = file.identity;
  if (accepted.has('br')) {
    body = file.br;
    headers['content-encoding'] = 'br';
  } else if (accepted.has('gzip') || accepted.has('x-gzip')) {
    body = file.gzip;
    headers['content-encoding'] = 'gzip';
  }
  return { status: 200, headers, body };
}

/** The answer for `/` when the explorer was not built. */
const NOT_BUILT: HttpResponse = errorResponse(
  'not_found',
  'the explorer is not built: dist/explorer-assets is missing; run `npm run build` (which runs scripts/build-explorer.mjs)',
);

/** The GET routes of the explorer: every built file, or `/` alone saying the build is missing. */
export function explorerRoutes(files: ExplorerFiles | null): Route[] {
  if (files === null) return [{ method: 'GET', path: '/', handler: () => NOT_BUILT }];
  return [...files].map(([path, file]) => ({ method: 'GET', path, handler: (req: HttpRequest) => fileResponse(file, req) }));
}
