// Strict RFC 8259 JSON that keeps the integer/float distinction the query contract needs and
// never loses integer precision: integer tokens (`5`, `-0`, 2^64+5) become bigint, tokens with a
// fraction or exponent (`5.0`, `5e0`) become finite numbers. JSON.parse cannot do either on Node 20.
//
// Decisions beyond the RFC grammar:
// - Strings are always well-formed UTF-16: a `\u` escape of a lone surrogate is an error, and so is
//   a raw lone surrogate in the text given to parseJson (RFC 8259 §8.2 leaves them undefined; they
//   would turn into U+FFFD when stored as UTF-8, silently changing the value).
// - parseJsonBytes ignores one leading UTF-8 byte order mark (RFC 8259 §8.1 allows that; some
//   Windows tools add one). parseJson given a string that starts with U+FEFF rejects it.
// - Columns count UTF-16 code units; lines are ended by LF, CRLF or a lone CR.
// - Integer tokens longer than 400 digits are an error: converting them costs quadratic time,
//   and none can be a valid value (every finite double fits in 309 digits).

import { ColumnBuilder, type RowTable } from './row-table.js';
import { clip } from './clip.js';

export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';

  constructor(
    /** What is wrong, without the location. */
    readonly reason: string,
    /** Character (UTF-16 code unit) offset into the text. */
    readonly position: number,
    readonly line: number,
    readonly column: number,
    /** The text is valid JSON nested deeper than the parser allows. */
    readonly tooDeep = false,
  ) {
    super(`${reason} at line ${line} column ${column}`);
  }
}

export interface ParseJsonOptions {
  /** Deepest allowed nesting of arrays and objects; 255 by default, at most 1000. */
  maxDepth?: number;
  /**
   * Arrays of at least `minRows` flat objects with the same keys in the same order (the rows
   * of a bulk load) are parsed column by column, without an object or a bigint per row, and
   * `make` turns each such table into the value that stands for the array.
   */
  tables?: { readonly minRows: number; readonly make: (table: RowTable) => unknown };
}

const DEFAULT_MAX_DEPTH = 255;
// Each nesting level is one recursive call; this bound keeps far below Node's stack limit.
const MAX_MAX_DEPTH = 1000;

// Parser state lives in module variables: parsing is synchronous and never re-entered, and
// this is measurably faster than threading a state object through every call.
let src = '';
let pos = 0;
let end = 0;
let depthLimit = DEFAULT_MAX_DEPTH;
let tables: ParseJsonOptions['tables'] | undefined;

/** A parsed JSON object: not null, not an array. */
export function isObject(json: unknown): json is Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json);
}

export function parseJson(text: string, options?: ParseJsonOptions): unknown {
  if (!(text as unknown as WellFormed).isWellFormed()) {
    const at = firstLoneSurrogate(text);
    throw errorAt(text, at, `lone surrogate ${codePointName(text.charCodeAt(at))}`);
  }
  return parseWellFormed(text, options);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJsonBytes(bytes: Uint8Array, options?: ParseJsonOptions): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    const valid = validUtf8Prefix(bytes);
    const prefix = utf8.decode(bytes.subarray(0, valid));
    throw errorAt(prefix, prefix.length, 'invalid UTF-8');
  }
  return parseWellFormed(text, options);
}

interface WellFormed {
  isWellFormed(): boolean;
}

function parseWellFormed(text: string, options: ParseJsonOptions | undefined): unknown {
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!Number.isInteger(maxDepth) || maxDepth < 0 || maxDepth > MAX_MAX_DEPTH) {
    throw new RangeError(`maxDepth must be an integer from 0 to ${MAX_MAX_DEPTH}`);
  }
  src = text;
  pos = 0;
  end = text.length;
  depthLimit = maxDepth;
  tables = options?.tables;
  try {
    skipWhitespace();
    const value = parseValue(0);
    skipWhitespace();
    if (pos < end) throw unexpected();
    return value;
  } finally {
    src = ''; // do not keep a large request body alive
    tables = undefined;
  }
}

function skipWhitespace(): void {
  let c = src.charCodeAt(pos);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = src.charCodeAt(++pos);
}

function parseValue(depth: number): unknown {
  const c = src.charCodeAt(pos);
  switch (c) {
    case 0x22: // "
      return parseString();
    case 0x7b: // {
      return parseObject(depth + 1);
    case 0x5b: // [
      return parseArray(depth + 1);
    case 0x74: // t
      expectWord('true');
      return true;
    case 0x66: // f
      expectWord('false');
      return false;
    case 0x6e: // n
      expectWord('null');
      return null;
    default:
      if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return parseNumber();
      throw unexpected();
  }
}

function parseObject(depth: number): Record<string, unknown> {
  if (depth > depthLimit) throw tooDeep();
  pos++;
  const obj: Record<string, unknown> = {};
  skipWhitespace();
  if (src.charCodeAt(pos) === 0x7d) {
    pos++;
    return obj;
  }
  for (;;) {
    if (src.charCodeAt(pos) !== 0x22) throw unexpected();
    const keyAt = pos;
    const key = parseKey();
    if (Object.hasOwn(obj, key)) throw fail(keyAt, `duplicate key ${JSON.stringify(clip(key))}`);
    skipWhitespace();
    if (src.charCodeAt(pos) !== 0x3a) throw unexpected();
    pos++;
    skipWhitespace();
    const value = parseValue(depth);
    if (key === '__proto__') {
      // Plain assignment would replace the prototype instead of storing the member.
      Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
    } else {
      obj[key] = value;
    }
    skipWhitespace();
    const c = src.charCodeAt(pos);
    if (c === 0x2c) {
      pos++;
      skipWhitespace();
    } else if (c === 0x7d) {
      pos++;
      return obj;
    } else {
      throw unexpected();
    }
  }
}

function parseArray(depth: number): unknown {
  if (depth > depthLimit) throw tooDeep();
  pos++;
  const arr: unknown[] = [];
  skipWhitespace();
  if (src.charCodeAt(pos) === 0x5d) {
    pos++;
    return arr;
  }
  if (tables !== undefined && src.charCodeAt(pos) === 0x7b) {
    const table = tryTable(depth);
    if (table !== null) return tables.make(table);
  }
  const first = src.charCodeAt(pos);
  if (first === 0x2d || (first >= 0x30 && first <= 0x39)) {
    const floats = floatList();
    if (floats !== null) return floats;
  }
  for (;;) {
    arr.push(parseValue(depth));
    skipWhitespace();
    const c = src.charCodeAt(pos);
    if (c === 0x2c) {
      pos++;
      skipWhitespace();
    } else if (c === 0x5d) {
      pos++;
      return arr;
    } else {
      throw unexpected();
    }
  }
}

// A list of float tokens only (each with a fraction or an exponent), to its closing bracket.
const FLOAT = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+)';
const FLOAT_LIST = new RegExp(`(?:${FLOAT}[ \\t\\n\\r]*,[ \\t\\n\\r]*)*${FLOAT}[ \\t\\n\\r]*\\]`, 'y');

/**
 * An array of floats only (an embedding: hundreds of 17-digit decimals), at `pos` just past
 * its `[`: checked by one regular expression and converted by the engine's JSON.parse,
 * about three times faster than token by token. The grammar is exactly this parser's (no
 * integer token, which would be a bigint here); null leaves it to the general path, which
 * also reports a float beyond the double range as this parser does.
 */
function floatList(): number[] | null {
  FLOAT_LIST.lastIndex = pos;
  if (!FLOAT_LIST.test(src) || FLOAT_LIST.lastIndex > end) return null;
  const values = JSON.parse(`[${src.slice(pos, FLOAT_LIST.lastIndex)}`) as number[];
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return null;
  pos = FLOAT_LIST.lastIndex;
  return values;
}

function parseString(): string {
  const start = pos + 1;
  let i = start;
  for (;;) {
    const c = src.charCodeAt(i);
    if (c === 0x22) {
      pos = i + 1;
      return src.slice(start, i);
    }
    if (c === 0x5c) return parseEscapedString(start, i);
    if (!(c >= 0x20)) throw badStringChar(start - 1, i); // also catches NaN past the end
    i++;
  }
}

// Request bodies repeat the same few keys; reusing one string per key skips an allocation and
// lets V8 find the property without re-hashing a fresh string each time.
const keyCache: (string | undefined)[] = new Array<string | undefined>(512).fill(undefined);

function parseKey(): string {
  const start = pos + 1;
  let i = start;
  let hash = 0;
  for (;;) {
    const c = src.charCodeAt(i);
    if (c === 0x22) break;
    if (c === 0x5c || !(c >= 0x20)) return parseString();
    hash = (hash * 31 + c) | 0;
    i++;
  }
  pos = i + 1;
  const length = i - start;
  if (length > 24) return src.slice(start, i);
  const slot = (hash ^ length) & 511;
  const cached = keyCache[slot];
  if (cached !== undefined && cached.length === length && src.startsWith(cached, start)) return cached;
  const key = src.slice(start, i);
  keyCache[slot] = key;
  return key;
}

function parseEscapedString(start: number, firstEscape: number): string {
  let out = src.slice(start, firstEscape);
  let i = firstEscape;
  let chunk = i;
  for (;;) {
    const c = src.charCodeAt(i);
    if (c === 0x22) {
      pos = i + 1;
      return out + src.slice(chunk, i);
    }
    if (c !== 0x5c) {
      if (!(c >= 0x20)) throw badStringChar(start - 1, i);
      i++;
      continue;
    }
    out += src.slice(chunk, i);
    const e = src.charCodeAt(i + 1);
    switch (e) {
      case 0x22:
        out += '"';
        break;
      case 0x5c:
        out += '\\';
        break;
      case 0x2f:
        out += '/';
        break;
      case 0x62:
        out += '\b';
        break;
      case 0x66:
        out += '\f';
        break;
      case 0x6e:
        out += '\n';
        break;
      case 0x72:
        out += '\r';
        break;
      case 0x74:
        out += '\t';
        break;
      case 0x75: {
        // u
        const unit = hex4(i + 2);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const low = src.charCodeAt(i + 6) === 0x5c && src.charCodeAt(i + 7) === 0x75 ? hex4(i + 8) : -1;
          if (!(low >= 0xdc00 && low <= 0xdfff)) throw fail(i, `lone surrogate ${codePointName(unit)} in \\u escape`);
          out += String.fromCharCode(unit, low);
          i += 6;
        } else if (unit >= 0xdc00 && unit <= 0xdfff) {
          throw fail(i, `lone surrogate ${codePointName(unit)} in \\u escape`);
        } else {
          out += String.fromCharCode(unit);
        }
        i += 4;
        break;
      }
      default:
        if (i + 1 >= end) throw fail(start - 1, 'unterminated string');
        throw fail(i, `invalid escape ${describeChar(i + 1)}`);
    }
    i += 2;
    chunk = i;
  }
}

function hex4(at: number): number {
  let n = 0;
  for (let k = at; k < at + 4; k++) {
    const c = src.charCodeAt(k);
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else if (k >= end) throw fail(k, 'unexpected end of input');
    else throw fail(k, `invalid \\u escape: unexpected character ${describeChar(k)}`);
    n = n * 16 + d;
  }
  return n;
}

function badStringChar(quoteAt: number, at: number): JsonSyntaxError {
  if (at >= end) return fail(quoteAt, 'unterminated string');
  return fail(at, `unescaped control character ${codePointName(src.charCodeAt(at))} in string`);
}

// Small non-negative integers are shared instead of allocating a bigint per token.
// Bulk loads repeat ids and small values (years, counts) hundreds of thousands of times: the
// first 65536 are interned as they are met, which saves most bigint allocations there.
const INTERNED = 65536;
const SMALL_INTS: (bigint | undefined)[] = new Array<bigint | undefined>(INTERNED);
const MAX_INTEGER_DIGITS = 400;
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * Set by scanNumber: the token was an integer, and it had more than 15 digits (then the
 * double it returned is not exact and the caller reads the token again).
 */
let scannedInt = false;
let scannedLong = false;

function parseNumber(): number | bigint {
  const start = pos;
  const value = scanNumber();
  if (!scannedInt) return value;
  if (scannedLong) return BigInt(src.slice(start, pos));
  if (value <= 0) return BigInt(value); // BigInt(-0) is 0n, as wanted for `-0`
  return value < INTERNED ? (SMALL_INTS[value] ??= BigInt(value)) : BigInt(value);
}

/** A number token as a double; scannedInt and scannedLong say what kind of token it was. */
function scanNumber(): number {
  const start = pos;
  let c = src.charCodeAt(pos);
  const negative = c === 0x2d;
  if (negative) c = src.charCodeAt(++pos);
  const digitsAt = pos;
  // `m` collects all significant digits while it stays exact (at most 15 digits < 2^53).
  let m = 0;
  if (c === 0x30) {
    c = src.charCodeAt(++pos);
    if (c >= 0x30 && c <= 0x39) throw fail(pos, 'leading zero in number');
  } else if (c >= 0x31 && c <= 0x39) {
    do {
      m = m * 10 + (c - 0x30);
      c = src.charCodeAt(++pos);
    } while (c >= 0x30 && c <= 0x39);
  } else {
    throw unexpected();
  }
  let digits = pos - digitsAt;
  if (c !== 0x2e && c !== 0x65 && c !== 0x45) {
    // Turning a huge token into a bigint costs time quadratic in its length (seconds for a
    // megabyte of digits, on the thread that parses requests). 400 digits cover every
    // finite double written as an integer; nothing longer can be a valid value.
    if (digits > MAX_INTEGER_DIGITS) throw fail(start, `integer token with ${digits} digits (at most ${MAX_INTEGER_DIGITS})`);
    scannedInt = true;
    scannedLong = digits > 15;
    return negative ? -m : m;
  }
  scannedInt = false;
  let scale = 0;
  if (c === 0x2e) {
    c = src.charCodeAt(++pos);
    if (!(c >= 0x30 && c <= 0x39)) throw unexpected();
    const fractionAt = pos;
    do {
      m = m * 10 + (c - 0x30);
      c = src.charCodeAt(++pos);
    } while (c >= 0x30 && c <= 0x39);
    scale = fractionAt - pos;
    digits += pos - fractionAt;
  }
  if (c === 0x65 || c === 0x45) {
    c = src.charCodeAt(++pos);
    let expNegative = false;
    if (c === 0x2b || c === 0x2d) {
      expNegative = c === 0x2d;
      c = src.charCodeAt(++pos);
    }
    if (!(c >= 0x30 && c <= 0x39)) throw unexpected();
    let exp = 0;
    do {
      if (exp < 1e6) exp = exp * 10 + (c - 0x30);
      c = src.charCodeAt(++pos);
    } while (c >= 0x30 && c <= 0x39);
    scale += expNegative ? -exp : exp;
  }
  // Clinger's fast path: an exact integer times or over an exact power of ten rounds correctly.
  if (digits <= 15 && scale >= -22 && scale <= 22) {
    const value = scale < 0 ? m / POW10[-scale]! : m * POW10[scale]!;
    return negative ? -value : value;
  }
  // The token is a valid JSON number (checked above), so parseFloat reads all of it and
  // rounds it as Number() does; on 17-digit decimals (a float32 printed by JSON.stringify
  // or Python) it measured 10-25% faster here in the parser (lists of floats only take
  // floatList instead).
  const value = parseFloat(src.slice(start, pos));
  if (!Number.isFinite(value)) throw fail(start, 'number out of range');
  return value;
}

/** Parses one scalar into a column; false for a nested value (not a flat row). */
function scanCell(column: ColumnBuilder): boolean {
  const c = src.charCodeAt(pos);
  if (c === 0x22) {
    column.value(parseString());
  } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    const start = pos;
    const d = scanNumber();
    if (scannedInt && scannedLong) column.value(BigInt(src.slice(start, pos)));
    else column.number(d, scannedInt);
  } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
    column.value(parseValue(0) as boolean | null);
  } else {
    return false;
  }
  return true;
}

/**
 * The array at pos (just past its `[`, at a `{`) as a table, or null with pos where it was
 * when the array is not one: too short, rows that differ, a nested value, or anything the
 * ordinary parser would reject (it parses the array again and reports the error).
 */
function tryTable(depth: number): RowTable | null {
  const start = pos;
  let table: RowTable | null = null;
  try {
    table = scanTable(depth);
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
  }
  if (table === null) pos = start;
  return table;
}

function scanTable(depth: number): RowTable | null {
  if (depth + 1 > depthLimit) return null;
  const keys: string[] = [];
  const columns: ColumnBuilder[] = [];
  // The first row names the keys.
  pos++;
  skipWhitespace();
  for (;;) {
    if (src.charCodeAt(pos) !== 0x22) return null;
    const keyAt = pos;
    const key = parseKey();
    // Later rows are matched against the key's raw text: a key written with escapes (whose
    // decoded text may not stand raw in JSON) takes the ordinary parse.
    if (pos - keyAt - 2 !== key.length || keys.includes(key)) return null;
    skipWhitespace();
    if (src.charCodeAt(pos) !== 0x3a) return null;
    pos++;
    skipWhitespace();
    // A nested value is not a flat row: give up before allocating anything.
    const opening = src.charCodeAt(pos);
    if (opening === 0x7b || opening === 0x5b) return null;
    const column = new ColumnBuilder();
    if (!scanCell(column)) return null;
    keys.push(key);
    columns.push(column);
    skipWhitespace();
    const c = src.charCodeAt(pos++);
    if (c === 0x7d) break;
    if (c !== 0x2c) return null;
    skipWhitespace();
  }
  let rows = 1;
  for (;;) {
    skipWhitespace();
    const c = src.charCodeAt(pos++);
    if (c === 0x5d) break;
    if (c !== 0x2c) return null;
    skipWhitespace();
    if (src.charCodeAt(pos++) !== 0x7b) return null;
    for (let k = 0; k < keys.length; k++) {
      skipWhitespace();
      if (k > 0) {
        if (src.charCodeAt(pos++) !== 0x2c) return null;
        skipWhitespace();
      }
      // The same key, written the same way (a key written with escapes takes the slow path).
      const key = keys[k]!;
      if (src.charCodeAt(pos) !== 0x22 || !src.startsWith(key, pos + 1) || src.charCodeAt(pos + 1 + key.length) !== 0x22) return null;
      pos += key.length + 2;
      skipWhitespace();
      if (src.charCodeAt(pos++) !== 0x3a) return null;
      skipWhitespace();
      if (!scanCell(columns[k]!)) return null;
    }
    skipWhitespace();
    if (src.charCodeAt(pos++) !== 0x7d) return null;
    rows++;
  }
  if (rows < tables!.minRows) return null;
  return { length: rows, keys, columns: columns.map((c) => c.finish()) };
}

function expectWord(word: string): void {
  for (let k = 0; k < word.length; k++, pos++) {
    if (src.charCodeAt(pos) !== word.charCodeAt(k)) throw unexpected();
  }
}

function unexpected(): JsonSyntaxError {
  if (pos >= end) return fail(pos, 'unexpected end of input');
  return fail(pos, `unexpected character ${describeChar(pos)}`);
}

function tooDeep(): JsonSyntaxError {
  const e = fail(pos, `nesting deeper than ${depthLimit} levels`);
  return new JsonSyntaxError(e.reason, e.position, e.line, e.column, true);
}

function fail(at: number, reason: string): JsonSyntaxError {
  return errorAt(src, at, reason);
}

function errorAt(text: string, at: number, reason: string): JsonSyntaxError {
  let line = 1;
  let lineStart = 0;
  for (let k = 0; k < at; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(k + 1) !== 0x0a)) {
      line++;
      lineStart = k + 1;
    }
  }
  return new JsonSyntaxError(reason, at, line, at - lineStart + 1);
}

function describeChar(at: number): string {
  const cp = src.codePointAt(at) ?? 0;
  const visible = cp > 0x20 && cp !== 0x7f && !(cp >= 0x80 && cp <= 0xa0) && cp !== 0xfeff && !(cp >= 0xd800 && cp <= 0xdfff);
  return visible ? `'${String.fromCodePoint(cp)}'` : codePointName(cp);
}

function codePointName(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

function firstLoneSurrogate(text: string): number {
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(k + 1);
      if (next >= 0xdc00 && next <= 0xdfff) k++;
      else return k;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return k;
    }
  }
  return text.length;
}

/** Length of the longest prefix of `bytes` that is complete, valid UTF-8 (only used to locate an error). */
function validUtf8Prefix(bytes: Uint8Array): number {
  let k = 0;
  while (k < bytes.length) {
    const b = bytes[k]!;
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b < 0x80) need = 0;
    else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return k;
    for (let j = 1; j <= need; j++) {
      const cb = bytes[k + j];
      if (cb === undefined || cb < (j === 1 ? lo : 0x80) || cb > (j === 1 ? hi : 0xbf)) return k;
    }
    k += need + 1;
  }
  return k;
}

export { stringifyJson } from './json-stringify.js';
