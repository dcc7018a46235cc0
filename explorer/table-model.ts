/**
 * Answers as tables: a Cypher answer is its own columns and rows; a `/v2/query` or named
 * query answer is one row per item of each returned value (objects spread into columns,
 * other values in `value`), with a `return` column naming the value when there are
 * several. Cells print nodes, relationships and paths briefly. Pure, so the tests run it.
 */
import { isCypherAnswer } from './convert.js';

export interface Table {
  readonly columns: string[];
  readonly rows: unknown[][];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function tableOf(answer: unknown): Table {
  if (isCypherAnswer(answer)) return { columns: answer.columns, rows: answer.rows };
  if (!isObject(answer)) return { columns: ['value'], rows: [[answer]] };
  const names = Object.keys(answer);
  const items: [string, unknown][] = [];
  for (const name of names) {
    const value = answer[name];
    if (Array.isArray(value)) for (const item of value) items.push([name, item]);
    else items.push([name, value]);
  }
  const columns: string[] = [];
  const seen = new Set<string>();
  let plain = false;
  for (const [, item] of items) {
    if (isObject(item)) {
      for (const key of Object.keys(item)) {
        if (seen.has(key)) continue;
        seen.add(key);
        columns.push(key);
      }
    } else plain = true;
  }
  if (plain || columns.length === 0) columns.push('value');
  const lead = names.length > 1 ? ['return'] : [];
  const rows = items.map(([name, item]) => {
    const cells = columns.map((c) => (c === 'value' && !isObject(item) ? item : isObject(item) ? item[c] : undefined));
    return names.length > 1 ? [name, ...cells] : cells;
  });
  return { columns: [...lead, ...columns], rows };
}

function props(p: unknown): string {
  if (!isObject(p) || Object.keys(p).length === 0) return '';
  return ` ${compact(p)}`;
}

function compact(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(compact).join(', ')}]`;
  if (isObject(v)) {
    switch (v.$type) {
      case 'node':
        return `(${Array.isArray(v.labels) ? v.labels.map((l) => `:${String(l)}`).join('') : ''} #${String(v.id)}${props(v.properties)})`;
      case 'relationship':
        return `[:${String(v.type)} #${String(v.id)}${props(v.properties)}]`;
      case 'path': {
        const nodes = Array.isArray(v.nodes) ? v.nodes : [];
        const rels = Array.isArray(v.relationships) ? v.relationships : [];
        let out = nodes.length > 0 ? `(#${String((nodes[0] as { id?: unknown }).id)})` : '';
        for (let i = 0; i < rels.length; i++) {
          const r = rels[i] as { type?: unknown; start?: unknown };
          const n = nodes[i + 1] as { id?: unknown } | undefined;
          const forward = String(r.start) === String((nodes[i] as { id?: unknown }).id);
          out += `${forward ? '-' : '<-'}[:${String(r.type)}]${forward ? '->' : '-'}(#${String(n?.id)})`;
        }
        return `<${out}>`;
      }
      case 'integer':
      case 'float':
        return String(v.value);
    }
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${compact(x)}`)
      .join(', ')}}`;
  }
  if (typeof v === 'string') return JSON.stringify(v);
  return v === undefined ? '' : String(v);
}

/** A cell as text: strings bare, everything else in a short Cypher-like form. */
export function cellText(v: unknown): string {
  return typeof v === 'string' ? v : compact(v);
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The table as CSV (RFC 4180: CRLF line ends, quoted where needed). */
export function tableCsv(table: Table): string {
  const lines = [table.columns.map(csvField).join(',')];
  for (const row of table.rows) lines.push(row.map((cell) => csvField(cellText(cell))).join(','));
  return lines.join('\r\n') + '\r\n';
}
