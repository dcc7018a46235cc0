/**
 * Trellis's public embedded API:
 *
 *   import { open } from 'trellis';
 *   const db = await open('./data');
 *   const result = await db.query({ request_type: 'read', query: { read: { entries: [...], returns: [...] } } });
 *   await db.close();
 *
 * The HTTP server is started by `npm start` (src/cli.ts) or `startServer()`.
 */
import { Database, type OpenOptions } from './database.js';

export { Database, type OpenOptions } from './database.js';
export { PreparedQuery, type RunOptions } from './prepared-query.js';
export { GraphError, CypherError, ERROR_REGISTRY, type ErrorCode } from './core/errors.js';
export { DataFolderError } from './store/index.js';
export { startServer, type RunningServer } from './server/start.js';

export function open(path: string, options?: OpenOptions): Promise<Database> {
  return Database.open(path, options);
}
