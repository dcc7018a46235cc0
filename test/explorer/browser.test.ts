/**
 * The explorer end to end in real headless Chromium against a real server with a project
 * (named queries): the page loads under its CSP with WebGL, the first run loads the sample
 * graph, a Cypher path is drawn, a double-click adds a node's neighbours, a click shows its
 * properties, the table, JSON, schema and explain views, completion of the database's names,
 * a label's colour chosen and remembered, zoom and fit, a named query's form, a JSON body
 * for /v2/query, an error shown as a message, history and favourites, the server panel.
 * Screenshots for docs/explorer.md are taken on the way (test/helpers/browser.ts says where).
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { SAMPLE_CYPHER } from '../../explorer/sample.js';
import { chromiumSkip, launchChromium, openPage, screenshotPath, typeQuery, type WatchedPage } from '../helpers/browser.js';
import { SOCIAL } from '../helpers/hql-projects.js';
import { killOnExit } from '../helpers/reap.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

interface Explorer {
  graph: { order: number; size: number; nodes(): string[]; getNodeAttributes(id: string): { label: string } };
  sigma: unknown;
  lastResult?: {
    id: number;
    ok: boolean;
    nodes: number;
    edges: number;
    rows: number;
    firstFrameMs?: number;
    error?: { code: string };
    language: string;
  };
  run(text: string, language: string): Promise<unknown>;
}
// The functions passed to page.evaluate run in the page: its globals, as far as they use them.
declare const window: { __trellisExplorer: Explorer };
declare const document: any;
type HTMLElement = any;

const skip = chromiumSkip();

describe('the explorer in Chromium', { skip }, () => {
  const dir = tempDir('trellis-explorer-e2e-');
  let server: TestServer;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;

  before(async () => {
    server = killOnExit(await startTestServer(['--data', dir.path, '--project', SOCIAL]));
    browser = await launchChromium();
    watched = await openPage(browser, `${server.url}/`);
    page = watched.page;
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    dir.remove();
  });

  const graphOrder = () => page.evaluate(() => window.__trellisExplorer.graph.order);
  const nodeCountText = async () => Number(await page.getByTestId('node-count').textContent());
  const last = () => page.evaluate(() => window.__trellisExplorer.lastResult);
  /** Waits for the run the page started after `before` to finish. */
  const ranAfter = async (before: { id: number } | undefined) =>
    page.waitForFunction((id) => (window.__trellisExplorer.lastResult?.id ?? 0) > id, before?.id ?? 0);
  const settled = () =>
    page.waitForFunction(() => document.querySelector('[data-testid=layout-toggle]')?.textContent === 'Run layout', null, {
      timeout: 60_000,
    });

  test('the page loads with WebGL under its Content-Security-Policy', async () => {
    assert.equal(await page.title(), 'Trellis Explorer');
    const renderer = await page.evaluate(() => {
      const gl = document.createElement('canvas').getContext('webgl2');
      const info = gl?.getExtension('WEBGL_debug_renderer_info');
      return gl === null || gl === undefined ? null : String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    });
    assert.ok(renderer !== null && renderer.length > 0, 'a WebGL renderer is present');
    console.log(`# WebGL renderer: ${renderer}`);
    const canvases = await page.evaluate(() => [...document.querySelectorAll('[data-testid=graph] canvas')].length);
    assert.ok(canvases >= 2, 'sigma drew its layers into the graph container');
    assert.deepEqual(watched.problems, []);
  });

  test('first run: the empty database offers the sample graph, and the editor holds a runnable example', async () => {
    await page.getByTestId('first-run').waitFor({ state: 'visible' });
    const example = await page.locator('[data-testid=editor] .cm-content').textContent();
    assert.match(example ?? '', /MATCH p = \(a:Person\)-\[r\]->\(b\)/);
    await page.getByTestId('load-sample').click();
    await page.waitForFunction(() => (window.__trellisExplorer.lastResult?.nodes ?? 0) > 0);
    assert.equal(await page.getByTestId('first-run').isHidden(), true);
    const order = await graphOrder();
    assert.equal(order, 28, 'every node of the sample is on a path from a person');
    assert.equal(await nodeCountText(), order);
    await settled();
    await page.getByTestId('fit').click();
    await page.waitForTimeout(400); // the fit animation runs 300 ms
    await page.screenshot({ path: screenshotPath('graph.png') });
    assert.ok(statSync(screenshotPath('graph.png')).size > 10_000);
    assert.ok(SAMPLE_CYPHER.startsWith('CREATE'));
  });

  test('a Cypher path typed in the editor and run with Ctrl+Enter is drawn', async () => {
    const before = await last();
    await typeQuery(page, "MATCH p = (a:Person {name: 'Ada'})-[:KNOWS]->(b) RETURN p");
    await page.keyboard.press('Control+Enter');
    await ranAfter(before);
    const result = await last();
    assert.equal(result!.ok, true);
    assert.equal(await graphOrder(), 2);
    assert.equal(await nodeCountText(), 2);
    assert.equal(await page.getByTestId('edge-count').textContent(), '1');
    assert.ok(result!.firstFrameMs! > 0);
    const captions = await page.evaluate(() =>
      window.__trellisExplorer.graph.nodes().map((n) => window.__trellisExplorer.graph.getNodeAttributes(n).label),
    );
    assert.deepEqual(captions.sort(), ['Ada', 'Charles']);
  });

  test("a click shows a node's properties; a double-click adds its neighbours, up to the visible limit", async () => {
    await settled();
    const ada = await page.evaluate(() =>
      window.__trellisExplorer.graph.nodes().find((n) => window.__trellisExplorer.graph.getNodeAttributes(n).label === 'Ada')!,
    );
    const at = async () =>
      page.evaluate((id) => {
        const s = window.__trellisExplorer.sigma as {
          getNodeDisplayData(id: string): { x: number; y: number };
          framedGraphToViewport(p: { x: number; y: number }): { x: number; y: number };
          getContainer(): HTMLElement;
        };
        const p = s.framedGraphToViewport(s.getNodeDisplayData(id));
        const box = s.getContainer().getBoundingClientRect();
        return { x: box.left + p.x, y: box.top + p.y };
      }, ada);
    assert.equal(await page.getByTestId('expand-limit').inputValue(), '100');
    // A double-click is two clicks and a double-click: the first click selects the node.
    const point = await at();
    await page.mouse.dblclick(point.x, point.y);
    await page.waitForFunction(() => /:Person/.test(document.querySelector('[data-testid=properties]').textContent));
    assert.match((await page.getByTestId('properties').textContent()) ?? '', /:Person.*name.*Ada.*born.*1815/s);
    await page.waitForFunction(() => window.__trellisExplorer.graph.order >= 4);
    assert.equal(await graphOrder(), 4, 'Ada lives in London and works at Analytical Engines');
    assert.match((await page.getByTestId('expand-status').textContent()) ?? '', /\+2 nodes from 3 relationships/);
    assert.equal(await nodeCountText(), 4);
  });

  test('the table and JSON tabs show the answer as rows and as received', async () => {
    await page.getByTestId('tab-table').click();
    const table = page.getByTestId('table');
    await table.waitFor({ state: 'visible' });
    assert.equal(
      await table
        .locator('th')
        .allTextContents()
        .then((t) => t.join(',')),
      'p',
    );
    assert.match((await table.locator('td').first().textContent()) ?? '', /^<\(#\d+\)-\[:KNOWS\]->\(#\d+\)>$/);
    assert.match((await page.getByTestId('table-page').textContent()) ?? '', /rows 1–1 of 1/);
    await page.getByTestId('tab-json').click();
    const json = (await page.getByTestId('json').textContent()) ?? '';
    assert.match(json, /"\$type": "path"/);
    assert.match(json, /"born": 1815/);
  });

  test('exports: PNG of the graph, CSV of the table, JSON as received', async () => {
    const saved = async (testId: string) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
      const path = await download.path();
      return { name: download.suggestedFilename(), bytes: readFileSync(path) };
    };
    await page.getByTestId('tab-graph').click();
    const png = await saved('export-png');
    assert.equal(png.name, 'trellis-graph.png');
    assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
    assert.ok(png.bytes.length > 2000, `${png.bytes.length} bytes`);
    await page.getByTestId('tab-table').click();
    const csv = await saved('export-csv');
    assert.equal(csv.name, 'trellis-result.csv');
    assert.match(csv.bytes.toString(), /^p\r\n"?<\(#\d+\)-\[:KNOWS\]->\(#\d+\)>"?\r\n$/);
    await page.getByTestId('tab-json').click();
    const json = await saved('export-json');
    assert.equal(json.name, 'trellis-result.json');
    assert.equal(JSON.parse(json.bytes.toString()).columns[0], 'p');
  });

  test('dragging a node moves it and it stays there', async () => {
    await page.getByTestId('tab-graph').click();
    await settled();
    const id = await page.evaluate(() => window.__trellisExplorer.graph.nodes()[0]!);
    const at = () =>
      page.evaluate((node) => {
        const s = window.__trellisExplorer.sigma as {
          getNodeDisplayData(id: string): { x: number; y: number };
          framedGraphToViewport(p: { x: number; y: number }): { x: number; y: number };
          getContainer(): HTMLElement;
        };
        const p = s.framedGraphToViewport(s.getNodeDisplayData(node));
        const box = s.getContainer().getBoundingClientRect();
        return { x: box.left + p.x, y: box.top + p.y };
      }, id);
    const before = await at();
    const graphBefore = await page.evaluate((node) => (window.__trellisExplorer.graph as any).getNodeAttributes(node), id);
    await page.mouse.move(before.x, before.y);
    await page.mouse.down();
    await page.mouse.move(before.x + 40, before.y + 30, { steps: 5 });
    await page.mouse.up();
    const graphAfter = await page.evaluate((node) => (window.__trellisExplorer.graph as any).getNodeAttributes(node), id);
    assert.ok(Math.hypot(graphAfter.x - graphBefore.x, graphAfter.y - graphBefore.y) > 0, 'the node moved in the graph');
    assert.equal(graphAfter.fixed, true, 'and the layout leaves it where it was put');
  });

  test('a JSON body runs on /v2/query and its elements are drawn', async () => {
    await page.getByTestId('language').selectOption('json');
    const body = {
      request_type: 'read',
      query: {
        read: {
          entries: [
            {
              query: {
                name: 'cities',
                root: {
                  value_map: {
                    input: {
                      nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'City' } } } } },
                    },
                  },
                },
              },
            },
          ],
          returns: ['cities'],
        },
      },
    };
    const before = await last();
    await typeQuery(page, JSON.stringify(body));
    await page.getByTestId('run').click();
    await ranAfter(before);
    assert.equal((await last())!.language, 'json');
    assert.equal(await graphOrder(), 6);
    await page.getByTestId('language').selectOption('cypher');
  });

  test('the schema view lists labels, relationship types, properties with kinds, and indexes with their status', async () => {
    await page.evaluate(() =>
      window.__trellisExplorer.run(
        JSON.stringify({
          request_type: 'write',
          query: {
            write: {
              entries: [
                { query: { name: 'ix', root: { create_index: { spec: { node_equality: { label: 'Person', property: 'name' } } } } } },
              ],
              returns: ['ix'],
            },
          },
        }),
        'json',
      ),
    );
    await page.getByTestId('tab-schema').click();
    await page.getByTestId('schema-refresh').click();
    await page.getByTestId('schema-indexes').waitFor({ state: 'visible' });
    const text = (await page.getByTestId('schema').textContent()) ?? '';
    assert.match(text, /:Person/);
    assert.match(text, /:City/);
    assert.match(text, /:WORKS_AT/);
    assert.match(text, /borninteger/);
    assert.match(text, /since.*integer/s);
    assert.match(text, /node_equalityPersonname(building|active)/);
    assert.equal(await page.locator('[data-testid=schema-graph] circle').count(), 4, 'a circle per label');
    await page.screenshot({ path: screenshotPath('schema.png') });
  });

  test('completion offers the labels, relationship types and properties the schema view read from the database', async () => {
    await page.getByTestId('language').selectOption('cypher');
    const offered = async (text: string): Promise<string[]> => {
      await typeQuery(page, text.slice(0, -1));
      // The last character typed as a user would, which opens the list.
      await page.keyboard.type(text.slice(-1));
      await page.locator('.cm-tooltip-autocomplete').waitFor({ state: 'visible' });
      const options = await page.locator('.cm-tooltip-autocomplete li').allTextContents();
      await page.keyboard.press('Escape');
      return options;
    };
    assert.ok((await offered('MATCH (n:P')).includes('Person'));
    const types = await offered('MATCH (a)-[r:W');
    assert.ok(types.includes('WORKS_AT'), types.join(','));
    assert.ok(!types.includes('Person'), 'in brackets: relationship types, not labels');
    assert.ok((await offered('MATCH (n) RETURN n.b')).includes('born'));
  });

  test("a label's colour is chosen in the legend, drawn at once and remembered after a reload", async () => {
    const before = await last();
    await typeQuery(page, "MATCH p = (a:Person {name: 'Ada'})-[:KNOWS]->(b) RETURN p");
    await page.keyboard.press('Control+Enter');
    await ranAfter(before);
    const personColours = () =>
      page.evaluate(() => {
        const g = window.__trellisExplorer.graph as unknown as { nodes(): string[]; getNodeAttribute(id: string, name: string): string };
        return [...new Set(g.nodes().map((n) => g.getNodeAttribute(n, 'color')))];
      });
    const picker = page.getByTestId('color-Person');
    assert.notEqual(await picker.inputValue(), '#00a86b');
    await picker.evaluate((input: HTMLElement) => {
      input.value = '#00a86b';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    assert.deepEqual(await personColours(), ['#00a86b']);
    await page.reload();
    const again = await last();
    await page.evaluate(() => window.__trellisExplorer.run("MATCH (a:Person {name: 'Ada'}) RETURN a", 'cypher'));
    await ranAfter(again);
    assert.equal(await page.getByTestId('color-Person').inputValue(), '#00a86b');
    assert.deepEqual(await personColours(), ['#00a86b']);
  });

  test('the wheel zooms the graph and Fit frames everything again', async () => {
    const ratio = () => page.evaluate(() => (window.__trellisExplorer.sigma as { getCamera(): { ratio: number } }).getCamera().ratio);
    await page.getByTestId('fit').click();
    await page.waitForTimeout(400); // the fit animation runs 300 ms
    assert.equal(await ratio(), 1);
    const box = (await page.getByTestId('graph').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -600);
    await page.waitForFunction(() => (window.__trellisExplorer.sigma as { getCamera(): { ratio: number } }).getCamera().ratio < 0.9);
    await page.getByTestId('fit').click();
    await page.waitForFunction(() => (window.__trellisExplorer.sigma as { getCamera(): { ratio: number } }).getCamera().ratio === 1);
  });

  test('explain shows the operator tree of the statement in the editor', async () => {
    await page.getByTestId('language').selectOption('cypher');
    await typeQuery(page, "MATCH (a:Person)-[:LIVES_IN]->(c:City) WHERE c.name = 'London' RETURN a.name ORDER BY a.name");
    await page.getByTestId('explain-run').click();
    await page.getByTestId('explain').locator('.tree').first().waitFor({ state: 'visible' });
    const text = (await page.getByTestId('explain').textContent()) ?? '';
    assert.match(text, /Read statement/);
    assert.ok((await page.locator('[data-testid=explain] .op').count()) >= 3, text);
    await page.screenshot({ path: screenshotPath('explain.png') });
  });

  test("a named query's form is built from its parameter types and runs the query", async () => {
    await page.getByTestId('named-addUser').click();
    const form = page.getByTestId('named-form');
    await form.waitFor({ state: 'visible' });
    assert.equal(await page.locator('[data-testid=editor]').isHidden(), true);
    assert.equal(await page.getByTestId('param-age').getAttribute('type'), 'number');
    await page.getByTestId('param-name').fill('Grace');
    await page.getByTestId('param-age').fill('45');
    await page.getByTestId('param-email').fill('grace@example.com');
    const before = await last();
    await page.getByTestId('run').click();
    await ranAfter(before);
    const result = await last();
    assert.equal(result!.ok, true, JSON.stringify(result));
    assert.equal(result!.language, 'addUser');
    assert.equal(await graphOrder(), 1, 'the user it made is drawn');
    await page.screenshot({ path: screenshotPath('named-query.png') });
    await page.getByTestId('language').selectOption('cypher');
  });

  test('a failing query shows its error as a readable message, and history and favourites keep queries', async () => {
    const before = await last();
    await typeQuery(page, 'MATCH (n) RETURN m');
    await page.getByTestId('run').click();
    await ranAfter(before);
    const error = page.getByTestId('error');
    await error.waitFor({ state: 'visible' });
    assert.match((await error.textContent()) ?? '', /^400 syntax_error: variable `m` is not defined/);
    assert.equal((await last())!.error!.code, 'syntax_error');
    await page.getByTestId('favourite').click();
    assert.match((await page.getByTestId('favourites').textContent()) ?? '', /MATCH \(n\) RETURN m/);
    const history = await page.getByTestId('history').locator('li').allTextContents();
    assert.ok(history.length >= 6, history.join('\n'));
    assert.match(history[0]!, /MATCH \(n\) RETURN m/);
    await page.reload();
    await page.waitForFunction(() => window.__trellisExplorer !== undefined);
    assert.match((await page.getByTestId('favourites').textContent()) ?? '', /MATCH \(n\) RETURN m/, 'favourites survive a reload');
  });

  test('the server panel shows readiness, mode, version and live figures', async () => {
    await page.getByTestId('tab-server').click();
    await page.waitForFunction(() => /requests\/s/.test(document.querySelector('[data-testid=server]')?.textContent ?? ''), null, {
      timeout: 30_000,
    });
    const text = (await page.getByTestId('server').textContent()) ?? '';
    assert.match(text, /readytrue/);
    assert.match(text, /modewriter/);
    assert.match(text, /version\d+\.\d+\.\d+/);
    assert.match(text, /writer queue\d+/);
    assert.match(text, /read lane short\d+ queued/);
    assert.match((await page.getByTestId('status-chip').textContent()) ?? '', /ready · writer · v\d/);
  });

  test('the page met no CSP violation, console error or uncaught exception', () => {
    // The one failing query above answered 400, which the browser logs as a failed resource.
    assert.deepEqual(
      watched.problems.filter((p) => !/status of 400/.test(p)),
      [],
    );
  });
});
