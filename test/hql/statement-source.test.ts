/**
 * A named query's runtime errors are told in the query's terms (statement-source.ts): the
 * compiler records, per batch entry, the statement it comes from (hidden entries a statement
 * asked for, a FOR loop's, RETURN's own), and a message that starts with a batch path is
 * told from that statement's place instead; other messages are left as they are.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileQuery } from '../../src/hql/compile.js';
import { parse } from '../../src/hql/parser.js';
import { buildSchema } from '../../src/hql/schema.js';
import { sourcedMessage } from '../../src/hql/statement-source.js';

const SOURCE = `N::User { name: String }
E::Follows { From: User, To: User }

QUERY walk(from: ID, to: ID, names: [String]) =>
    start <- N<User>(from)
    path <- start::ShortestPath<Follows>::To(to)
    FOR name IN names {
        AddN<User>({name: name})
    }
    DROP N<User>(to)
    RETURN path, start::Out<Follows>::COUNT
`;

function compiled() {
  const parsed = parse(SOURCE);
  assert.deepEqual(parsed.errors, []);
  const { schema } = buildSchema(parsed.file.types.map((item) => ({ file: 'q.hx', item })));
  const { compiled, problems } = compileQuery(parsed.file.queries[0]!, schema);
  assert.deepEqual(problems, []);
  return compiled!;
}

test('every batch entry has the statement it was lowered from, hidden and RETURN entries included', () => {
  const query = compiled();
  assert.equal(query.statements.length, query.batch.entries.length);
  const seen = query.statements.map((s) => `${s.what} ${s.line}:${s.column}`);
  // The path's hidden start entry belongs to the path's statement; RETURN's count is an entry of its own.
  assert.deepEqual(
    [...new Set(seen)],
    ['statement "start" 5:5', 'statement "path" 6:5', 'the FOR loop over "names" 7:5', 'the DROP statement 10:5', 'RETURN 11:5'],
  );
  assert.ok(seen.filter((s) => s.startsWith('statement "path"')).length >= 2, seen.join(', '));
});

test('a message from a batch path names the statement, its file place and the operation; others are kept', () => {
  const query = { ...compiled(), file: 'queries.hx' };
  const at = (what: string) => query.statements.findIndex((s) => s.what === what);
  const loop = at('the FOR loop over "names"');
  assert.equal(
    sourcedMessage(query, `query.write.entries[${loop}].for_each.body[0].query.root.add_n.properties[0]: too long`),
    'query walk, the FOR loop over "names" (queries.hx:7:5), at add_n.properties[0]: too long',
  );
  assert.equal(
    sourcedMessage({ ...query, file: null }, `query.write.entries[${at('the DROP statement')}]: nothing`),
    'query walk, the DROP statement (line 10:5): nothing',
  );
  for (const kept of ['parameter "from" must be an ID', 'query.write.entries[99].query: out of range', 'the body is not valid JSON'])
    assert.equal(sourcedMessage(query, kept), kept);
});
