/**
 * The Cypher body's JSON Schema (src/cypher/request.ts), which the OpenAPI document
 * publishes, against its decoder: on generated bodies, valid and invalid, the schema
 * accepts exactly what decodeCypherRequest accepts. (Integers stay within 64 bits: a
 * range beyond what a double holds exactly is the one rule the schema states in words.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseJson } from '../../src/core/json.js';
import { CYPHER_PARAMETER_SCHEMA, CYPHER_REQUEST_SCHEMA, decodeCypherRequest } from '../../src/cypher/request.js';

const ajv = new Ajv2020({ strict: false });
ajv.addSchema({ $id: 'trellis', components: { schemas: { CypherParameter: CYPHER_PARAMETER_SCHEMA } } });
// The body schema's $refs point into the document's components: resolved against the set above.
const check = ajv.compile(JSON.parse(JSON.stringify(CYPHER_REQUEST_SCHEMA).replaceAll('#/components/', 'trellis#/components/')) as object);

function accepted(text: string): boolean {
  try {
    decodeCypherRequest(parseJson(text));
    return true;
  } catch {
    return false;
  }
}

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 4 }),
);
const envelope = fc.oneof(
  fc.record({
    $type: fc.constant('integer'),
    value: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), fc.constantFrom('1.5', 'x', '01', '')),
  }),
  fc.record({
    $type: fc.constant('float'),
    value: fc.oneof(fc.constantFrom('NaN', 'Infinity', '-Infinity', 'nan'), fc.double({ min: -10, max: 10, noNaN: true })),
  }),
  fc.record({ $type: fc.constantFrom('integer', 'float', 'map', 'date'), value: scalar }),
  fc.record({ $type: fc.constant('float'), value: fc.constant(1), extra: fc.constant(true) }),
  fc.record({ $type: fc.constant('map') }),
);
const parameter: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, envelope, tie('list'), tie('map'), tie('mapEnvelope')),
  list: fc.array(tie('value'), { maxLength: 3 }),
  map: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
  mapEnvelope: fc.record({ $type: fc.constant('map'), value: fc.dictionary(fc.constantFrom('$type', 'k'), tie('value'), { maxKeys: 2 }) }),
})).value;

const body = fc.record(
  {
    query: fc.oneof(fc.constant('RETURN 1'), scalar),
    parameters: fc.oneof(fc.constant(null), fc.dictionary(fc.constantFrom('x', 'y', '$type'), parameter, { maxKeys: 3 }), scalar),
    query_name: fc.oneof(fc.constant(null), fc.string({ maxLength: 3 }), fc.integer()),
    other: fc.constant(1),
  },
  { requiredKeys: [] },
);

test('the Cypher body schema accepts exactly what the decoder accepts', () => {
  fc.assert(
    fc.property(fc.oneof(body, scalar, fc.array(scalar, { maxLength: 2 })), (json) => {
      const text = JSON.stringify(json);
      assert.equal(check(JSON.parse(text)), accepted(text), text);
    }),
    { numRuns: 3000 },
  );
});

test('hand-picked bodies: the envelopes and their mistakes', () => {
  const cases: [unknown, boolean][] = [
    [{ query: 'RETURN $a', parameters: { a: { $type: 'integer', value: '9007199254740993' } } }, true],
    [{ query: 'RETURN $a', parameters: { a: [{ $type: 'map', value: { $type: { $type: 'float', value: 'NaN' } } }] } }, true],
    [{ query: 'RETURN $a', parameters: { a: { $type: 'integer', value: '1.0' } } }, false],
    [{ query: 'RETURN $a', parameters: { a: { $type: 'float', value: 'nan' } } }, false],
    [{ query: 'RETURN $a', parameters: { a: { $type: 'uuid', value: 'x' } } }, false],
    [{ query: 1 }, false],
    [{ parameters: {} }, false],
    [{ query: 'RETURN 1', query_name: null, parameters: null }, true],
  ];
  for (const [json, expected] of cases) {
    const text = JSON.stringify(json);
    assert.equal(accepted(text), expected, `decoder: ${text}`);
    assert.equal(check(json), expected, `schema: ${text}`);
  }
});
