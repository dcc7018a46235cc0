/**
 * The parameter checks of a named-query call (src/hql/params.ts, DECISIONS D16): every
 * declared type against the JSON it accepts, the parameter (and the place inside it) named
 * in each error, and the values the query's batch runs with (printed as /v2/query prints
 * values: floats with a fraction).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ParamDef } from '../../src/hql/ast.js';
import { parse } from '../../src/hql/parser.js';
import { checkParameters } from '../../src/hql/params.js';
import { parseJson } from '../../src/core/json.js';
import { GraphError } from '../../src/core/errors.js';
import { encodeValue } from '../../src/exec/encode.js';
import type { Value } from '../../src/core/value.js';

/** The parameters of `QUERY q(<declared>) => RETURN NONE`. */
function params(declared: string): readonly ParamDef[] {
  const { file, errors } = parse(`QUERY q(${declared}) =>\n RETURN NONE`);
  assert.deepEqual(errors, []);
  return file.queries[0]!.params;
}

const sent = (declared: string, body: string) => encodeValue(checkParameters(params(declared), parseJson(body)) as Value);

function refused(declared: string, body: string, msg: RegExp): void {
  assert.throws(
    () => sent(declared, body),
    (err: unknown) => err instanceof GraphError && err.code === 'invalid_parameter' && msg.test(err.msg),
    `${declared} with ${body}`,
  );
}

test('integer types: their own ranges, exact at any size', () => {
  assert.equal(sent('n: U32', '{"n": 4294967295}'), '{"n":4294967295}');
  refused('n: U32', '{"n": 4294967296}', /"n" is 4294967296, out of the range of U32 \(0 to 4294967295\)/);
  refused('n: U32', '{"n": -1}', /"n" is -1, out of the range of U32/);
  assert.equal(sent('n: I64', '{"n": -9223372036854775808}'), '{"n":-9223372036854775808}');
  refused('n: I64', '{"n": 9223372036854775808}', /out of the range of I64/);
  refused('n: I8', '{"n": 128}', /out of the range of I8 \(-128 to 127\)/);
  refused('n: U16', '{"n": "5"}', /"n" must be an integer \(U16\), got the string "5"/);
});

test('floats stay floats on the way to the batch; integers are accepted for them', () => {
  assert.equal(sent('x: F64', '{"x": 3}'), '{"x":3.0}');
  assert.equal(sent('x: F64', '{"x": 2.5}'), '{"x":2.5}');
  // Floats print as floats that JSON can read: exponents as they are, the sign of zero kept.
  assert.equal(sent('x: F64', '{"x": 1.5e300}'), '{"x":1.5e+300}');
  assert.equal(sent('x: F64', '{"x": -0.0}'), '{"x":-0.0}');
  assert.equal(sent('x: F32', '{"x": 1e3}'), '{"x":1000.0}');
  refused('x: F32', '{"x": 1e39}', /"x" is out of the range of F32/);
  refused('x: F64', '{"x": "1.5"}', /"x" must be a number \(F64\)/);
});

test('Boolean, String, Date and ID', () => {
  assert.equal(sent('b: Boolean, s: String', '{"b": false, "s": "a\\"b"}'), '{"b":false,"s":"a\\"b"}');
  refused('b: Boolean', '{"b": 1}', /"b" must be a Boolean \(true or false\), got the integer 1/);
  assert.equal(sent('d: Date', '{"d": "2026-01-02T03:04:05Z"}'), '{"d":"2026-01-02T03:04:05Z"}');
  refused('d: Date', '{"d": "2026-13-01T00:00:00Z"}', /"d" must be a Date: an RFC 3339 string/);
  assert.equal(sent('id: ID', '{"id": "42"}'), '{"id":42}');
  refused('id: ID', '{"id": 1.0}', /"id" must be an ID/);
  assert.equal(sent('id: ID', '{"id": "9223372036854775807"}'), '{"id":9223372036854775807}');
  refused('id: ID', '{"id": "9223372036854775808"}', /"id" is 9223372036854775808, out of the range of ID/);
  refused('id: ID', '{"id": "123456789012345678901"}', /"id" must be an ID/);
  refused('id: ID', '{"id": "+1"}', /"id" must be an ID/);
  refused('id: ID', '{"id": " 1"}', /"id" must be an ID/);
});

test('arrays and objects: every element and field checked, the place named', () => {
  assert.equal(sent('xs: [U8]', '{"xs": [1, 2]}'), '{"xs":[1,2]}');
  refused('xs: [U8]', '{"xs": [1, 300]}', /"xs"\[1\] is 300, out of the range of U8/);
  refused('xs: [U8]', '{"xs": 1}', /"xs" must be an array \(\[U8\]\)/);
  const row = 'rows: [{name: String, age: U8}]';
  assert.equal(sent(row, '{"rows": [{"age": 3, "name": "a"}]}'), '{"rows":[{"name":"a","age":3}]}');
  refused(row, '{"rows": [{"name": "a"}]}', /"rows"\[0\]\.age \(U8\) is missing/);
  refused(row, '{"rows": [{"name": "a", "age": 1, "x": 0}]}', /"rows"\[0\] has an unknown field "x"/);
});

test('an optional parameter may be left out or null; it is sent as null', () => {
  assert.equal(sent('n?: U8', '{}'), '{"n":null}');
  assert.equal(sent('n?: U8', '{"n": null}'), '{"n":null}');
  assert.equal(sent('n?: U8', '{"n": 7}'), '{"n":7}');
  refused('n: U8', '{}', /"n" \(U8\) is missing/);
});
