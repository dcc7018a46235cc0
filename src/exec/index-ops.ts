/**
 * Index DDL and operations (reference §5.10): each answers one object, printed bare (a
 * receipt or a status), not an array. The work itself runs in the writer's background
 * (src/store/index-work.ts); these only record it and report on it.
 */
import { GraphError } from '../core/errors.js';
import type { Value, ValueObject } from '../core/value.js';
import type { Executor } from './context.js';
import type { ValuesFlow } from './flow.js';

const single = (value: object): ValuesFlow => ({ t: 'values', items: [value as Value], single: true });

export const createIndex: Executor<'create_index'> = (node, x) =>
  single(x.writable.createIndex(node.spec, node.if_not_exists, node.any_build_parameters === true));

export const dropIndex: Executor<'drop_index'> = (node, x) => single(x.writable.dropIndex(node.spec));

export const getIndexOperation: Executor<'get_index_operation'> = (node, x) => {
  const status = x.store.indexOperation(node.operation_id);
  if (status === undefined)
    throw new GraphError('index_operation_not_found', `${node.path}: there is no index operation ${node.operation_id}`);
  return single(status);
};

/**
 * Every index, in id order: its identity and definition, state (`building`, `active`,
 * `dropping`), generation, and the status of the operation that made that state.
 * Numbers print as integers (bigints); ids and generations as decimal strings, as in
 * receipts.
 */
export const listIndexes: Executor<'list_indexes'> = (_node, x) => {
  const defs = [...x.store.indexCatalog().defs].sort((a, b) => a.id - b.id);
  const items = defs.map((def) => {
    const item: ValueObject = { index_id: String(def.id) };
    for (const [key, value] of Object.entries(def.spec)) {
      if (value !== null && value !== undefined) item[key] = typeof value === 'number' ? BigInt(value) : (value as Value);
    }
    item['state'] = def.state;
    item['generation'] = String(def.generation);
    const operation = x.store.indexOperation(def.operation);
    if (operation !== undefined) item['operation'] = operation as ValueObject;
    return item;
  });
  return { t: 'values', items };
};

export const retryIndexOperation: Executor<'retry_index_operation'> = (node, x) =>
  single(x.writable.retryIndexOperation(node.operation_id));

export const abortIndexOperation: Executor<'abort_index_operation'> = (node, x) =>
  single(x.writable.abortIndexOperation(node.operation_id));
