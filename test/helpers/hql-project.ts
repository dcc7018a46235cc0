/**
 * A query-language project for the tests that serve one: the folder, and a named call that
 * must answer 200.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { postPath, type TestServer } from './server.js';

/** Writes `project/` under `dir` with schema.hx, queries.hx and trellis.json (`config`); answers its path. */
export function writeHqlProject(dir: string, schema: string, queries: string, config: object = {}): string {
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'schema.hx'), schema);
  writeFileSync(join(project, 'queries.hx'), queries);
  writeFileSync(join(project, 'trellis.json'), JSON.stringify(config));
  return project;
}

/** Calls the named query `name`; asserts it answered 200 and answers its body. */
export async function okCall(server: TestServer, name: string, params: unknown = {}): Promise<Record<string, unknown>> {
  const answer = await postPath(server, `/${name}`, params);
  assert.equal(answer.status, 200, `${name}: ${JSON.stringify(answer.body)}`);
  return answer.body as Record<string, unknown>;
}
