/**
 * Values of the openCypher TCK: the syntax its result and parameter tables write values in,
 * the same values read from our response JSON (src/exec/table/encode.ts), their comparison,
 * and parameters as request JSON.
 *
 * The TCK syntax: integers `-12`; floats `1.0`, `.5`, `1e-3`, `-1.5e305`, `NaN`, `Inf`, `-Inf`
 * (a float always has a fraction, an exponent or is one of the three names, so `1` and `1.0`
 * are different values); strings in single quotes, with `\'` and `\\` escapes (Gherkin has
 * already turned a table cell's `\n` into a newline); `true`, `false`, `null`; lists `[1, 2]`;
 * maps `{name: 'A'}`; nodes `(:A:B {name: 'x'})` (no identity: compared by label set and
 * properties); relationships `[:T {num: 1}]`; paths `<(:A)-[:T]->(:B)<-[:U]-()>`.
 *
 * In memory: integers are `bigint`, floats `number`, lists arrays; maps, nodes,
 * relationships and paths are the classes below.
 */
import { cypherNumberText } from '../../src/core/json-stringify.js';

export type TckValue = null | boolean | bigint | number | string | TckValue[] | TckMap | TckNode | TckRel | TckPath;

export class TckMap {
  constructor(readonly entries: ReadonlyMap<string, TckValue>) {}
}

export class TckNode {
  constructor(
    readonly labels: readonly string[],
    readonly props: ReadonlyMap<string, TckValue>,
  ) {}
}

export class TckRel {
  constructor(
    readonly type: string,
    readonly props: ReadonlyMap<string, TckValue>,
  ) {}
}

/** `rels[i]` joins `nodes[i]` and `nodes[i + 1]`; `forward`: it points from nodes[i] to nodes[i + 1]. */
export class TckPath {
  constructor(
    readonly nodes: readonly TckNode[],
    readonly rels: readonly { readonly rel: TckRel; readonly forward: boolean }[],
  ) {}
}

export class TckValueSyntaxError extends Error {
  override name = 'TckValueSyntaxError';
}

// ---- the TCK's value syntax ----

const NUMBER = /-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?/y;
const NAME = /[\p{L}\p{N}_$]+/uy;
const ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };

/** A value in the TCK's syntax (a table cell) to a value; TckValueSyntaxError when it is not one. */
export function parseTckValue(text: string): TckValue {
  let pos = 0;
  const fail = (what: string): never => {
    throw new TckValueSyntaxError(`${what} at ${pos} in ${JSON.stringify(text)}`);
  };
  const ws = () => {
    while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  };
  const eat = (s: string): boolean => {
    ws();
    if (!text.startsWith(s, pos)) return false;
    pos += s.length;
    return true;
  };
  const expect = (s: string) => {
    if (!eat(s)) fail(`expected ${JSON.stringify(s)}`);
  };
  const name = (): string => {
    ws();
    if (text[pos] === '`') {
      const close = text.indexOf('`', pos + 1);
      if (close < 0) fail('unterminated `name`');
      const out = text.slice(pos + 1, close);
      pos = close + 1;
      return out;
    }
    NAME.lastIndex = pos;
    const m = NAME.exec(text) ?? fail('expected a name');
    pos += m[0].length;
    return m[0];
  };
  const entries = (): Map<string, TckValue> => {
    // At '{'.
    expect('{');
    const out = new Map<string, TckValue>();
    if (eat('}')) return out;
    do {
      const key = name();
      expect(':');
      out.set(key, value());
    } while (eat(','));
    expect('}');
    return out;
  };
  const string = (): string => {
    pos++; // the opening quote
    let out = '';
    while (pos < text.length && text[pos] !== "'") {
      const c = text[pos]!;
      if (c === '\\' && pos + 1 < text.length) {
        const next = text[pos + 1]!;
        if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
          out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
          pos += 6;
          continue;
        }
        out += ESCAPES[next] ?? c + next;
        pos += 2;
        continue;
      }
      out += c;
      pos++;
    }
    if (pos >= text.length) fail('unterminated string');
    pos++;
    return out;
  };
  const node = (): TckNode => {
    expect('(');
    const labels: string[] = [];
    while (eat(':')) labels.push(name());
    ws();
    const props = text[pos] === '{' ? entries() : new Map<string, TckValue>();
    expect(')');
    return new TckNode(labels, props);
  };
  const rel = (): TckRel => {
    expect('[');
    expect(':');
    const type = name();
    ws();
    const props = text[pos] === '{' ? entries() : new Map<string, TckValue>();
    expect(']');
    return new TckRel(type, props);
  };
  const path = (): TckPath => {
    expect('<');
    const nodes = [node()];
    const rels: { rel: TckRel; forward: boolean }[] = [];
    while (!eat('>')) {
      if (eat('<-')) {
        const r = rel();
        expect('-');
        rels.push({ rel: r, forward: false });
      } else {
        expect('-');
        const r = rel();
        expect('->');
        rels.push({ rel: r, forward: true });
      }
      nodes.push(node());
    }
    return new TckPath(nodes, rels);
  };
  const value = (): TckValue => {
    ws();
    const c = text[pos];
    if (c === undefined) return fail('expected a value');
    if (c === '(') return node();
    if (c === '<') return path();
    if (c === '{') return new TckMap(entries());
    if (c === "'") return string();
    if (c === '[') {
      const after = pos;
      pos++;
      ws();
      if (text[pos] === ':') {
        pos = after;
        return rel();
      }
      const items: TckValue[] = [];
      if (eat(']')) return items;
      do items.push(value());
      while (eat(','));
      expect(']');
      return items;
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
      ['NaN', NaN],
      ['Inf', Infinity],
      ['-Inf', -Infinity],
    ] as const) {
      if (text.startsWith(word, pos) && !/[\p{L}\p{N}_]/u.test(text[pos + word.length] ?? '')) {
        pos += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text) ?? fail('expected a value');
    pos += m[0].length;
    return /[.eE]/.test(m[0]) ? Number(m[0]) : BigInt(m[0]);
  };
  const out = value();
  ws();
  if (pos < text.length) fail('unexpected text after the value');
  return out;
}

// ---- our response JSON ----

/**
 * A cell of our response (parsed by src/core/json.ts: integer tokens as bigint, others as
 * number) to a value: `$type` envelopes for big integers, non-finite floats, nodes,
 * relationships and paths; a path's relationship is forward when it starts at the node before it.
 */
export function fromResponse(cell: unknown): TckValue {
  if (cell === null || typeof cell === 'boolean' || typeof cell === 'bigint' || typeof cell === 'string') return cell;
  if (typeof cell === 'number') return cell;
  if (Array.isArray(cell)) return cell.map(fromResponse);
  if (typeof cell !== 'object') throw new TypeError(`unexpected ${typeof cell} in a response`);
  const o = cell as Record<string, unknown>;
  const props = (p: unknown) => new Map(Object.entries((p ?? {}) as Record<string, unknown>).map(([k, v]) => [k, fromResponse(v)]));
  switch (o.$type) {
    case 'integer':
      return BigInt(o.value as string);
    case 'float':
      return o.value === 'NaN' ? NaN : o.value === 'Infinity' ? Infinity : -Infinity;
    case 'node':
      return new TckNode(o.labels as string[], props(o.properties));
    case 'relationship':
      return new TckRel(o.type as string, props(o.properties));
    case 'path': {
      const nodes = o.nodes as Record<string, unknown>[];
      const rels = o.relationships as Record<string, unknown>[];
      return new TckPath(
        nodes.map((n) => fromResponse(n) as TckNode),
        rels.map((r, i) => ({ rel: fromResponse(r) as TckRel, forward: r.start === nodes[i]!.id })),
      );
    }
  }
  return new TckMap(new Map(Object.entries(o).map(([k, v]) => [k, fromResponse(v)])));
}

// ---- printing, comparison ----

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const nameText = (s: string) => (/^[\p{L}_][\p{L}\p{N}_]*$/u.test(s) ? s : '`' + s + '`');

function floatTckText(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Inf' : '-Inf';
  const s = String(n);
  return /[.e]/.test(s) ? s : s + '.0';
}

/**
 * A value in the TCK's syntax, canonical: map keys and node labels sorted, so two values are
 * equal exactly when their texts are. `unorderedLists`: list items sorted too (the TCK's
 * "ignoring element order for lists").
 */
export function tckText(v: TckValue, unorderedLists = false): string {
  const props = (m: ReadonlyMap<string, TckValue>) =>
    m.size === 0
      ? ''
      : ` {${[...m.keys()]
          .sort()
          .map((k) => `${nameText(k)}: ${tckText(m.get(k)!, unorderedLists)}`)
          .join(', ')}}`;
  const node = (n: TckNode) =>
    `(${[...n.labels]
      .sort()
      .map((l) => ':' + nameText(l))
      .join('')}${props(n.props)})`;
  const rel = (r: TckRel) => `[:${nameText(r.type)}${props(r.props)}]`;
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return String(v);
    case 'bigint':
      return v.toString();
    case 'number':
      return floatTckText(v);
    case 'string':
      return quote(v);
  }
  if (Array.isArray(v)) {
    const items = v.map((x) => tckText(x, unorderedLists));
    if (unorderedLists) items.sort();
    return `[${items.join(', ')}]`;
  }
  if (v instanceof TckMap) return props(v.entries).trim() || '{}';
  if (v instanceof TckNode) return node(v);
  if (v instanceof TckRel) return rel(v);
  let out = '<' + node(v.nodes[0]!);
  v.rels.forEach((r, i) => {
    out += (r.forward ? `-${rel(r.rel)}->` : `<-${rel(r.rel)}-`) + node(v.nodes[i + 1]!);
  });
  return out + '>';
}

export function tckEqual(a: TckValue, b: TckValue, unorderedLists = false): boolean {
  return tckText(a, unorderedLists) === tckText(b, unorderedLists);
}

export interface RowsVerdict {
  readonly ok: boolean;
  readonly reason: string;
}

/**
 * Expected rows against actual ones, both as canonical row texts (cells joined by ' | '):
 * in order, or as multisets. The reason names what is missing and what is extra.
 */
export function compareRows(expected: readonly string[], actual: readonly string[], ordered: boolean): RowsVerdict {
  if (ordered) {
    if (expected.length === actual.length && expected.every((row, i) => row === actual[i])) return { ok: true, reason: '' };
    const at = expected.findIndex((row, i) => row !== actual[i]);
    const i = at < 0 ? expected.length : at;
    return {
      ok: false,
      reason: `rows differ (in order) at row ${i}: expected ${expected[i] ?? '(no row)'}, got ${actual[i] ?? '(no row)'}; ${expected.length} expected, ${actual.length} got`,
    };
  }
  const counts = new Map<string, number>();
  for (const row of expected) counts.set(row, (counts.get(row) ?? 0) + 1);
  const extra: string[] = [];
  for (const row of actual) {
    const n = counts.get(row) ?? 0;
    if (n > 0) counts.set(row, n - 1);
    else extra.push(row);
  }
  const missing = [...counts].flatMap(([row, n]) => Array<string>(n).fill(row));
  if (missing.length === 0 && extra.length === 0) return { ok: true, reason: '' };
  const few = (rows: string[]) => rows.slice(0, 3).join(' ; ') + (rows.length > 3 ? ` ; ... (${rows.length})` : '');
  return {
    ok: false,
    reason: `rows differ: ${expected.length} expected, ${actual.length} got${missing.length > 0 ? `; missing ${few(missing)}` : ''}${extra.length > 0 ? `; unexpected ${few(extra)}` : ''}`,
  };
}

// ---- parameters ----

/**
 * A value as request JSON text that keeps what stringifyJson of an object would lose: a
 * float with an integral value stays a float (`1.0`), integers beyond 2^53 and non-finite
 * floats become `$type` envelopes.
 */
export function toJsonText(v: TckValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return String(v);
    case 'bigint':
    case 'number':
      return cypherNumberText(v);
    case 'string':
      return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(',')}]`;
  if (v instanceof TckMap) return `{${[...v.entries].map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`).join(',')}}`;
  throw new TypeError(`a ${v.constructor.name} cannot be a parameter`);
}
