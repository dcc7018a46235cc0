/**
 * Schema versions and MIGRATION blocks at load time (src/hql/project.ts, src/hql/migration.ts;
 * reference helixql-v1.md §2.1, §2.3): the items of a version merge across files, the queries
 * are checked against the highest version, a duplicate is an error within one version only,
 * and every check of a migration is a diagnostic at its place.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadProject, type Project } from '../../src/hql/project.js';
import { tempDir } from '../helpers/server.js';

const dir = tempDir('trellis-migrations-');
after(() => dir.remove());
let count = 0;

/** Loads a project made of `files` (name to text). */
function load(files: Record<string, string>): ReturnType<typeof loadProject> {
  const project = join(dir.path, `p${count++}`);
  mkdirSync(project);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
  return loadProject(project, { mcp: false });
}

function loads(files: Record<string, string>): Project {
  const loaded = load(files);
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.report);
  return loaded.project;
}

/** The diagnostics of a project that must not load, as `file:line:column: message` lines. */
function diagnostics(files: Record<string, string>): string[] {
  const loaded = load(files);
  assert.equal(loaded.ok, false, 'the project does not load');
  return loaded.ok ? [] : loaded.report.split('\n\n').map((d) => d.split('\n')[0]!);
}

const V1 =
  'schema::1 {\n    N::User { name: String, age: I32, born: String }\n    E::Knows { From: User, To: User, Properties: { since: I64 } }\n}\n';
const V2 =
  'schema::2 {\n    N::User { username: String, age: U32, post_count: U32, born: Date, joined: Date, score: F64, note: String }\n' +
  '    E::Knows { From: User, To: User, Properties: { since: I64, weight: F64 } }\n}\n';
const QUERIES = 'QUERY users() => u <- N<User> RETURN u::{username, post_count}\n';

/** A project at V1 and V2 whose migration maps User with `fields` (and Knows as it is). */
const migration = (fields: string, more = '') => ({
  'schema.hx': `${V1}${V2}MIGRATION schema::1 => schema::2 {\n    N::User => _::{ ${fields} }\n${more}}\n`,
  'queries.hx': QUERIES,
});

test('versions: the items of one version merge across files, the queries are checked against the highest version', () => {
  const project = loads({
    'a.hx': 'schema::1 { N::User { name: String } }\nschema::2 { N::User { username: String } }\n',
    'b.hx': 'schema::2 { N::Post { title: String }\n E::Wrote { From: User, To: Post } }\nN::Old { x: I8 }\n',
    'queries.hx':
      'QUERY posts(u: ID) => p <- N<User>(u)::Out<Wrote> RETURN p::{title}\nQUERY users() => u <- N<User> RETURN u::{username}\n',
  });
  assert.deepEqual(project.versions.versions, [1, 2]);
  assert.deepEqual([...project.schema.nodes.keys()].sort(), ['Post', 'User']);
  assert.deepEqual([...project.schema.edges.keys()], ['Wrote']);
  assert.deepEqual([...project.versions.steps.keys()], [], 'no migration declared');
  // A field of version 1 only is no field of the queries' schema.
  assert.deepEqual(
    diagnostics({
      'a.hx': 'schema::1 { N::User { name: String } }\nschema::2 { N::User { username: String } }\n',
      'queries.hx': 'QUERY users() => u <- N<User> RETURN u::{name}\n',
    }),
    ['queries.hx:1:42: "name" is not a field of node type User (its fields: username) (in query users)'],
  );
  // Without schema::N blocks, everything is version 1, as before.
  assert.deepEqual(loads({ 's.hx': 'N::A { x: I8 }', 'q.hx': 'QUERY a() => x <- N<A> RETURN x' }).versions.versions, [1]);
});

test('a type declared twice is an error within one version only, across files too', () => {
  assert.deepEqual(
    diagnostics({
      'a.hx': 'schema::2 { N::User { name: String } }\n',
      'b.hx': 'schema::1 { N::User { name: String } }\nschema::2 { N::User { nick: String } }\n',
    }),
    ['b.hx:2:16: type "User" is defined twice (first at line 1)'],
  );
  // Unversioned items are version 1: a schema::1 block declaring them again is a duplicate.
  assert.deepEqual(diagnostics({ 'a.hx': 'N::User { name: String }\nschema::1 { N::User { name: String } }\n' }), [
    'a.hx:2:16: type "User" is defined twice (first at line 1)',
  ]);
  // Each version is checked whole: an edge of version 2 needs its ends in version 2.
  assert.deepEqual(
    diagnostics({
      'a.hx': 'schema::1 { N::User { name: String } }\nschema::2 { N::Post { t: String }\n E::Wrote { From: User, To: Post } }\n',
    }),
    ['a.hx:3:19: edge "Wrote" connects "User", which is not a node or vector type'],
  );
});

test('the example migration loads: renamed field, cast, literal default', () => {
  const project = loads(migration('username: name, age: age AS U32, post_count: 0'));
  const step = project.versions.steps.get(1)!;
  assert.equal(step.to, 2);
  assert.equal(step.at, 'schema.hx:9');
  assert.ok(step.entries.length > 0);
});

test('every field value form loads: NOW, NONE, a float, an int widened, AS String, AS Date, the Properties form of an edge', () => {
  loads(
    migration(
      'username: name, age: age AS U32, post_count: 7, joined: NOW, note: NONE, score: 2, born: born AS Date',
      '    E::Knows => _::{ Properties: { since: since, weight: since AS F64 } }\n',
    ),
  );
  loads(migration('note: age AS String, score: age AS F64, post_count: age AS U32'));
});

test('the versions of a migration must exist (E108) and go forward; one migration per version', () => {
  const files = (m: string) => ({ 'schema.hx': `${V1}${V2}${m}`, 'queries.hx': QUERIES });
  assert.deepEqual(diagnostics(files('MIGRATION schema::1 => schema::3 {}\n')), [
    'schema.hx:9:24: schema::3 is not a version of this project: no schema item is declared in it (the versions: schema::1, schema::2)',
  ]);
  assert.deepEqual(diagnostics(files('MIGRATION schema::7 => schema::2 {}\n')), [
    'schema.hx:9:11: schema::7 is not a version of this project: no schema item is declared in it (the versions: schema::1, schema::2)',
  ]);
  assert.deepEqual(diagnostics(files('MIGRATION schema::2 => schema::1 {}\n')), [
    'schema.hx:9:24: a migration goes to a later version: schema::2 => schema::1',
  ]);
  assert.deepEqual(diagnostics(files('MIGRATION schema::1 => schema::2 {}\nMIGRATION schema::1 => schema::2 {}\n')), [
    'schema.hx:10:1: a second migration from schema::1 (the first is at schema.hx:9); each version has at most one',
  ]);
});

test('the old item must exist in the old version, the new one in the new version, of the same kind', () => {
  const files = (mapping: string) => ({
    'schema.hx': `${V1}${V2}schema::2 { V::Doc { t: String } }\nMIGRATION schema::1 => schema::2 {\n    ${mapping}\n}\n`,
    'queries.hx': QUERIES,
  });
  assert.deepEqual(diagnostics(files('N::Post => _::{}')), ['schema.hx:11:5: node type "Post" is not declared in schema::1']);
  assert.deepEqual(diagnostics(files('N::User => N::Member {}')), ['schema.hx:11:16: node type "Member" is not declared in schema::2']);
  assert.deepEqual(diagnostics(files('V::User => _::{}')), ['schema.hx:11:5: "User" is a node type in schema::1, not a vector type']);
  assert.deepEqual(diagnostics(files('N::User => V::Doc {}')), ['schema.hx:11:16: a node type maps to a node type, not to V::Doc']);
  assert.deepEqual(diagnostics(files('N::User => _::{}\n    N::User => _::{}')), [
    'schema.hx:12:5: N::User is mapped twice in this migration (first at line 11)',
  ]);
  // An edge keeps its label.
  assert.deepEqual(
    diagnostics({
      'schema.hx': `${V1}${V2}schema::2 { E::Follows { From: User, To: User } }\nMIGRATION schema::1 => schema::2 {\n    E::Knows => E::Follows {}\n}\n`,
      'queries.hx': QUERIES,
    }),
    [
      'schema.hx:11:17: an edge keeps its label in Trellis: edge type "Knows" cannot become "Follows" (map E::Knows => _::{...}, or create the new edges in a query)',
    ],
  );
});

test('each mapped field: a field of the new item (E202), given once, from a field of the old item, of a value that fits', () => {
  const at = (fields: string) => diagnostics(migration(fields));
  assert.deepEqual(at('nick: name'), ['schema.hx:10:21: "nick" is not a field of node type User of schema::2']);
  assert.deepEqual(at('username: name, username: born'), ['schema.hx:10:37: "username" is given twice']);
  assert.deepEqual(at('username: nick'), ['schema.hx:10:31: "nick" is not a field of node type User of schema::1']);
  assert.deepEqual(at('post_count: "many"'), ['schema.hx:10:33: the value of "post_count" is a string, but the field is U32']);
  assert.deepEqual(at('post_count: -1'), ['schema.hx:10:33: the value of "post_count" is -1, out of the range of U32 (0 to 4294967295)']);
  assert.deepEqual(at('post_count: 1.5'), ['schema.hx:10:33: the value of "post_count" is the float 1.5, but the field is U32']);
  assert.deepEqual(at('born: "not a date"'), [
    'schema.hx:10:27: the value of "born" is "not a date", which is not a date (RFC 3339 or YYYY-MM-DD)',
  ]);
  assert.deepEqual(at('post_count: NOW'), ['schema.hx:10:33: NOW is a date, but "post_count" is U32']);
});

test('AS converts numbers to numbers, anything to String, a String to a Date, to the new field type; without AS the types must agree', () => {
  const at = (fields: string) => diagnostics(migration(fields));
  assert.deepEqual(at('age: age'), ['schema.hx:10:26: the old "age" is I32, the new "age" is U32: convert it with "age AS U32"']);
  assert.deepEqual(at('born: born'), ['schema.hx:10:27: the old "born" is String, the new "born" is Date: convert it with "born AS Date"']);
  assert.deepEqual(at('age: age AS I64'), ['schema.hx:10:33: "age" is U32, so the cast is AS U32, not AS I64']);
  assert.deepEqual(at('age: name AS U32'), [
    'schema.hx:10:34: String does not convert to U32: AS converts numbers to numbers, any value to String, and a String to a Date',
  ]);
  assert.deepEqual(at('joined: age AS Date'), [
    'schema.hx:10:36: I32 does not convert to Date: AS converts numbers to numbers, any value to String, and a String to a Date',
  ]);
  assert.deepEqual(at('username: age'), [
    'schema.hx:10:31: the old "age" is I32, the new "username" is String: convert it with "age AS String"',
  ]);
  assert.deepEqual(at('post_count: born'), [
    'schema.hx:10:33: the old "born" is String, the new "post_count" is U32: the one does not convert to the other',
  ]);
  // Every problem of a migration is reported at once.
  assert.equal(at('nick: name, age: age, post_count: "x"').length, 3);
});

test('`..` carries over each field of the new item the old one has by the same name; one that needs AS is named at the `..`', () => {
  // username, age and born are listed; the rest of V2's User (post_count, joined, score,
  // note) is not in V1's, so `..` carries nothing and loads.
  loads(migration('username: name, age: age AS U32, born: born AS Date, ..'));
  loads(migration('username: name, age: age AS U32, born: born AS Date, ..,'));
  // age (I32 to U32) and born (String to Date) would be converted: `..` refuses, naming each.
  assert.deepEqual(diagnostics(migration('username: name, ..')), [
    'schema.hx:10:37: ".." carries "age" over, but the old "age" is I32 and the new one U32: list it as "age: age AS U32"',
    'schema.hx:10:37: ".." carries "born" over, but the old "born" is String and the new one Date: list it as "born: born AS Date"',
  ]);
  assert.deepEqual(diagnostics(migration('.., username: name')), [
    'schema.hx:10:25: ".." ends the field mappings: expected "}" after it, found "username"',
  ]);
  // In the Properties form of an edge too: Knows keeps `since` (I64 to I64).
  loads(migration('username: name, age: age AS U32, born: born AS Date', '    E::Knows => _::{ Properties: { .. } }\n'));
});
