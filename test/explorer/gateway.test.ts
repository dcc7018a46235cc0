/**
 * The explorer and the OpenAPI document through a real gateway (real Redis, a writer
 * server with a project): the gateway serves the page without a key and GET /openapi.json
 * with a key, restated with its bearer scheme (a valid OpenAPI 3.1 document); in Chromium,
 * a wrong key shows the 401 as a readable message, the right key (kept in session storage
 * only) runs queries and draws their graph, and the project's named queries are listed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Browser } from 'playwright-core';
import { chromiumSkip, launchChromium, openPage, screenshotPath, typeQuery } from '../helpers/browser.js';
import { gatewaySuite, testKey } from '../helpers/gateway.js';
import { SOCIAL } from '../helpers/hql-projects.js';
import { redisSkip } from '../helpers/redis.js';

interface Explorer {
  graph: { order: number };
  lastResult?: { id: number; ok: boolean; nodes: number; error?: { code: string } };
  run(text: string, language: string): Promise<unknown>;
}
declare const window: { __trellisExplorer: Explorer };
declare const document: any;
declare const sessionStorage: { getItem(k: string): string | null };
declare const localStorage: { length: number; key(i: number): string; getItem(k: string): string };

const KEY = testKey('explorer', { main: ['read', 'write'] }, true);
const skip = redisSkip() || chromiumSkip();

describe('the explorer through the gateway', { skip }, () => {
  const suite = gatewaySuite({
    writerArgs: ['--project', SOCIAL],
    file: (urls) => ({
      mode: 'shared',
      redis: { url: urls.redis },
      plans: { open: { rate: 1000, burst: 1000 } },
      databases: { main: { writer: urls.writer, plan: 'open' } },
      keys: [KEY],
    }),
  });
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${suite.gateway.url}${path}`, { headers });
  const auth = { authorization: `Bearer ${KEY.key}`, 'x-svc-database-id': 'main' };

  test('GET /openapi.json needs a key, and is the server document restated with the gateway scheme: valid OpenAPI 3.1', async () => {
    assert.equal((await get('/openapi.json')).status, 400);
    const wrong = await get('/openapi.json', { ...auth, authorization: 'Bearer trk_wrong' });
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { error: string }).error, 'unauthorized');
    assert.equal((await get('/openapi.json', { authorization: auth.authorization })).status, 400, 'shared mode: the database is required');
    const res = await get('/openapi.json', auth);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as any;
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));
    assert.deepEqual(doc.components.securitySchemes.apiKey, { ...doc.components.securitySchemes.apiKey, type: 'http', scheme: 'bearer' });
    assert.deepEqual(doc.security, [{ apiKey: [] }]);
    assert.deepEqual(doc.paths['/healthz'].get.security, [], 'health needs no key');
    assert.deepEqual(doc.paths['/'].get.security, [], 'nor does the explorer');
    const query = doc.paths['/v2/query'].post;
    assert.equal(query.parameters[0].$ref, '#/components/parameters/gateway-database-id');
    assert.equal(doc.components.parameters['gateway-database-id'].required, true);
    for (const [status, code] of <[string, string][]>[
      ['401', 'unauthorized'],
      ['403', 'forbidden'],
      ['429', 'rate_limited'],
      ['402', 'tenant_disabled'],
      ['503', 'rate_limit_unavailable'],
      ['400', 'database_id_required'],
    ]) {
      assert.ok(
        query.responses[status].content['application/json'].schema.allOf[1].properties.error.enum.includes(code),
        `${status} ${code}`,
      );
    }
    assert.ok(query.responses['429'].headers['retry-after']);
    assert.ok(doc.paths['/addUser'].post['x-trellis-query'], "the database's named queries are listed");
    assert.equal(doc.paths['/readyz'].get.security.length, 0);
    assert.equal(doc.paths['/mcp/init'].post.responses['429'], undefined, '/mcp/init spends no token');
  });

  test('the gateway serves the page and its files without a key', async () => {
    const page = await get('/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'self'/);
    const html = await page.text();
    const script = /src="(\/assets\/main-[A-Z0-9]+\.js)"/.exec(html)![1]!;
    assert.equal((await get(script)).status, 200);
    const post = await fetch(`${suite.gateway.url}/`, { method: 'POST', body: '{}' });
    assert.notEqual(post.status, 200);
  });

  test('in Chromium: a wrong key is a readable 401; the right key, kept in session storage only, runs queries', async () => {
    const { page, problems } = await openPage(browser, `${suite.gateway.url}/`);
    await page.waitForFunction(() => /gateway/.test(document.querySelector('[data-testid=status-chip]').textContent));
    await page.getByTestId('database-id').fill('main');
    await page.getByTestId('database-id').dispatchEvent('change');
    await page.getByTestId('api-key').fill('trk_not_a_real_key');
    await page.getByTestId('api-key').dispatchEvent('change');
    await typeQuery(page, 'MATCH (n) RETURN n LIMIT 5');
    await page.getByTestId('run').click();
    const error = page.getByTestId('error');
    await error.waitFor({ state: 'visible' });
    assert.equal((await error.textContent())?.trim(), '401 unauthorized: the API key is not valid. Check the API key in the key field.');
    await page.screenshot({ path: screenshotPath('gateway-401.png') });

    await page.getByTestId('api-key').fill(KEY.key);
    await page.getByTestId('api-key').dispatchEvent('change');
    await page.evaluate(() =>
      window.__trellisExplorer.run("CREATE p = (:Person {name: 'Ada'})-[:KNOWS]->(:Person {name: 'Bob'}) RETURN p", 'cypher'),
    );
    const result = await page.evaluate(() => window.__trellisExplorer.lastResult);
    assert.equal(result!.ok, true, JSON.stringify(result));
    assert.equal(await page.evaluate(() => window.__trellisExplorer.graph.order), 2);
    assert.equal(await error.isHidden(), true);
    await page.getByTestId('named-addUser').waitFor({ state: 'attached' });
    assert.equal(await page.evaluate(() => sessionStorage.getItem('trellis.key')), KEY.key);
    const stored = await page.evaluate(() =>
      Array.from({ length: localStorage.length }, (_, i) => localStorage.getItem(localStorage.key(i))).join('\n'),
    );
    assert.ok(!stored.includes(KEY.key), 'the key is never in local storage');
    assert.deepEqual(
      problems.filter((p) => !/status of 40[01]/.test(p)),
      [],
    );
  });
});
