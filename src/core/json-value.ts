/**
 * A JavaScript value (an embedded caller's request object) as the JSON reader (json.ts)
 * would read its JSON text: the value of `parseJson(stringifyJson(value))`, made without
 * the text. A JS number has lost the distinction of JSON's integer and float tokens; the
 * text it prints as decides it here as it would there: `5` and `-0` are integers
 * (bigint), `5.5` and `1e21` floats. Like the writer, it honours toJSON (Date), skips
 * undefined, function and symbol members, writes null for them in arrays and for
 * non-finite numbers, and reads typed arrays as arrays; like the reader, it refuses lone
 * surrogates and nesting deeper than the limit, and makes row tables of arrays of uniform
 * flat objects (a bulk load's rows) when asked to.
 */
import { clip } from './clip.js';
import { GraphError } from './errors.js';
import { setOwn, type Value, type ValueObject } from './value.js';

export interface JsonValueOptions {
  /** Deepest allowed nesting of arrays and objects (json.ts's default: 255). */
  readonly maxDepth?: number;
  /** Arrays of at least `minRows` items become `make(items)` (row-table.ts decides whether they are rows). */
  readonly tables?: { readonly minRows: number; readonly make: (items: unknown[]) => unknown };
}

/** Integers print without a fraction or exponent below 1e21 (Number.prototype.toString). */
const INTEGER_TOKEN_LIMIT = 1e21;

/**
 * Throws GraphError: `invalid_query_json` for a value with no JSON form (a function, a
 * cycle) or a lone surrogate, `limit_exceeded` past the nesting limit.
 */
export function jsonValueOf(value: unknown, options: JsonValueOptions = {}): unknown {
  const converted = new Converter(options).convert(value, '');
  if (converted === SKIP) throw new GraphError('invalid_query_json', `a ${typeof value} is not a JSON value`);
  return converted;
}

/** A member with no JSON form (skipped in objects, null in arrays). */
const SKIP = Symbol('skip');

class Converter {
  private readonly maxDepth: number;
  private readonly tables: JsonValueOptions['tables'];
  /** The objects and arrays being converted, outermost first. */
  private readonly open: object[] = [];
  /** The keys that lead to the value being converted, for messages. */
  private readonly keys: (string | number)[] = [];

  constructor(options: JsonValueOptions) {
    this.maxDepth = options.maxDepth ?? 255;
    this.tables = options.tables;
  }

  convert(value: unknown, key: string): unknown {
    switch (typeof value) {
      case 'string':
        return wellFormed(value);
      case 'number':
        if (!Number.isFinite(value)) return null;
        if (!Number.isInteger(value) || Math.abs(value) >= INTEGER_TOKEN_LIMIT) return value;
        // Beyond 2^53 a double prints as its shortest decimal, not its exact value: the text's integer.
        return Number.isSafeInteger(value) ? BigInt(value) : BigInt(String(value));
      case 'bigint':
      case 'boolean':
        return value;
      case 'object':
        break;
      default:
        return SKIP;
    }
    if (value === null) return null;
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return this.convert(toJSON.call(value, key), key);
    if (this.open.length >= this.maxDepth) {
      const at = this.path();
      if (this.open.includes(value)) throw new GraphError('invalid_query_json', `the request object contains itself (a cycle) at ${at}`);
      throw new GraphError('limit_exceeded', `the request object nests arrays and objects deeper than ${this.maxDepth} levels at ${at}`);
    }
    this.open.push(value);
    const listed = Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
    const out = listed ? this.array(value as ArrayLike<unknown>) : this.object(value);
    this.open.pop();
    return out;
  }

  private array(value: ArrayLike<unknown>): unknown {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let k = 0; k < value.length; k++) {
      this.keys.push(k);
      const item = this.convert(value[k], String(k));
      this.keys.pop();
      out[k] = item === SKIP ? null : item;
    }
    return this.tables !== undefined && out.length >= this.tables.minRows ? this.tables.make(out) : out;
  }

  private object(value: object): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const obj = value as Record<string, unknown>;
    for (const k of Object.keys(obj)) {
      this.keys.push(k);
      const member = this.convert(obj[k], k);
      this.keys.pop();
      if (member === SKIP) continue;
      // A member named "__proto__" stays a member, as the reader keeps it.
      setOwn(out as ValueObject, wellFormed(k), member as Value);
    }
    return out;
  }

  /** Where the value being converted is, as a JSON path (`query.read.entries[0]`), clipped. */
  private path(): string {
    const text = this.keys.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
    return clip(text === '' ? '$' : text);
  }
}

function wellFormed(s: string): string {
  if ((s as unknown as { isWellFormed(): boolean }).isWellFormed()) return s;
  let k = 0;
  for (;;) {
    const c = s.charCodeAt(k);
    const next = s.charCodeAt(k + 1);
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) k += 2;
    else if (c >= 0xd800 && c <= 0xdfff) break;
    else k++;
  }
  const unit = `U+${s.charCodeAt(k).toString(16).toUpperCase()}`;
  throw new GraphError('invalid_query_json', `the request object holds a string with a lone surrogate ${unit}`);
}
