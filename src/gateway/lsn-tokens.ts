/**
 * Read-your-writes through the gateway (docs/replication.md, "Read-your-writes"): the
 * highest LSN each API key's writes were answered at, per database, kept in Redis so every
 * gateway replica shares it. A read of that key on that database is sent with it as
 * X-Trellis-Min-Lsn and routed to a server that has applied it (backends.ts).
 *
 * One sorted set per key and database, with one member: `ZADD GT` keeps the highest LSN
 * whatever order two gateways' writes land in. It expires an hour after the key's last
 * write: by then every replica that is ready (within its lag bound) holds it anyway.
 */
import { Redis } from 'ioredis';
import { connectionTarget, withDeadline } from './limiter.js';

const TTL_MS = 60 * 60 * 1000;
const MEMBER = 'lsn';

export class LsnTokens {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly deadlineMs: number,
    onError: (err: Error) => void,
  ) {
    this.redis = new Redis(connectionTarget(url), {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 50, 500),
      connectTimeout: 2000,
    });
    this.redis.on('error', onError);
  }

  private key(database: string, apiKey: string): string {
    return `${this.prefix}lsn:{${database}}:${apiKey}`;
  }

  /** A write of `apiKey` on `database` was answered at `lsn`. */
  async note(database: string, apiKey: string, lsn: number): Promise<void> {
    const key = this.key(database, apiKey);
    await withDeadline(this.redis.multi().zadd(key, 'GT', lsn, MEMBER).pexpire(key, TTL_MS).exec(), this.deadlineMs);
  }

  /** The highest LSN `apiKey`'s writes on `database` were answered at (0: none known). */
  async highest(database: string, apiKey: string): Promise<number> {
    const score = await withDeadline(this.redis.zscore(this.key(database, apiKey), MEMBER), this.deadlineMs);
    return score === null ? 0 : Number(score);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await Promise.resolve();
  }
}
