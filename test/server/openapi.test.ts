/**
 * GET /openapi.json on a real server with a project (named queries and MCP on): a valid
 * OpenAPI 3.1 document (checked by @seriousme/openapi-schema-validator), listing every
 * route the router serves and nothing else, every error code of the registry and the
 * option headers; the server's real answers match the response schemas and the bodies
 * sent match the request schemas.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ERROR_REGISTRY } from '../../src/core/errors.js';
import { loadProject } from '../../src/hql/project.js';
import { createLogger } from '../../src/observe/log.js';
import { OPTION_HEADERS } from '../../src/server/headers.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { startServer, type RunningServer } from '../../src/server/start.js';
import { SOCIAL } from '../helpers/hql-projects.js';
import { tempDir } from '../helpers/server.js';

const dir = tempDir('trellis-openapi-');
let server: RunningServer;
let base: string;
let doc: any;

before(async () => {
  const loaded = loadProject(SOCIAL, { mcp: true });
  assert.ok(loaded.ok);
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: dir.path,
    mode: 'writer',
    workers: 1,
    maxBodyBytes: 16 * 1024 * 1024,
    queryTimeoutMs: 30_000,
    logger: createLogger({ name: 'test', level: 'silent' }),
    queries: loaded.project,
  });
  await server.ready;
  base = `http://127.0.0.1:${server.port}`;
  const res = await fetch(`${base}/openapi.json`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  doc = await res.json();
});

after(async () => {
  await server?.close();
  dir.remove();
});

/** A validator of a component schema, or of any schema whose $refs point into the document's components. */
function schemaCheck(schema: object): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema({ $id: 'doc', components: { schemas: doc.components.schemas } });
  return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object);
}

const component = (name: string) => schemaCheck({ $ref: `#/components/schemas/${name}` });

function operations(): [string, string, any][] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): [string, string, any] => [path, method, op]),
  );
}

test('the document is valid OpenAPI 3.1', async () => {
  const validator = new Validator();
  const result = await validator.validate(doc);
  assert.equal(validator.version, '3.1');
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));
  assert.equal(doc.info.title, 'Trellis');
  assert.match(doc.info.version, /^\d+\.\d+\.\d+/);
});

test('every route the router serves is in the document, and the document lists nothing else', () => {
  const listed = new Set(operations().map(([path, method]) => `${method.toUpperCase()} ${path}`));
  const served = new Set(server.routes.map((r) => `${r.method} ${r.path.startsWith('/assets/') ? '/assets/{file}' : r.path}`));
  assert.ok(
    server.routes.some((r) => r.path.startsWith('/assets/')),
    'the explorer is served',
  );
  for (const route of served) assert.ok(listed.has(route), `${route} is served but not documented`);
  for (const route of listed) assert.ok(served.has(route), `${route} is documented but not served`);
  const expected = ['POST /v2/query', 'POST /v2/cypher', 'POST /v2/cypher/explain', 'GET /healthz', 'GET /readyz', 'GET /metrics'];
  expected.push(
    'GET /openapi.json',
    'GET /',
    'GET /assets/{file}',
    'POST /mcp',
    'POST /mcp/init',
    'POST /addUser',
    'POST /mcp/userByNameMcp',
  );
  for (const route of expected) assert.ok(listed.has(route), route);
  for (const [path, method, op] of operations()) assert.equal(op['x-undocumented'], undefined, `${method} ${path}`);
});

test('a route the generator cannot describe is listed and marked, never left out', () => {
  const made = openApiDocument({
    version: '0.0.0',
    routes: [{ method: 'GET', path: '/mystery', handler: () => ({ status: 200, body: '' }) }],
    queries: new Map(),
  });
  assert.equal((made.paths as any)['/mystery'].get['x-undocumented'], true);
});

test('every error code of the registry is in the document, and query routes list them by status', () => {
  const codes = Object.keys(ERROR_REGISTRY);
  assert.deepEqual([...doc.components.schemas.ErrorCode.enum].sort(), [...codes].sort());
  const query = doc.paths['/v2/query'].post;
  // The gateway's own refusals are not the server's answers: they appear in the gateway's document only.
  const gatewayOnly = [
    'unauthorized',
    'forbidden',
    'database_id_required',
    'database_id_not_allowed',
    'tenant_disabled',
    'rate_limited',
    'rate_limit_unavailable',
    'backend_unavailable',
  ];
  for (const code of codes) {
    const status = String(ERROR_REGISTRY[code as keyof typeof ERROR_REGISTRY].status);
    const listed = (query.responses[status]?.content['application/json'].schema.allOf[1].properties.error.enum ?? []) as string[];
    assert.equal(listed.includes(code), !gatewayOnly.includes(code), `${code} (${status}) on POST /v2/query`);
  }
});

test('the option headers and x-request-id are parameters of the query routes', () => {
  const names = (doc.paths['/v2/query'].post.parameters as { $ref: string }[]).map((p) => p.$ref.split('/').pop());
  for (const h of OPTION_HEADERS) {
    assert.ok(names.includes(h.canonical), h.canonical);
    const param = doc.components.parameters[h.canonical];
    assert.equal(param.in, 'header');
    assert.match(param.description, new RegExp(h.alias));
  }
  assert.ok(names.includes('x-request-id'));
  assert.ok(doc.paths['/v2/cypher'].post.responses['200'].headers['x-request-id']);
});

/** Sends `body` to `path`, checking it against the operation's request schema, and the answer against its response schema. */
async function exchange(path: string, body: unknown, status = 200): Promise<any> {
  const op = doc.paths[path].post;
  if (op.requestBody !== undefined) {
    assert.ok(schemaCheck(op.requestBody.content['application/json'].schema)(body), `request schema of ${path}: ${JSON.stringify(body)}`);
  }
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  assert.equal(res.status, status, JSON.stringify(answer));
  const schema = op.responses[String(status)].content['application/json'].schema;
  assert.ok(schemaCheck(schema)(answer), `response schema of ${path} (${status}): ${JSON.stringify(answer)}`);
  return answer;
}

test('real answers match the response schemas', async () => {
  const health = await (await fetch(`${base}/healthz`)).json();
  assert.ok(component('Health')(health), JSON.stringify(health));
  const write = {
    request_type: 'write',
    query: {
      write: {
        entries: [{ query: { name: 'a', root: { add_n: { label: 'User', properties: [['name', { value: { string: 'Ann' } }]] } } } }],
        returns: ['a'],
      },
    },
  };
  await exchange('/v2/query', write);
  await exchange('/v2/query', {
    request_type: 'write',
    query: {
      write: {
        entries: [{ query: { name: 'ix', root: { create_index: { spec: { node_equality: { label: 'User', property: 'name' } } } } } }],
        returns: ['ix'],
      },
    },
  });
  const listed = await exchange('/v2/query', {
    request_type: 'read',
    query: { read: { entries: [{ query: { name: 'ix', root: { list_indexes: {} } } }], returns: ['ix'] } },
  });
  assert.equal(listed.ix[0].kind, 'node_equality');
  await exchange('/v2/cypher', {
    query: 'MATCH p = (n:User)-[*0..1]-() RETURN n, p, 1.5 AS f',
    parameters: { x: { $type: 'integer', value: '9007199254740993' } },
  });
  await exchange('/v2/cypher/explain', { query: 'MATCH (n:User) WHERE n.name = $x RETURN n', parameters: { x: 'Ann' } });
  const error = await exchange('/v2/cypher', { query: 'MATCH (n) RETURN m' }, 400);
  assert.equal(error.error, 'syntax_error');
  assert.ok(error.details, 'a statement error carries details');
  await exchange(
    '/v2/query',
    {
      request_type: 'read',
      query: {
        read: { entries: [{ query: { name: 'x', root: { nodes: { reference: { ids: [999] }, missing: 'error' } } } }], returns: ['x'] },
      },
    },
    400,
  );
  await exchange('/addUser', { name: 'Bo', age: 30, email: 'bo@example.com' });
  await exchange('/getUser', { id: 0 });
  await exchange('/countUsers', {});
  const connection = await exchange('/mcp/init', {});
  assert.equal(typeof connection.connection_id, 'string');
  const readyz = await fetch(`${base}/readyz`);
  assert.ok(component('Health')(await readyz.json()));
  const named = doc.paths['/addUser'].post;
  assert.deepEqual(named['x-trellis-query'], { name: 'addUser', write: true, mcp: false });
  assert.deepEqual(Object.keys(named.requestBody.content['application/json'].schema.properties), ['name', 'age', 'email']);
});
