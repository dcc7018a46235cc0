/**
 * How a /v2/import batch (src/wire/import-request.ts) is answered: the batch carries its
 * ImportFormat (Batch.format), so the writer answers `{"element","label","count",
 * "first_id"}` (src/exec/batch.ts), and its errors speak of the body the client sent
 * (rows, columns, label) rather than of the plan made from it, which the request never
 * showed. Both the checks before the writer (wire) and the run (exec) word them here.
 */

/** `count` elements of one label made in one go, whose ids follow the first one's. */
export interface ImportFormat {
  readonly kind: 'import';
  readonly element: 'node' | 'edge';
  readonly label: string;
  readonly count: number;
}

/** The answer: the rows' elements have the ids first_id .. first_id + count - 1. */
export type ImportAnswer = Omit<ImportFormat, 'kind'> & { readonly first_id: number };

/** The plan's path of the import's add_n or add_e: the named first entry's, or the loop body's. */
const ROOT = String.raw`query\.write\.entries\[\d+\](?:\.for_each\.body\[0\])?\.query\.root\.add_[ne]`;
/** Places in the plan, and what the body calls them. */
const TERMS: readonly [RegExp, string][] = [
  [new RegExp(String.raw`${ROOT}\.properties\[(\d+)\]\[0\]`, 'g'), 'columns[$1].name'],
  [new RegExp(String.raw`${ROOT}\.label`, 'g'), 'label'],
  [new RegExp(String.raw`${ROOT}\.input\.nodes\.reference`, 'g'), 'from'],
  [new RegExp(String.raw`${ROOT}\.`, 'g'), ''],
];

/**
 * An error message about an import's plan in the body's terms, with the row it failed at
 * when there is one (row 0 is the batch's first): `/v2/import row 1: to: node 9 does not
 * exist`, `/v2/import: columns[0].name: "$id" is reserved ...`.
 */
export function importMessage(msg: string, row: number | null): string {
  if (msg.startsWith('/v2/import')) return msg;
  let text = msg;
  for (const [place, term] of TERMS) text = text.replace(place, term);
  return `/v2/import${row === null ? '' : ` row ${row}`}: ${text}`;
}
