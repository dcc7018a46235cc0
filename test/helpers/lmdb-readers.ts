/** Reads LMDB's reader table of a database folder from outside the process that owns it. */
import { open } from 'lmdb';

/** Transaction ids still held by reader slots of the environment at `path` (released slots show '-'). */
export function heldReadTxnIds(path: string): string[] {
  const env = open({ path, maxDbs: 128, readOnly: true });
  try {
    env.resetReadTxn();
    return env
      .readerList()
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols.length === 3 && /^\d+$/.test(cols[0]!))
      .map((cols) => cols[2]!)
      .filter((txnid) => txnid !== '-');
  } finally {
    void env.close();
  }
}
