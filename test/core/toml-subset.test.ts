/** The TOML that helix.toml is written in (src/core/toml-subset.ts): what it reads, and what it refuses by line. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseToml, TomlError } from '../../src/core/toml-subset.js';

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

test('tables, dotted and quoted keys, strings, numbers, booleans, arrays and inline tables', () => {
  const t = parseToml(
    [
      'top = 1 # a comment',
      '[project]',
      'name = "my \\"app\\" \\u00e9"',
      "path = 'C:\\raw'",
      '',
      '[local.dev]',
      'port = 6_969',
      'ratio = -0.5e1',
      'on = true',
      'tags = [ "a", 2, [false] ]',
      'inline = { m = 16, "ef search" = 768 }',
      'a.b = "dotted"',
      '[ "quoted key" . x ]',
      'y = ""',
    ].join('\r\n'),
  );
  assert.deepEqual(plain(t), {
    top: 1,
    project: { name: 'my "app" é', path: 'C:\\raw' },
    local: { dev: { port: 6969, ratio: -5, on: true, tags: ['a', 2, [false]], inline: { m: 16, 'ef search': 768 }, a: { b: 'dotted' } } },
    'quoted key': { x: { y: '' } },
  });
});

test('what it does not read is an error naming the line', () => {
  const refused = (text: string, message: RegExp) =>
    assert.throws(
      () => parseToml(text),
      (err: unknown) => err instanceof TomlError && message.test(err.message),
    );
  refused('a = """x"""', /^line 1: multi-line strings are not read here$/);
  refused('\n[[bin]]', /^line 2: \[\[array tables\]\] are not read here$/);
  refused('a = [1,\n2]', /^line 1: multi-line arrays are not read here$/);
  refused('a = 1979-05-27', /^line 1: "1979-05-27" is not a value read here/);
  refused('a = "x" b', /^line 1: unexpected "b"$/);
  refused('a = 1\n[a]', /^line 2: "a" is a value, not a table$/);
  refused('a = "\\q"', /^line 1: an unknown escape "\\q"$/);
  refused('= 1', /^line 1: a key expected$/);
  refused('a =', /^line 1: a value expected$/);
});
