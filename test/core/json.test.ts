import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JsonSyntaxError, parseJson, parseJsonBytes, stringifyJson } from '../../src/core/json.js';

function syntaxError(text: string, reason: string, line?: number, column?: number): void {
  assert.throws(
    () => parseJson(text),
    (err: unknown) => {
      assert.ok(err instanceof JsonSyntaxError, `expected JsonSyntaxError, got ${String(err)}`);
      assert.equal(err.reason, reason, `reason for ${JSON.stringify(text)}`);
      if (line !== undefined) assert.equal(err.line, line, `line for ${JSON.stringify(text)}`);
      if (column !== undefined) assert.equal(err.column, column, `column for ${JSON.stringify(text)}`);
      assert.equal(err.message, `${reason} at line ${err.line} column ${err.column}`);
      return true;
    },
  );
}

describe('parseJson values', () => {
  it('parses literals, strings, arrays and objects', () => {
    assert.deepEqual(parseJson(' {"a": [true, false, null, "x"], "b": {}} '), {
      a: [true, false, null, 'x'],
      b: {},
    });
    assert.deepEqual(parseJson('[]'), []);
    assert.equal(parseJson('"plain"'), 'plain');
    assert.equal(parseJson('\t\r\n null \n'), null);
  });

  it('makes integer tokens bigint and other numbers finite doubles', () => {
    assert.equal(parseJson('5'), 5n);
    assert.equal(parseJson('0'), 0n);
    assert.equal(parseJson('-0'), 0n);
    assert.equal(parseJson('-17'), -17n);
    assert.equal(parseJson('5.0'), 5);
    assert.equal(typeof parseJson('5.0'), 'number');
    assert.equal(typeof parseJson('5e0'), 'number');
    assert.equal(parseJson('5E+2'), 500);
    assert.equal(parseJson('-1.5e-3'), -0.0015);
    assert.equal(parseJson('0.1'), 0.1);
    assert.ok(Object.is(parseJson('-0.0'), -0));
    assert.equal(parseJson('1e-400'), 0);
    assert.equal(parseJson('1.7976931348623157e308'), Number.MAX_VALUE);
  });

  it('keeps big integers exact', () => {
    assert.equal(parseJson('9223372036854775807'), 2n ** 63n - 1n);
    assert.equal(parseJson('-9223372036854775808'), -(2n ** 63n));
    assert.equal(parseJson('18446744073709551621'), 2n ** 64n + 5n);
    assert.equal(parseJson('9007199254740993'), 2n ** 53n + 1n);
    assert.equal(parseJson('999999999999999'), 999999999999999n);
    assert.equal(parseJson('-1000000000000000'), -1000000000000000n);
    const hundred = '1234567890'.repeat(10);
    assert.equal(parseJson(hundred), BigInt(hundred));
    assert.deepEqual(parseJson(`{"id": -${hundred}}`), { id: -BigInt(hundred) });
    const most = '9'.repeat(400);
    assert.equal(parseJson(most), BigInt(most));
  });

  it('refuses integer tokens of more than 400 digits at once, with a short message', () => {
    // A megabyte of digits would take about a second to convert to a bigint.
    const huge = '9'.repeat(1_000_000);
    assert.throws(() => parseJson(`{"x": ${huge}}`), {
      name: 'JsonSyntaxError',
      message: 'integer token with 1000000 digits (at most 400) at line 1 column 7',
    });
    assert.throws(() => parseJson('-' + '1'.repeat(401)), /integer token with 401 digits/);
  });

  it('decodes escapes and surrogate pairs', () => {
    assert.equal(parseJson(String.raw`"a\"b\\c\/d\be\ff\ng\rh\ti"`), 'a"b\\c/d\be\ff\ng\rh\ti');
    assert.equal(parseJson(String.raw`"\u0041\u00e9\u4E2D"`), 'Aé中');
    assert.equal(parseJson(String.raw`"x\ud83d\ude00y"`), 'x😀y');
    assert.equal(parseJson('"😀 raw é"'), '😀 raw é');
    assert.equal(parseJson(String.raw`"\u0000"`), '\u0000');
    assert.deepEqual(parseJson(String.raw`{"k\n": "v\t"}`), { 'k\n': 'v\t' });
  });

  it('stores a __proto__ key as an own member', () => {
    const value = parseJson('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value), ['__proto__', 'a']);
    assert.deepEqual(Object.getOwnPropertyDescriptor(value, '__proto__')?.value, { polluted: true });
    assert.equal((value as { polluted?: unknown }).polluted, undefined);
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
  });

  it('accepts inherited names such as toString as ordinary keys', () => {
    assert.deepEqual(parseJson('{"toString": 1, "constructor": 2}'), { toString: 1n, constructor: 2n });
  });

  it('allows nesting to maxDepth and rejects one level more', () => {
    let deepest = parseJson('['.repeat(255) + ']'.repeat(255));
    for (let level = 1; level < 255; level++) deepest = (deepest as unknown[])[0];
    assert.deepEqual(deepest, []);
    syntaxError('['.repeat(256) + ']'.repeat(256), 'nesting deeper than 255 levels', 1, 256);
    syntaxError('{"a":'.repeat(256) + '1' + '}'.repeat(256), 'nesting deeper than 255 levels', 1, 1276);
    assert.deepEqual(parseJson('[[1]]', { maxDepth: 2 }), [[1n]]);
    assert.throws(() => parseJson('[[1]]', { maxDepth: 1 }), /nesting deeper than 1 levels/);
    assert.equal(parseJson('7', { maxDepth: 0 }), 7n);
    assert.ok(Array.isArray(parseJson('['.repeat(1000) + ']'.repeat(1000), { maxDepth: 1000 })));
    assert.throws(() => parseJson('1', { maxDepth: 1001 }), RangeError);
  });

  it('reads a list of floats only (an embedding) exactly as token by token: the same values, errors and positions', () => {
    // Each text once as a list of floats (the fast path), once with a string first (the general path).
    const same = (list: string) => {
      const fast = parseJson(list) as unknown[];
      const general = (parseJson(`["x",${list.slice(1)}`) as unknown[]).slice(1);
      assert.deepEqual(fast, general, list);
      return fast;
    };
    assert.deepEqual(same('[1.5, -2e3 ,0.25,\n1E-7]'), [1.5, -2000, 0.25, 1e-7]);
    assert.ok(Object.is((same('[-0.0]') as number[])[0], -0));
    // An integer token keeps its bigint, wherever it stands.
    assert.deepEqual(same('[0.5,2,0.5]'), [0.5, 2n, 0.5]);
    // The general path reports what the fast one leaves to it, at the same place.
    syntaxError('[0.5, 1e400]', 'number out of range', 1, 7);
    syntaxError('[0.5,01.5]', 'leading zero in number', 1, 7);
    syntaxError('[0.5,]', "unexpected character ']'", 1, 6);
    syntaxError('[0.5 0.5]', "unexpected character '0'", 1, 6);
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 40 }), (values) => {
        // JSON.stringify writes integral doubles without a fraction (integer tokens): both paths agree either way.
        const text = JSON.stringify(values.map((v) => (Object.is(v, -0) ? 0 : v)));
        same(text);
        const floats = values.filter((v) => !Number.isInteger(v));
        if (floats.length > 0) assert.deepEqual(parseJson(JSON.stringify(floats)), floats);
      }),
    );
  });
});

describe('parseJson syntax errors', () => {
  it('reports position, line and column', () => {
    const text = '{\n  "a": 1,\n  "b": [1, 2,}\n}';
    assert.throws(
      () => parseJson(text),
      (err: unknown) => {
        assert.ok(err instanceof JsonSyntaxError);
        assert.equal(err.message, "unexpected character '}' at line 3 column 14");
        assert.equal(err.position, text.indexOf('}'));
        assert.equal(err.line, 3);
        assert.equal(err.column, 14);
        return true;
      },
    );
    syntaxError('[1,\r\n2,\r3 x]', "unexpected character 'x'", 3, 3);
  });

  it('rejects trailing commas, comments and junk after the value', () => {
    syntaxError('[1,2,]', "unexpected character ']'", 1, 6);
    syntaxError('{"a":1,}', "unexpected character '}'", 1, 8);
    syntaxError('[1 // c\n]', "unexpected character '/'", 1, 4);
    syntaxError('/* c */ 1', "unexpected character '/'", 1, 1);
    syntaxError('1 2', "unexpected character '2'", 1, 3);
    syntaxError('{} x', "unexpected character 'x'", 1, 4);
    syntaxError('', 'unexpected end of input', 1, 1);
    syntaxError('  ', 'unexpected end of input', 1, 3);
    syntaxError('[1', 'unexpected end of input', 1, 3);
    syntaxError('{"a"', 'unexpected end of input', 1, 5);
    syntaxError('{"a" 1}', "unexpected character '1'", 1, 6);
    syntaxError('{a:1}', "unexpected character 'a'", 1, 2);
    syntaxError("['x']", "unexpected character '''", 1, 2);
    syntaxError('[1;2]', "unexpected character ';'", 1, 3);
  });

  it('rejects bad literals and non-JSON numbers', () => {
    syntaxError('tru', 'unexpected end of input', 1, 4);
    syntaxError('trux', "unexpected character 'x'", 1, 4);
    syntaxError('True', "unexpected character 'T'", 1, 1);
    syntaxError('NaN', "unexpected character 'N'", 1, 1);
    syntaxError('Infinity', "unexpected character 'I'", 1, 1);
    syntaxError('-Infinity', "unexpected character 'I'", 1, 2);
    syntaxError('01', 'leading zero in number', 1, 2);
    syntaxError('-012', 'leading zero in number', 1, 3);
    syntaxError('+1', "unexpected character '+'", 1, 1);
    syntaxError('.5', "unexpected character '.'", 1, 1);
    syntaxError('1.', 'unexpected end of input', 1, 3);
    syntaxError('1.e5', "unexpected character 'e'", 1, 3);
    syntaxError('1e', 'unexpected end of input', 1, 3);
    syntaxError('1e+', 'unexpected end of input', 1, 4);
    syntaxError('0x10', "unexpected character 'x'", 1, 2);
    syntaxError('-', 'unexpected end of input', 1, 2);
    syntaxError('[1e400]', 'number out of range', 1, 2);
    syntaxError('-1.0e309', 'number out of range', 1, 1);
  });

  it('rejects bad strings', () => {
    syntaxError('{"name": "abc', 'unterminated string', 1, 10);
    syntaxError('"abc\\', 'unterminated string', 1, 1);
    syntaxError('"a\nb"', 'unescaped control character U+000A in string', 1, 3);
    syntaxError('"a\u0000"', 'unescaped control character U+0000 in string', 1, 3);
    syntaxError('"a\\tb\u001f"', 'unescaped control character U+001F in string', 1, 6);
    syntaxError('"\\x"', "invalid escape 'x'", 1, 2);
    syntaxError('"\\\'"', "invalid escape '''", 1, 2);
    syntaxError('"\\u12G4"', "invalid \\u escape: unexpected character 'G'", 1, 6);
    syntaxError('"\\u12', 'unexpected end of input', 1, 6);
    syntaxError('"\\ud800"', 'lone surrogate U+D800 in \\u escape', 1, 2);
    syntaxError('"\\ud800\\u0041"', 'lone surrogate U+D800 in \\u escape', 1, 2);
    syntaxError('"\\udc00"', 'lone surrogate U+DC00 in \\u escape', 1, 2);
    syntaxError('"ok\ud800"', 'lone surrogate U+D800', 1, 4);
    syntaxError('\ufeff{}', 'unexpected character U+FEFF', 1, 1);
    syntaxError('\u00a0{}', 'unexpected character U+00A0', 1, 1);
  });

  it('rejects duplicate keys', () => {
    syntaxError('{\n  "id": 1,\n  "name": "a",\n  "name": "b"}', 'duplicate key "name"', 4, 3);
    syntaxError('{"a":{"x":1},"b":{"x":1,"x":2}}', 'duplicate key "x"', 1, 25);
    syntaxError('{"__proto__":1,"__proto__":2}', 'duplicate key "__proto__"', 1, 16);
    syntaxError('{"a\\u0062":1,"ab":2}', 'duplicate key "ab"', 1, 14);
  });
});

describe('parseJsonBytes', () => {
  const encode = (s: string) => new TextEncoder().encode(s);

  it('decodes UTF-8', () => {
    assert.deepEqual(parseJsonBytes(encode('{"name":"Zoë 😀","n":12345678901234567890}')), {
      name: 'Zoë 😀',
      n: 12345678901234567890n,
    });
  });

  it('ignores one leading byte order mark', () => {
    assert.deepEqual(parseJsonBytes(Uint8Array.of(0xef, 0xbb, 0xbf, ...encode('[1]'))), [1n]);
    assert.throws(() => parseJsonBytes(Uint8Array.of(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x31)), JsonSyntaxError);
  });

  it('rejects invalid UTF-8 with a location', () => {
    const cases: [Uint8Array, number, number][] = [
      [Uint8Array.of(...encode('{"a":\n "x'), 0xff, ...encode('"}')), 2, 4],
      [Uint8Array.of(...encode('"é'), 0xc3), 1, 3], // truncated sequence
      [Uint8Array.of(0x22, 0xc0, 0xaf, 0x22), 1, 2], // overlong '/'
      [Uint8Array.of(0x22, 0xed, 0xa0, 0x80, 0x22), 1, 2], // encoded surrogate
      [Uint8Array.of(0x22, 0xf4, 0x90, 0x80, 0x80, 0x22), 1, 2], // above U+10FFFF
      [Uint8Array.of(0x22, 0x80, 0x22), 1, 2], // stray continuation byte
    ];
    for (const [bytes, line, column] of cases) {
      assert.throws(
        () => parseJsonBytes(bytes),
        (err: unknown) => {
          assert.ok(err instanceof JsonSyntaxError);
          assert.equal(err.reason, 'invalid UTF-8');
          assert.equal(err.line, line);
          assert.equal(err.column, column);
          return true;
        },
      );
    }
  });

  it('reports syntax errors in decoded text', () => {
    assert.throws(() => parseJsonBytes(encode('{"a":1,}')), /unexpected character '}' at line 1 column 8/);
  });
});

describe('stringifyJson', () => {
  it('prints like JSON.stringify without whitespace', () => {
    const value = { b: 1, a: ['x', true, null, { c: 'q"\n\u0001\ud800' }], e: {}, f: [] };
    assert.equal(stringifyJson(value), JSON.stringify(value));
    assert.equal(stringifyJson('é😀'), JSON.stringify('é😀'));
    assert.equal(stringifyJson(-0), '0');
    assert.equal(stringifyJson(1e21), '1e+21');
  });

  it('prints bigint exactly and non-finite numbers as null', () => {
    assert.equal(stringifyJson({ id: 2n ** 64n + 5n, neg: -(2n ** 63n) }), '{"id":18446744073709551621,"neg":-9223372036854775808}');
    assert.equal(stringifyJson([NaN, Infinity, -Infinity, 1.5]), '[null,null,null,1.5]');
  });

  it('prints typed arrays as arrays', () => {
    assert.equal(stringifyJson(Float32Array.of(0.5, NaN)), '[0.5,null]');
    assert.equal(stringifyJson(Float64Array.of(0.1, -2)), '[0.1,-2]');
    assert.equal(stringifyJson(BigInt64Array.of(-(2n ** 63n), 7n)), '[-9223372036854775808,7]');
    assert.equal(stringifyJson({ u: Uint8Array.of(0, 255) }), '{"u":[0,255]}');
    assert.equal(stringifyJson(new Uint8Array(0)), '[]');
  });

  it('skips undefined members, nulls undefined array slots and honours toJSON', () => {
    assert.equal(stringifyJson({ a: undefined, b: 1, c: () => 1, d: Symbol('s') }), '{"b":1}');
    assert.equal(stringifyJson([undefined, () => 1]), '[null,null]');
    const date = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
    assert.equal(stringifyJson({ at: date }), JSON.stringify({ at: date }));
    assert.equal(stringifyJson({ a: { toJSON: () => undefined }, b: 2n, c: { toJSON: () => undefined } }), '{"b":2}');
    assert.equal(stringifyJson([{ toJSON: (k: string) => k }]), '["0"]');
    assert.throws(() => stringifyJson(undefined), TypeError);
  });

  it('keeps insertion order and a __proto__ member', () => {
    const parsed = parseJson('{"z":1,"__proto__":2,"a":3}');
    assert.equal(stringifyJson(parsed), '{"z":1,"__proto__":2,"a":3}');
  });

  it('throws TypeError on cycles', () => {
    const a: unknown[] = [];
    a.push(a);
    assert.throws(() => stringifyJson(a), TypeError);
  });
});

describe('round trips (property)', () => {
  const nonIntegralDouble = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d));
  const { value: jsonValue } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.bigInt(),
      nonIntegralDouble,
      fc.string({ unit: 'binary' }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value')),
      fc.dictionary(fc.string({ unit: 'binary' }), tie('value'), { noNullPrototype: true }),
    ),
  }));

  it('parseJson(stringifyJson(v)) deep-equals v', () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        assert.deepEqual(parseJson(stringifyJson(v)), v);
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on JSON text without numbers', () => {
    const numberFree = fc.json({ stringUnit: 'binary' }).filter((text) => !/[0-9]/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""')));
    fc.assert(
      fc.property(numberFree, (text) => {
        assert.deepEqual(parseJson(text), JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('reads float tokens exactly as Number() does', () => {
    const digits = (max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: max });
    const decimal = fc
      .tuple(fc.boolean(), fc.nat({ max: 10 ** 12 }), digits(20), fc.option(fc.integer({ min: -330, max: 330 })))
      .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}.${frac}${exp === null ? '' : `e${exp}`}`);
    const printed = fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Number.isInteger(d) ? `${d}.5` : String(d)));
    fc.assert(
      fc.property(fc.oneof(decimal, printed), (text) => {
        const expected = Number(text);
        if (!Number.isFinite(expected)) return;
        assert.ok(Object.is(parseJson(text), expected), text);
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with JSON.parse on numbers once integers are widened', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const widen = (v: unknown): unknown =>
          typeof v === 'bigint'
            ? Number(v)
            : Array.isArray(v)
              ? v.map(widen)
              : v !== null && typeof v === 'object'
                ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, widen(x)]))
                : v;
        assert.deepEqual(widen(parseJson(text)), JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('rejects what JSON.parse rejects on mutated JSON text', () => {
    const mutated = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom(',', '}', ']', '"', ':', '0', '\\', 'x', ' ', '{', '['))
      .map(([text, at, ch]) => {
        const k = at % (text.length + 1);
        return text.slice(0, k) + ch + text.slice(k);
      });
    fc.assert(
      fc.property(mutated, (text) => {
        let native = true;
        try {
          JSON.parse(text);
        } catch {
          native = false;
        }
        let reason: string | undefined;
        try {
          parseJson(text);
        } catch (err) {
          if (!(err instanceof JsonSyntaxError)) throw err;
          reason = err.reason;
        }
        if (!native) assert.notEqual(reason, undefined, text);
        // JSON.parse accepts duplicate keys and turns 1e999 into Infinity; we reject both on purpose.
        else if (reason !== undefined) assert.match(reason, /^(duplicate key|number out of range)/, text);
      }),
      { numRuns: 1000 },
    );
  });
});
