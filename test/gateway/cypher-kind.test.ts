import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cypherMayWrite } from '../../src/gateway/cypher-kind.js';

test('statements with a write clause are writes, whatever their case', () => {
  for (const q of [
    'CREATE (n:User {name: $name})',
    'match (n) detach delete n',
    'MATCH (n) SET n.x = 1',
    'MERGE (n:A {id: 1}) ON CREATE SET n.c = 1',
    'MATCH (n) REMOVE n.x',
    'UNWIND [1,2] AS x FOREACH (y IN [x] | CREATE (:N))',
    'CALL db.labels()',
    'MATCH (n) WITH n\nDELETE n',
  ]) {
    assert.equal(cypherMayWrite(q), true, q);
  }
});

test('reads are reads, even when write words appear in strings, comments, backticks or property names', () => {
  for (const q of [
    'MATCH (n:User) RETURN n.name',
    "MATCH (n) WHERE n.note = 'CREATE me' RETURN n",
    'MATCH (n) WHERE n.note = "SET \\" DELETE" RETURN n',
    'MATCH (n) // DELETE everything\nRETURN n',
    'MATCH (n) /* MERGE */ RETURN count(n)',
    'MATCH (n:`CREATE`) RETURN n',
    'MATCH (n) RETURN n.set, n. delete, n.create AS created',
    'MATCH (n) RETURN n.created_at, settings, deleted',
    'RETURN 1',
  ]) {
    assert.equal(cypherMayWrite(q), false, q);
  }
});
