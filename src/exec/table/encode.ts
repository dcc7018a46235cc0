/**
 * A Cypher result as the response body of reference/cypher.md: `{"columns": [...], "rows":
 * [[cell, ...], ...]}`. Integers within ±2^53 and finite floats are JSON numbers (a float
 * keeps a fraction: `1.0`); larger integers and non-finite floats are `$type` envelopes;
 * nodes, relationships and paths are `$type` objects read from the transaction now, so
 * they show the statement's own writes. Ids are decimal strings.
 */
import { GraphError } from '../../core/errors.js';
import { cypherNumberText } from '../../core/json-stringify.js';
import { NodeRef, PathValue, RelRef, propertiesOf, type CypherValue } from '../../core/cypher-value.js';
import { LIMITS } from '../../plan/limits.js';
import { labelsOf, type ElementAccess } from './env.js';

export function encodeTable(columns: readonly string[], rows: readonly (readonly CypherValue[])[], access: ElementAccess): string {
  let out = `{"columns":${JSON.stringify(columns)},"rows":[`;
  try {
    for (let i = 0; i < rows.length; i++) {
      out += (i === 0 ? '[' : ',[') + rows[i]!.map((cell) => encodeCell(cell, access)).join(',') + ']';
      if (out.length > LIMITS.maxResponseChars) throw tooLarge();
    }
  } catch (err) {
    if (err instanceof RangeError) throw tooLarge();
    throw err;
  }
  return out + ']}';
}

export function encodeCell(v: CypherValue, access: ElementAccess): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
    case 'number':
      return cypherNumberText(v);
    case 'string':
      return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map((item) => encodeCell(item, access)).join(',')}]`;
  if (v instanceof NodeRef) return encodeNode(v, access);
  if (v instanceof RelRef) return encodeRel(v, access);
  if (v instanceof PathValue)
    return `{"$type":"path","nodes":[${v.nodes.map((n) => encodeNode(n, access)).join(',')}],"relationships":[${v.rels.map((r) => encodeRel(r, access)).join(',')}]}`;
  return encodeMap(v, access);
}

function encodeMap(map: { readonly [key: string]: CypherValue }, access: ElementAccess): string {
  const parts: string[] = [];
  for (const key of Object.keys(map)) parts.push(`${JSON.stringify(key)}:${encodeCell(map[key]!, access)}`);
  return `{${parts.join(',')}}`;
}

function encodeNode(n: NodeRef, access: ElementAccess): string {
  const rec = access.node(n.id, null);
  return `{"$type":"node","id":"${n.id}","labels":${JSON.stringify(labelsOf(rec))},"properties":${encodeMap(propertiesOf(rec.props), access)}}`;
}

function encodeRel(r: RelRef, access: ElementAccess): string {
  const rec = access.rel(r.id, null);
  return `{"$type":"relationship","id":"${r.id}","start":"${rec.from}","end":"${rec.to}","type":${JSON.stringify(rec.label)},"properties":${encodeMap(propertiesOf(rec.props), access)}}`;
}

function tooLarge(): GraphError {
  return new GraphError(
    'resource_limit',
    `the result would exceed ${LIMITS.maxResponseChars} characters; return fewer rows (LIMIT) or columns`,
  );
}
