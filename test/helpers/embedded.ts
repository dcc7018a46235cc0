/** An embedded database in a temp folder, with request builders shared by exec tests. */
import { open, type Database } from '../../src/index.js';
import { tempDir } from './server.js';

export interface TestDb {
  db: Database;
  read(entries: unknown[], returns: string[], parameters?: Record<string, unknown>): Promise<Record<string, any>>;
  write(entries: unknown[], returns: string[], parameters?: Record<string, unknown>): Promise<Record<string, any>>;
  close(): Promise<void>;
}

export async function openTestDb(): Promise<TestDb> {
  const dir = tempDir('trellis-exec-');
  const db = await open(dir.path);
  const run = (type: 'read' | 'write') => (entries: unknown[], returns: string[], parameters?: Record<string, unknown>) =>
    db.query({ request_type: type, query: { [type]: { entries, returns } }, ...(parameters ? { parameters } : {}) });
  return {
    db,
    read: run('read'),
    write: run('write'),
    async close() {
      await db.close();
      dir.remove();
    },
  };
}

export const s = (v: string) => ({ value: { string: v } });
export const i = (v: number) => ({ value: { i64: v } });
export const all = { nodes: { reference: 'all' } };
export const ids = (...list: number[]) => ({ nodes: { reference: { ids: list } } });
export const label = (l: string) => ({ nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: l } } } } } });
export const q = (name: string | null, root: unknown, condition?: unknown) => ({ query: { ...(name ? { name } : {}), root, ...(condition ? { condition } : {}) } });
export const prop = (p: string) => ({ property: p });
export const cs = (v: string) => ({ constant: { string: v } });
export const ci = (v: number) => ({ constant: { i64: v } });
