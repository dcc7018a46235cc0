/**
 * How problems in `.hx` files are reported (docs/query-language.md, "Diagnostics"): one
 * `file:line:column: message` line, then the source line and a caret under the column,
 * the shape compilers use, so editors and terminals can jump to the place.
 */
import type { SourcePos } from './lexer.js';

export interface Diagnostic {
  /** The file as the user should see it (relative to the project folder). */
  readonly file: string;
  readonly pos: SourcePos;
  readonly message: string;
}

/** The diagnostic with an excerpt of `source` (the whole text of its file). */
export function formatDiagnostic(d: Diagnostic, source: string): string {
  const head = `${d.file}:${d.pos.line}:${d.pos.column}: ${d.message}`;
  const lineStart = source.lastIndexOf('\n', d.pos.offset - 1) + 1;
  const lineEnd = source.indexOf('\n', d.pos.offset);
  const text = source.slice(lineStart, lineEnd < 0 ? source.length : lineEnd).replace(/\r$/, '');
  // The caret line repeats the tabs before the column, so it lines up however tabs are shown.
  const before = [...source.slice(lineStart, d.pos.offset)].map((c) => (c === '\t' ? '\t' : ' ')).join('');
  const gutter = String(d.pos.line);
  return `${head}\n ${gutter} | ${text}\n ${' '.repeat(gutter.length)} | ${before}^`;
}

/** Every diagnostic, in file order then position order, formatted and joined by blank lines. */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], sources: ReadonlyMap<string, string>): string {
  return [...diagnostics]
    .sort((a, b) => (a.file === b.file ? a.pos.offset - b.pos.offset : a.file < b.file ? -1 : 1))
    .map((d) => formatDiagnostic(d, sources.get(d.file) ?? ''))
    .join('\n\n');
}
