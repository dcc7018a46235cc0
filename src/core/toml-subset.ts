/**
 * The part of TOML that HelixDB's `helix.toml` is written in (src/config.ts reads it):
 * `[table.headers]`, `key = value` lines with dotted or quoted keys, and values that are
 * strings (basic and literal), integers, floats, booleans, and one-line arrays and inline
 * tables of these. Anything else (multi-line strings or arrays, dates, `[[array tables]]`)
 * is an error naming its line, never a silent misreading.
 */

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export class TomlError extends Error {}

export function parseToml(text: string): TomlTable {
  const root: TomlTable = Object.create(null) as TomlTable;
  let table = root;
  text.split(/\r?\n/).forEach((raw, i) => {
    const r = new Reader(raw, i + 1);
    r.space();
    if (r.done() || r.peek() === '#') return;
    if (r.peek() === '[') {
      r.next();
      if (r.peek() === '[') r.fail('[[array tables]] are not read here');
      r.space();
      const path = r.keyPath();
      r.expect(']');
      r.endOfLine();
      table = tableAt(root, path, r);
      return;
    }
    const path = r.keyPath();
    r.expect('=');
    const value = r.value();
    r.endOfLine();
    const last = path.pop()!;
    const holder = tableAt(table, path, r);
    if (Object.hasOwn(holder, last)) r.fail(`"${last}" is set twice`);
    holder[last] = value;
  });
  return root;
}

function tableAt(from: TomlTable, path: readonly string[], r: Reader): TomlTable {
  let t = from;
  for (const key of path) {
    const next = t[key];
    if (next === undefined) t = t[key] = Object.create(null) as TomlTable;
    else if (typeof next === 'object' && !Array.isArray(next)) t = next;
    else r.fail(`"${key}" is a value, not a table`);
  }
  return t;
}

const BARE_KEY = /[A-Za-z0-9_-]/;
const ESCAPES: Readonly<Record<string, string>> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

class Reader {
  private at = 0;

  constructor(
    private readonly line: string,
    private readonly number: number,
  ) {}

  fail(message: string): never {
    throw new TomlError(`line ${this.number}: ${message}`);
  }

  done(): boolean {
    return this.at >= this.line.length;
  }

  peek(): string {
    return this.line[this.at] ?? '';
  }

  next(): string {
    return this.line[this.at++] ?? '';
  }

  space(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.at++;
  }

  expect(c: string): void {
    this.space();
    if (this.next() !== c) this.fail(`"${c}" expected`);
    this.space();
  }

  endOfLine(): void {
    this.space();
    if (!this.done() && this.peek() !== '#') this.fail(`unexpected "${this.line.slice(this.at)}"`);
  }

  keyPath(): string[] {
    const path = [this.key()];
    this.space();
    while (this.peek() === '.') {
      this.next();
      this.space();
      path.push(this.key());
      this.space();
    }
    return path;
  }

  private key(): string {
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    const start = this.at;
    while (BARE_KEY.test(this.peek())) this.at++;
    if (this.at === start) this.fail('a key expected');
    return this.line.slice(start, this.at);
  }

  value(): TomlValue {
    this.space();
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    const start = this.at;
    while (!this.done() && !/[\s,\]}#]/.test(this.peek())) this.at++;
    const word = this.line.slice(start, this.at);
    if (word === 'true' || word === 'false') return word === 'true';
    const digits = word.replace(/_/g, '');
    if (/^[+-]?(0|[1-9][0-9]*)$/.test(digits)) return Number(digits);
    if (/^[+-]?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(digits)) return Number(digits);
    return this.fail(
      word === '' ? 'a value expected' : `"${word}" is not a value read here (a string, number, boolean, array or inline table)`,
    );
  }

  private string(): string {
    const quote = this.next();
    if (this.line.startsWith(quote.repeat(2), this.at)) this.fail('multi-line strings are not read here');
    let out = '';
    for (;;) {
      if (this.done()) this.fail('a string is not closed on its line');
      const c = this.next();
      if (c === quote) return out;
      if (c !== '\\' || quote === "'") {
        out += c;
        continue;
      }
      const e = this.next();
      if (e === 'u' || e === 'U') {
        const hex = this.line.slice(this.at, this.at + (e === 'u' ? 4 : 8));
        if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== (e === 'u' ? 4 : 8)) this.fail('a bad \\u escape');
        this.at += hex.length;
        out += String.fromCodePoint(parseInt(hex, 16));
      } else if (Object.hasOwn(ESCAPES, e)) out += ESCAPES[e];
      else this.fail(`an unknown escape "\\${e}"`);
    }
  }

  private array(): TomlValue[] {
    this.next();
    const items: TomlValue[] = [];
    this.space();
    while (this.peek() !== ']') {
      if (this.done()) this.fail('multi-line arrays are not read here');
      items.push(this.value());
      this.space();
      if (this.peek() === ',') {
        this.next();
        this.space();
      } else if (this.peek() !== ']') this.fail('"," or "]" expected');
    }
    this.next();
    return items;
  }

  private inlineTable(): TomlTable {
    this.next();
    const t: TomlTable = Object.create(null) as TomlTable;
    this.space();
    while (this.peek() !== '}') {
      const path = this.keyPath();
      this.expect('=');
      const last = path.pop()!;
      const holder = tableAt(t, path, this);
      if (Object.hasOwn(holder, last)) this.fail(`"${last}" is set twice`);
      holder[last] = this.value();
      this.space();
      if (this.peek() === ',') {
        this.next();
        this.space();
      } else if (this.peek() !== '}') this.fail('"," or "}" expected');
    }
    this.next();
    return t;
  }
}
