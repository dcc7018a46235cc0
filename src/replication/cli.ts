/**
 * `trellis backup`, `trellis restore` and `trellis promote` (docs/replication.md, "Backups"
 * and "Failover"). Each prints one
 * line on success (what was written, at which LSN) and exits 0; a usage error prints the
 * usage and exits 2; a failure prints `trellis backup: <why>` and exits 1.
 */
import { parseArgs } from 'node:util';
import { messageOf } from '../core/errors.js';
import { backupFolder, backupServer, promote, restore } from './backup.js';

export const BACKUP_USAGE = `Usage:
  trellis backup --data DIR --to FILE     a copy of the database in DIR (read-only: a writer
                                          of DIR may run meanwhile)
  trellis backup --url URL --to FILE      a copy from the running writer at URL

The file is an LMDB copy taken in one read transaction; it holds its LSN.`;

export const RESTORE_USAGE = `Usage:
  trellis restore --from FILE --data DIR [--nats URL [--stream NAME]] [--until-lsn N | --until-time T]

Puts the backup FILE in DIR (empty or missing). With --nats, replays the stream's log from
the backup's LSN to LSN N, to the last batch committed at or before T (ISO 8601, or ms since
1970), or to the stream's end.`;

class Usage extends Error {}

function parse(argv: readonly string[], names: readonly string[]): Record<string, string | undefined> {
  const options: Record<string, { type: 'string' }> = {};
  for (const name of names) options[name] = { type: 'string' };
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as Record<string, string | undefined>;
  } catch (err) {
    throw new Usage(messageOf(err));
  }
}

async function run(name: string, usage: string, work: () => Promise<string>): Promise<number> {
  try {
    console.log(await work());
    return 0;
  } catch (err) {
    if (err instanceof Usage) {
      console.error(`trellis ${name}: ${err.message}\n\n${usage}`);
      return 2;
    }
    console.error(`trellis ${name}: ${messageOf(err).replace(/\s+/g, ' ')}`);
    return 1;
  }
}

export function backupMain(argv: readonly string[]): Promise<number> {
  return run('backup', BACKUP_USAGE, async () => {
    const args = parse(argv, ['data', 'url', 'to']);
    if (args.to === undefined) throw new Usage('give --to FILE');
    if ((args.data === undefined) === (args.url === undefined)) throw new Usage('give one of --data DIR and --url URL');
    const info = args.url !== undefined ? await backupServer(args.url, args.to) : await backupFolder(args.data!, args.to);
    return `trellis backup: wrote ${info.file} (${info.bytes} bytes, sha256 ${info.sha256}) at LSN ${info.lsn} (hash ${info.hash}, epoch ${info.epoch}${info.time === null ? '' : `, last batch ${info.time}`})`;
  });
}

/** A time of --until-time: ISO 8601, or milliseconds since 1970. */
function parseTime(text: string): number {
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms)) throw new Usage(`--until-time must be an ISO 8601 time or milliseconds since 1970, got ${text}`);
  return ms;
}

export function restoreMain(argv: readonly string[]): Promise<number> {
  return run('restore', RESTORE_USAGE, async () => {
    const args = parse(argv, ['from', 'data', 'nats', 'stream', 'until-lsn', 'until-time']);
    if (args.from === undefined || args.data === undefined) throw new Usage('give --from FILE and --data DIR');
    if (args['until-lsn'] !== undefined && args['until-time'] !== undefined) throw new Usage('give --until-lsn or --until-time, not both');
    let untilLsn: number | undefined;
    if (args['until-lsn'] !== undefined) {
      untilLsn = Number(args['until-lsn']);
      if (!Number.isSafeInteger(untilLsn) || untilLsn < 0)
        throw new Usage(`--until-lsn must be an LSN (0 or more), got ${args['until-lsn']}`);
    }
    const position = await restore({
      from: args.from,
      dataDir: args.data,
      stream: args.stream ?? 'trellis',
      ...(args.nats === undefined ? {} : { nats: args.nats }),
      ...(untilLsn === undefined ? {} : { untilLsn }),
      ...(args['until-time'] === undefined ? {} : { untilTime: parseTime(args['until-time']) }),
      log: (message) => console.error(message),
    });
    return `trellis restore: ${args.data} holds the database at LSN ${position.lsn} (hash ${position.hash.toString('hex')}, epoch ${position.epoch})`;
  });
}

export const PROMOTE_USAGE = `Usage:
  trellis promote --data DIR

Makes the stopped replica in DIR the next writer (failover by hand, docs/replication.md):
its epoch rises by one. Start it then as a writer with the same --nats and --stream; the
old writer, if it still runs, is refused by the stream at its next publish and stops
taking writes.`;

export function promoteMain(argv: readonly string[]): Promise<number> {
  return run('promote', PROMOTE_USAGE, async () => {
    const args = parse(argv, ['data']);
    if (args.data === undefined) throw new Usage('give --data DIR');
    const position = await promote(args.data);
    return `trellis promote: ${args.data} is at LSN ${position.lsn} with epoch ${position.epoch}; start it as a writer with the stream's --nats and --stream`;
  });
}
