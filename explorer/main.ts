/**
 * The explorer page: the query editor, the result views (graph, table, JSON), explain,
 * the schema and the server panel, wired to the database's public routes (api.ts).
 * `window.__trellisExplorer` and the `data-testid` attributes are the stable hooks for
 * tests and scripts (docs/explorer.md).
 */
import './style.css';
import { ApiError, apiKey, cypher, databaseId, get, post, setApiKey, setDatabaseId } from './api.js';
import { graphOfAnswer, emptyGraph, collectCypherValue, type AnswerKind, type GraphData } from './convert.js';
import { byId, download, h } from './dom.js';
import { createEditor, type EditorLanguage } from './editor.js';
import { renderExplain } from './explain-view.js';
import { GraphView } from './graph-view.js';
import { indentJson } from './json-text.js';
import { buildForm, namedQueriesOf, type NamedQuery } from './named-queries.js';
import { EXAMPLE_CYPHER, SAMPLE_CYPHER } from './sample.js';
import { readSchema, renderSchema, type Schema } from './schema-view.js';
import { ServerPanel } from './server-panel.js';
import { load, save } from './storage.js';
import { Styles } from './styles.js';
import { cellText, tableCsv, tableOf, type Table } from './table-model.js';
import type { Vocabulary } from './cypher-language.js';

type Tab = 'graph' | 'table' | 'json' | 'explain' | 'schema' | 'server';

/** What the last run did, for scripts and tests (window.__trellisExplorer.lastResult). */
export interface RunResult {
  /** Counts the runs of this page, from 1. */
  readonly id: number;
  readonly language: string;
  readonly text: string;
  readonly ok: boolean;
  readonly status: number;
  readonly error?: { code: string; msg: string };
  /** The answer as parsed JSON (undefined after an error). */
  readonly answer?: unknown;
  /** Time from sending the request to its last byte, ms. */
  readonly requestMs: number;
  /** Time from sending the request to the first frame drawn with the result, ms (no graph: undefined). */
  readonly firstFrameMs?: number;
  readonly nodes: number;
  readonly edges: number;
  readonly rows: number;
  /** The result had more nodes than the render cap and waits for the user's choice. */
  readonly capped: boolean;
}

interface HistoryEntry {
  readonly language: string;
  readonly text: string;
}

const HISTORY_MAX = 100;
const PAGE_ROWS = 50;
const JSON_VIEW_MAX = 2_000_000;

const styles = new Styles();
const vocabulary: Vocabulary = { labels: [], types: [], properties: [] };
let language: string = 'cypher';
let named = new Map<string, NamedQuery>();
let readNamedForm: (() => string) | null = null;
let table: Table = { columns: [], rows: [] };
let tablePage = 0;
let lastText = '';
let lastResult: RunResult | undefined;
let runs = 0;
let pending: GraphData | null = null;
let schema: Schema | null = null;
let history = load<HistoryEntry[]>('history', []);
let favourites = load<HistoryEntry[]>('favourites', []);
const settings = load<{ renderCap: number; expandLimit: number }>('settings', { renderCap: 1000, expandLimit: 100 });

const editor = createEditor(
  byId('editor'),
  () => void runFromPage(),
  () => vocabulary,
);
const graphView = new GraphView(byId('graph'), styles, { select: showProperties, expand: (id) => void expand(id) });
const panel = new ServerPanel(byId('server'), byId('status-chip'), (health) => {
  // Through a gateway the key field matters; on a server it is ignored.
  byId('connection').classList.toggle('gateway', health?.mode === 'gateway');
});

// ---- tabs

function showTab(tab: Tab): void {
  for (const view of document.querySelectorAll<HTMLElement>('.view')) view.hidden = view.dataset.view !== tab;
  for (const button of document.querySelectorAll<HTMLButtonElement>('#tabs button'))
    button.setAttribute('aria-selected', String(button.dataset.tab === tab));
  if (tab === 'graph') graphView.sigma.resize();
  if (tab === 'schema' && schema === null) void refreshSchema();
  if (tab === 'server') void panel.refresh();
}
for (const button of document.querySelectorAll<HTMLButtonElement>('#tabs button'))
  button.addEventListener('click', () => showTab(button.dataset.tab as Tab));

// ---- errors and status

function showError(message: string | null): void {
  const box = byId('error');
  box.hidden = message === null;
  box.textContent = message ?? '';
}

function describe(err: unknown): { text: string; code: string; msg: string; status: number } {
  if (err instanceof ApiError) return { text: err.describe(), code: err.code, msg: err.message, status: err.status };
  const msg = err instanceof Error ? err.message : String(err);
  return { text: msg, code: 'explorer_error', msg, status: 0 };
}

function setStatus(text: string): void {
  byId('run-status').textContent = text;
}

// ---- languages, named queries, history, favourites

function selectLanguage(next: string): void {
  language = next;
  const select = byId<HTMLSelectElement>('language');
  select.value = next;
  const query = named.get(next);
  byId('editor').hidden = query !== undefined;
  const form = byId<HTMLFormElement>('named-form');
  form.hidden = query === undefined;
  if (query !== undefined) readNamedForm = buildForm(form, query);
  else editor.setLanguage(next as EditorLanguage);
  byId<HTMLButtonElement>('explain-run').disabled = next !== 'cypher';
}
byId<HTMLSelectElement>('language').addEventListener('change', (e) => selectLanguage((e.target as HTMLSelectElement).value));
byId<HTMLFormElement>('named-form').addEventListener('submit', (e) => {
  e.preventDefault();
  void runFromPage();
});

function renderList(target: HTMLElement, entries: HistoryEntry[], remove?: (i: number) => void): void {
  target.replaceChildren(
    ...entries.map((entry) =>
      h(
        'li',
        { title: entry.text },
        h('span', {}, `${entry.language === 'cypher' ? '' : `[${entry.language}] `}${entry.text.replace(/\s+/g, ' ')}`),
        remove !== undefined ? h('button', { title: 'remove', 'data-testid': 'remove-favourite' }, '×') : null,
      ),
    ),
  );
  target.querySelectorAll('li').forEach((li, i) => {
    li.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).tagName === 'BUTTON') {
        remove?.(i);
        return;
      }
      const entry = entries[i]!;
      selectLanguage(named.has(entry.language) || entry.language === 'json' ? entry.language : 'cypher');
      if (!named.has(entry.language)) editor.setText(entry.text);
    });
  });
}

function renderHistory(): void {
  renderList(byId('history'), history);
  renderList(byId('favourites'), favourites, (i) => {
    favourites.splice(i, 1);
    save('favourites', favourites);
    renderHistory();
  });
}

function remember(entry: HistoryEntry): void {
  history = [entry, ...history.filter((e) => e.text !== entry.text || e.language !== entry.language)].slice(0, HISTORY_MAX);
  save('history', history);
  renderHistory();
}

byId('favourite').addEventListener('click', () => {
  const entry = { language, text: currentText() };
  if (!favourites.some((f) => f.text === entry.text && f.language === entry.language)) favourites = [entry, ...favourites];
  save('favourites', favourites);
  renderHistory();
});

function currentText(): string {
  return named.has(language) ? (readNamedForm?.() ?? '{}') : editor.text();
}

// ---- running

function routeOf(lang: string): { path: string; body: (text: string) => string; kind: AnswerKind } {
  if (lang === 'cypher') return { path: '/v2/cypher', body: (text) => JSON.stringify({ query: text }), kind: 'cypher' };
  if (lang === 'json') return { path: '/v2/query', body: (text) => text, kind: 'query' };
  return { path: `/${lang}`, body: (text) => (text.trim() === '' ? '{}' : text), kind: 'named' };
}

function nextFrame(): Promise<number> {
  return new Promise((resolve) => {
    graphView.sigma.once('afterRender', () => requestAnimationFrame(() => resolve(performance.now())));
    graphView.sigma.scheduleRender();
  });
}

async function runFromPage(): Promise<void> {
  let text: string;
  try {
    text = currentText();
  } catch (err) {
    showError(describe(err).text);
    return;
  }
  await run(text, language);
}

/** Runs `text` in `lang` (`cypher`, `json` or a named query's name); resolves once the result is shown. */
async function run(text: string, lang: string): Promise<RunResult> {
  if (lang !== language && (lang === 'cypher' || lang === 'json' || named.has(lang))) selectLanguage(lang);
  if ((lang === 'cypher' || lang === 'json') && editor.text() !== text) editor.setText(text);
  const route = routeOf(lang);
  showError(null);
  setStatus('running…');
  byId<HTMLButtonElement>('run').disabled = true;
  const started = performance.now();
  const id = ++runs;
  lastText = text;
  try {
    const answer = await post(route.path, route.body(text));
    const parsed = JSON.parse(answer.text) as unknown;
    const data = graphOfAnswer(parsed, route.kind);
    table = tableOf(parsed);
    tablePage = 0;
    renderTable();
    renderJson(answer.text);
    remember({ language: lang, text });
    let firstFrameMs: number | undefined;
    let capped = false;
    byId('cap-prompt').hidden = true;
    // What described the previous result goes with it.
    showProperties(null, null);
    byId('expand-status').textContent = '';
    if (data.nodes.size > settings.renderCap) {
      capped = true;
      pending = data;
      graphView.clear();
      updateCounts();
      byId('cap-text').textContent =
        `The result has ${data.nodes.size.toLocaleString('en')} nodes, more than the render cap of ${settings.renderCap.toLocaleString('en')}. Drawing them all may be slow; the table holds every row.`;
      byId('cap-draw-some').textContent = `Draw the first ${settings.renderCap.toLocaleString('en')}`;
      byId('cap-prompt').hidden = false;
      showTab('graph');
    } else if (data.nodes.size > 0) {
      graphView.show(data);
      updateCounts();
      showTab('graph');
      firstFrameMs = (await nextFrame()) - started;
      void hydrate(data);
    } else {
      graphView.clear();
      updateCounts();
      showTab('table');
    }
    byId('first-run').hidden = true;
    const rows = table.rows.length;
    setStatus(
      `${rows.toLocaleString('en')} rows · ${Math.round(answer.ms)} ms${firstFrameMs !== undefined ? ` · drawn in ${Math.round(firstFrameMs)} ms` : ''}`,
    );
    lastResult = {
      id,
      language: lang,
      text,
      ok: true,
      status: answer.status,
      answer: parsed,
      requestMs: answer.ms,
      firstFrameMs,
      nodes: capped ? 0 : graphView.graph.order,
      edges: capped ? 0 : graphView.graph.size,
      rows,
      capped,
    };
  } catch (err) {
    const d = describe(err);
    showError(d.text);
    setStatus('failed');
    remember({ language: lang, text });
    lastResult = {
      id,
      language: lang,
      text,
      ok: false,
      status: d.status,
      error: { code: d.code, msg: d.msg },
      requestMs: performance.now() - started,
      nodes: graphView.graph.order,
      edges: graphView.graph.size,
      rows: 0,
      capped: false,
    };
  } finally {
    byId<HTMLButtonElement>('run').disabled = false;
  }
  return lastResult;
}
byId('run').addEventListener('click', () => void runFromPage());

/** Nodes known by id only, and edges without endpoints, looked up with Cypher and filled in. */
async function hydrate(data: GraphData): Promise<void> {
  const nodes = [...data.nodes.values()]
    .filter((n) => n.partial)
    .map((n) => Number(n.id))
    .slice(0, 1000);
  const edges = [...data.unplaced].map(Number).slice(0, 1000);
  if (nodes.length === 0 && edges.length === 0) return;
  const found = emptyGraph();
  try {
    if (edges.length > 0) collectCypherValue(found, (await cypher('MATCH ()-[r]->() WHERE id(r) IN $ids RETURN r', { ids: edges })).rows);
    const all = [...new Set([...nodes, ...[...found.nodes.keys()].map(Number)])];
    if (all.length > 0) collectCypherValue(found, (await cypher('MATCH (n) WHERE id(n) IN $ids RETURN n', { ids: all })).rows);
  } catch {
    return; // Without Cypher the ids stay as they are.
  }
  graphView.add(found, null);
  updateCounts();
}

function updateCounts(): void {
  byId('node-count').textContent = String(graphView.graph.order);
  byId('edge-count').textContent = String(graphView.graph.size);
  renderLegend();
}

// ---- the cap prompt

function drawPending(cap: number): void {
  const data = pending;
  byId('cap-prompt').hidden = true;
  if (data === null) return;
  pending = null;
  const started = performance.now();
  graphView.show(data, cap);
  updateCounts();
  void nextFrame().then((at) => {
    if (lastResult !== undefined)
      lastResult = { ...lastResult, capped: false, nodes: graphView.graph.order, edges: graphView.graph.size, firstFrameMs: at - started };
  });
}
byId('cap-draw-all').addEventListener('click', () => drawPending(Infinity));
byId('cap-draw-some').addEventListener('click', () => drawPending(settings.renderCap));
byId('cap-table').addEventListener('click', () => {
  byId('cap-prompt').hidden = true;
  pending = null;
  showTab('table');
});

// ---- graph tools

async function expand(id: string): Promise<void> {
  const limit = settings.expandLimit;
  const status = byId('expand-status');
  status.textContent = `expanding ${id}…`;
  try {
    const answer = await cypher('MATCH (n)-[r]-(m) WHERE id(n) = $id RETURN r, m LIMIT $limit', { id: Number(id), limit });
    const found = emptyGraph();
    collectCypherValue(found, answer.rows);
    const added = graphView.add(found, id);
    updateCounts();
    status.textContent = `+${added} nodes from ${answer.rows.length} relationships of node ${id}${answer.rows.length >= limit ? ` (limit ${limit} reached)` : ''}`;
  } catch (err) {
    status.textContent = '';
    showError(describe(err).text);
  }
}

function showProperties(kind: 'node' | 'edge' | null, id: string | null): void {
  const box = byId('properties');
  const element = kind === 'node' ? graphView.nodes.get(id!) : kind === 'edge' ? graphView.edges.get(id!) : undefined;
  if (element === undefined) {
    box.replaceChildren(
      h('p', { class: 'muted' }, 'Click a node or relationship to see its properties; double-click a node to add its neighbours.'),
    );
    return;
  }
  const title =
    'labels' in element
      ? `(${element.labels.map((l) => `:${l}`).join('')}) #${element.id}`
      : `[:${element.type}] #${element.id} (${element.source} → ${element.target})`;
  box.replaceChildren(
    h('h3', {}, title),
    h('table', {}, ...Object.entries(element.properties).map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', {}, cellText(v))))),
    kind === 'node' ? h('p', { class: 'muted' }, 'Double-click the node to add its neighbours.') : '',
  );
}

function renderLegend(): void {
  const legend = byId('legend');
  const items = [...graphView.labels().entries()].sort(([a], [b]) => a.localeCompare(b));
  legend.replaceChildren(
    ...items.map(([label, count]) => {
      const style = styles.of(label);
      const color = h('input', { type: 'color', value: style.color, title: `colour of :${label}`, 'data-testid': `color-${label}` });
      const keys = new Set<string>();
      for (const node of graphView.nodes.values())
        if ((node.labels[0] ?? '') === label) for (const k of Object.keys(node.properties)) keys.add(k);
      const caption = h(
        'select',
        { title: `caption of :${label}`, 'data-testid': `caption-${label}` },
        h('option', { value: '' }, 'auto'),
        ...[...keys].sort().map((k) => h('option', { value: k }, k)),
      );
      caption.value = style.caption;
      const update = () => {
        styles.set(label, { color: color.value, caption: caption.value });
        graphView.restyle();
      };
      color.addEventListener('input', update);
      caption.addEventListener('change', update);
      return h('span', { class: 'item' }, color, `:${label || '(no label)'} ${count}`, caption);
    }),
  );
}

byId('fit').addEventListener('click', () => graphView.fit());
byId('layout-toggle').addEventListener('click', () => (graphView.layout.isRunning ? graphView.layout.stop() : graphView.layout.start()));
graphView.layout.onState = (running) => {
  byId('layout-toggle').textContent = running ? 'Stop layout' : 'Run layout';
};
byId('export-png').addEventListener('click', () => void graphView.png().then((blob) => download('trellis-graph.png', blob)));

function numberSetting(id: string, key: 'renderCap' | 'expandLimit'): void {
  const input = byId<HTMLInputElement>(id);
  input.value = String(settings[key]);
  input.addEventListener('change', () => {
    const n = Math.floor(Number(input.value));
    if (Number.isFinite(n) && n >= 1) {
      settings[key] = n;
      save('settings', settings);
    } else input.value = String(settings[key]);
  });
}
numberSetting('render-cap', 'renderCap');
numberSetting('expand-limit', 'expandLimit');

// ---- table and JSON

function renderTable(): void {
  const pages = Math.max(1, Math.ceil(table.rows.length / PAGE_ROWS));
  tablePage = Math.min(Math.max(0, tablePage), pages - 1);
  const rows = table.rows.slice(tablePage * PAGE_ROWS, (tablePage + 1) * PAGE_ROWS);
  byId('table').replaceChildren(
    h('thead', {}, h('tr', {}, ...table.columns.map((c) => h('th', {}, c)))),
    h('tbody', {}, ...rows.map((row) => h('tr', {}, ...row.map((cell) => h('td', {}, cellText(cell)))))),
  );
  byId('table-page').textContent =
    `rows ${table.rows.length === 0 ? 0 : tablePage * PAGE_ROWS + 1}–${tablePage * PAGE_ROWS + rows.length} of ${table.rows.length.toLocaleString('en')} · page ${tablePage + 1} of ${pages}`;
  byId<HTMLButtonElement>('table-prev').disabled = tablePage === 0;
  byId<HTMLButtonElement>('table-next').disabled = tablePage >= pages - 1;
}
byId('table-prev').addEventListener('click', () => {
  tablePage--;
  renderTable();
});
byId('table-next').addEventListener('click', () => {
  tablePage++;
  renderTable();
});
byId('export-csv').addEventListener('click', () => download('trellis-result.csv', new Blob([tableCsv(table)], { type: 'text/csv' })));

let rawAnswer = '';
function renderJson(text: string): void {
  rawAnswer = text;
  byId('json').textContent =
    text.length > JSON_VIEW_MAX
      ? `${text.slice(0, JSON_VIEW_MAX)}\n… (${text.length.toLocaleString('en')} characters; export the JSON for all of it)`
      : indentJson(text);
}
byId('export-json').addEventListener('click', () => download('trellis-result.json', new Blob([rawAnswer], { type: 'application/json' })));

// ---- explain, schema, first run

async function explain(): Promise<void> {
  showError(null);
  try {
    const answer = await post('/v2/cypher/explain', JSON.stringify({ query: editor.text() }));
    renderExplain(byId('explain'), JSON.parse(answer.text) as Record<string, unknown>);
    showTab('explain');
  } catch (err) {
    showError(describe(err).text);
  }
}
byId('explain-run').addEventListener('click', () => void explain());

async function refreshSchema(): Promise<void> {
  const target = byId('schema');
  try {
    schema = await readSchema();
  } catch (err) {
    target.replaceChildren(h('p', { class: 'error' }, describe(err).text));
    return;
  }
  vocabulary.labels = schema.labels.map((l) => l.label).filter((l) => l !== '');
  vocabulary.types = schema.types.map((t) => t.label);
  vocabulary.properties = [...new Set([...schema.labels, ...schema.types].flatMap((l) => [...l.properties.keys()]))].sort();
  renderSchema(target, schema, styles);
  byId('first-run').hidden = !(schema.nodeCount === 0 && graphView.graph.order === 0);
}
byId('schema-refresh').addEventListener('click', () => void refreshSchema());

byId('load-sample').addEventListener('click', async () => {
  showError(null);
  try {
    await cypher(SAMPLE_CYPHER);
  } catch (err) {
    showError(describe(err).text);
    return;
  }
  byId('first-run').hidden = true;
  await refreshSchema();
  await run(EXAMPLE_CYPHER, 'cypher');
});

// ---- connection

function connection(): void {
  const key = byId<HTMLInputElement>('api-key');
  const db = byId<HTMLInputElement>('database-id');
  key.value = apiKey();
  db.value = databaseId();
  key.addEventListener('change', () => {
    setApiKey(key.value.trim());
    void start();
  });
  db.addEventListener('change', () => {
    setDatabaseId(db.value.trim());
    void start();
  });
  byId('connection').addEventListener('submit', (e) => e.preventDefault());
}

/** Reads what depends on the connection: the named queries and version (OpenAPI), the schema. */
async function start(): Promise<void> {
  let unread: string | null = null;
  try {
    const doc = JSON.parse((await get('/openapi.json')).text) as { info?: { version?: string } };
    panel.version = doc.info?.version ?? '';
    named = new Map(namedQueriesOf(doc).map((q) => [q.name, q]));
  } catch (err) {
    named = new Map();
    unread = describe(err).text;
  }
  const select = byId<HTMLSelectElement>('language');
  select.replaceChildren(
    h('option', { value: 'cypher' }, 'Cypher'),
    h('option', { value: 'json' }, 'JSON (/v2/query)'),
    ...[...named.keys()].map((n) => h('option', { value: n }, `POST /${n}`)),
  );
  select.value = named.has(language) || language === 'cypher' || language === 'json' ? language : 'cypher';
  byId('named-list').replaceChildren(
    ...[...named.values()].map((q) => {
      const li = h('li', { 'data-testid': `named-${q.name}`, title: `POST /${q.name}` }, h('span', {}, q.name));
      li.addEventListener('click', () => selectLanguage(q.name));
      return li;
    }),
  );
  if (named.size === 0) {
    const why = unread === null ? 'none (start the server with --project)' : `cannot read them: ${unread}`;
    byId('named-list').replaceChildren(h('li', { class: 'muted', title: why }, why));
  }
  await refreshSchema();
}

declare global {
  interface Window {
    __trellisExplorer: {
      readonly graph: GraphView['graph'];
      readonly sigma: GraphView['sigma'];
      run(text: string, language: string): Promise<RunResult>;
      readonly lastResult: RunResult | undefined;
      /** Resolves when the page has read the server (named queries, schema). */
      readonly ready: Promise<void>;
      /** The last statement or body run. */
      readonly lastText: string;
    };
  }
}

connection();
renderHistory();
editor.setText(history[0]?.language === 'cypher' ? history[0].text : EXAMPLE_CYPHER);
selectLanguage('cypher');
showTab('graph');
updateCounts();
const ready = start();
panel.start();
window.__trellisExplorer = {
  graph: graphView.graph,
  sigma: graphView.sigma,
  run,
  get lastResult() {
    return lastResult;
  },
  ready,
  get lastText() {
    return lastText;
  },
};
