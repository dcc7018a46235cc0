/**
 * Text analysis of full-text indexes (HelixDB's defaults): tokens are maximal runs of
 * Unicode letters and digits, lowercased; no stemming, no stop words. Also the admission
 * limits every indexed document is checked against before its write commits, and the
 * per-write staging bound, both answered as data: the caller names the element and index
 * and turns a breach into a GraphError (`active_text_mutation_limit_exceeded`,
 * `index_operation_batch_too_large`).
 *
 * Marks (`\p{Mn}`, `\p{Mc}`) continue a token but never start one: a decomposed "é"
 * (e + U+0301) stays one token, as do words of scripts whose vowel signs are marks
 * (Devanagari, Thai), which tantivy's `is_alphanumeric` also keeps whole. Variation
 * selectors and enclosing marks (`\p{Me}`) separate tokens: they belong to emoji
 * ("1️⃣" is the token "1"). Text is not Unicode-normalised, as in tantivy: a precomposed
 * and a decomposed "é" are different terms. Unlike tantivy's default analyzer, long tokens
 * (over 40 bytes) are kept; the store bounds their key size (src/store/text-postings.ts).
 */

/** A token starts with a letter or digit and runs over letters, digits and marks. */
const TOKEN = /[\p{L}\p{N}](?:(?!\p{VS})[\p{L}\p{N}\p{Mn}\p{Mc}])*/gu;

const MiB = 1024 * 1024;

/** Bytes of the text, per token and per token byte that analysis is charged (reference §4.5). */
export const ANALYSIS_BYTES_PER_TOKEN = 280;
export const ANALYSIS_BYTES_PER_TOKEN_BYTE = 3;
export const ANALYSIS_BYTES_LIMIT = 64 * MiB;
/** One output operation per unique term plus this many for the document's other rows. */
export const OUTPUT_OPERATIONS_BASE = 6;
/**
 * The rows one publication (a write's index work) may write. Each document's share of it is
 * at most half, which is the per-document `output_operations` allowance: 16,384 is half of
 * 32,768, HelixDB's request-level output-operation default. Half, so a document always fits
 * in a publication beside others and no single document can fill one.
 */
export const PUBLICATION_ROW_BUDGET = 32_768;
export const OUTPUT_OPERATIONS_LIMIT = PUBLICATION_ROW_BUDGET / 2;
export const OUTPUT_BYTES_LIMIT = 2 * MiB;
export const INPUT_BYTES_LIMIT = 28 * MiB;
/** Text one write may stage for one index, over all the documents it indexes there. */
export const STAGED_TEXT_LIMIT = 8 * MiB;

/**
 * Estimated bytes a document writes per unique term besides twice the term (its posting key
 * and its entry in the document row) and the tenant (in the posting key): the key's index
 * id, kind, partition header, terminator and element id, the posting value (tf, length) and
 * the row entry's tf and length. Mirrors the layout of src/store/text-postings.ts.
 */
const OUTPUT_BYTES_PER_TERM = 32;
/** Estimated bytes of a document's own rows: its row header and key, the partition statistics. */
const OUTPUT_BYTES_PER_DOCUMENT = 64;

export interface DocumentAnalysis {
  /** Tokens in the document (its length for BM25). */
  readonly length: number;
  /** Term frequencies. */
  readonly terms: Map<string, number>;
  /** Whether the text is all ASCII (so a term's UTF-8 bytes are its characters). */
  readonly ascii?: boolean;
}

export type TextResource = 'analysis_bytes' | 'input_bytes' | 'output_operations' | 'output_bytes';

/** Resources in the order they are checked (and reported when several are exceeded). */
export const TEXT_RESOURCES: readonly TextResource[] = ['analysis_bytes', 'input_bytes', 'output_operations', 'output_bytes'];

export const TEXT_ALLOWANCES: Readonly<Record<TextResource, number>> = {
  analysis_bytes: ANALYSIS_BYTES_LIMIT,
  input_bytes: INPUT_BYTES_LIMIT,
  output_operations: OUTPUT_OPERATIONS_LIMIT,
  output_bytes: OUTPUT_BYTES_LIMIT,
};

export type TextUsage = Record<TextResource, number>;

export interface TextLimitBreach {
  readonly resource: TextResource;
  readonly usage: number;
  readonly allowance: number;
}

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The lowercased tokens of `text`, in order. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) tokens.push(m[0].toLowerCase());
  return tokens;
}

/** Length and term frequencies of a document (no token array: a document may hold millions). */
export function analyzeDocument(text: string): DocumentAnalysis {
  const terms = new Map<string, number>();
  const ascii = analyzeAscii(text, terms);
  if (ascii >= 0) return { length: ascii, terms, ascii: true };
  terms.clear();
  let length = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    const term = m[0].toLowerCase();
    terms.set(term, (terms.get(term) ?? 0) + 1);
    length++;
  }
  return { length, terms };
}

/**
 * analyzeDocument's fast path for ASCII text, where letters and digits are [A-Za-z0-9] and
 * there are no marks: counts the terms into `terms` and returns the length, or -1 at the
 * first non-ASCII character (the caller starts over with the full tokenizer).
 */
function analyzeAscii(text: string, terms: Map<string, number>): number {
  let length = 0;
  let start = -1;
  let upper = false;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 0x20;
    if (c >= 0x80) return -1;
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
      if (start < 0) start = i;
    } else if (c >= 0x41 && c <= 0x5a) {
      if (start < 0) start = i;
      upper = true;
    } else if (start >= 0) {
      const token = text.slice(start, i);
      const term = upper ? token.toLowerCase() : token;
      terms.set(term, (terms.get(term) ?? 0) + 1);
      length++;
      start = -1;
      upper = false;
    }
  }
  return length;
}

/** The terms of a query, each once, in order of first appearance; a search ORs them. */
export function queryTerms(text: string): string[] {
  return [...new Set(tokenize(text))];
}

/**
 * What indexing one document costs, in the resources of the per-document limits.
 * `readBytes` is the size of the stored rows the write reads (the document's previous row,
 * the partition statistics), which only the store knows; `tenant` is the document's tenant
 * value as the store keys it (it is part of every posting key).
 */
export function documentUsage(text: string, analysis: DocumentAnalysis, tenant: string | null = null, readBytes = 0): TextUsage {
  const ascii = analysis.ascii === true;
  const textBytes = ascii ? text.length : utf8Bytes(text);
  const tenantBytes = tenant === null ? 0 : utf8Bytes(tenant);
  let tokenBytes = 0;
  let termBytes = 0;
  for (const [term, tf] of analysis.terms) {
    const bytes = ascii ? term.length : utf8Bytes(term);
    tokenBytes += bytes * tf;
    termBytes += bytes;
  }
  const unique = analysis.terms.size;
  return {
    analysis_bytes: textBytes + ANALYSIS_BYTES_PER_TOKEN * analysis.length + ANALYSIS_BYTES_PER_TOKEN_BYTE * tokenBytes,
    input_bytes: textBytes + readBytes,
    output_operations: unique + OUTPUT_OPERATIONS_BASE,
    output_bytes: 2 * termBytes + unique * (tenantBytes + OUTPUT_BYTES_PER_TERM) + OUTPUT_BYTES_PER_DOCUMENT + tenantBytes,
  };
}

/** The first resource (in TEXT_RESOURCES order) over its allowance, or null. */
export function checkDocumentLimits(usage: TextUsage): TextLimitBreach | null {
  for (const resource of TEXT_RESOURCES) {
    const allowance = TEXT_ALLOWANCES[resource];
    if (usage[resource] > allowance) return { resource, usage: usage[resource], allowance };
  }
  return null;
}

/**
 * The message of `active_text_mutation_limit_exceeded`; `subject` names the document, e.g.
 * "Doc.body of node 12".
 */
export function describeTextLimitBreach(breach: TextLimitBreach, subject: string): string {
  return `active text mutation exceeds ${breach.resource}: observed ${breach.usage}, limit ${breach.allowance} (${subject}); this is a hard per-document limit, shorten the indexed text`;
}

export interface StagingBreach {
  /** The index, as the caller named it to `TextStaging.add`. */
  readonly index: string;
  readonly staged: number;
  readonly allowance: number;
}

/**
 * The text one write stages per index, which must stay within STAGED_TEXT_LIMIT bytes
 * (UTF-8). One instance per write; `add` every document's text as it is indexed.
 */
export class TextStaging {
  private readonly staged = new Map<string, number>();

  constructor(private readonly allowance = STAGED_TEXT_LIMIT) {}

  /** Counts `text` against `index`; a breach once the write's total for it is over the allowance. */
  add(index: string, text: string): StagingBreach | null {
    const staged = (this.staged.get(index) ?? 0) + utf8Bytes(text);
    this.staged.set(index, staged);
    return staged > this.allowance ? { index, staged, allowance: this.allowance } : null;
  }

  /** Bytes staged so far for `index`. */
  bytes(index: string): number {
    return this.staged.get(index) ?? 0;
  }
}

/** The message of `index_operation_batch_too_large`. */
export function describeStagingBreach(breach: StagingBreach): string {
  return `a write stages ${breach.staged} bytes of text for index ${breach.index}, limit ${breach.allowance}; split the write`;
}
