/**
 * The gateway's rate limiter against a real redis-server (test/helpers/redis.ts): the token
 * bucket's burst, refill and cap, Retry-After, one bucket shared by two limiter instances
 * (two gateway replicas), the credit state, and failing closed within the deadline when
 * Redis is killed, paused or stops answering on an open connection.
 *
 * Timing: the bucket runs on the Redis clock, the tests measure with the local monotonic
 * clock, and every count is checked against bounds computed from the measured times, so a
 * loaded machine widens the bounds instead of failing. Tests that are not about the deadline
 * give the limiter a 2 s deadline, so that a scheduling hiccup is not an 'unavailable'.
 */
import assert from 'node:assert/strict';
import { createConnection, createServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Admission, type BucketLimits, type LimiterOptions, RedisLimiter, retryAfterSeconds } from '../../src/gateway/limiter.js';
import { freePort, redisSkip, startRedis, type TestRedis } from '../helpers/redis.js';

const RELAXED = 2000;
/**
 * How long an 'unavailable' may take with a 50 ms deadline, measured here: the deadline plus
 * room for a loaded machine's scheduling, yet well below what answers without the deadline
 * (the 800 ms pause ending, the 1 s silent-socket timeout, or never).
 */
const SLACK_MS = 400;
let dbCounter = 0;
/** A database id of its own for each test, so tests on one Redis never share a bucket. */
const freshDb = (name: string) => `${name}-${process.pid}-${++dbCounter}`;
const count = (answers: Admission[], kind: Admission['kind']) => answers.filter((a) => a.kind === kind).length;
const burstOf = (limiter: RedisLimiter, db: string, limits: BucketLimits, n: number) =>
  Promise.all(Array.from({ length: n }, () => limiter.admit(db, limits)));

test('retryAfterSeconds is max(1, ceil((1 - tokens) / rate))', () => {
  assert.equal(retryAfterSeconds(0, 0.25), 4);
  assert.equal(retryAfterSeconds(0.5, 0.25), 2);
  assert.equal(retryAfterSeconds(0.01, 0.25), 4);
  assert.equal(retryAfterSeconds(0, 0.1), 10);
  assert.equal(retryAfterSeconds(0, 3), 1);
  assert.equal(retryAfterSeconds(0.999, 100), 1);
});

describe('RedisLimiter against a real redis-server', { skip: redisSkip() }, () => {
  let redis: TestRedis;
  const limiters: RedisLimiter[] = [];
  /** A connected limiter (until connected, every admission is 'unavailable'), closed after the suite. */
  const limiter = async (options: Omit<LimiterOptions, 'url'> & { url?: string } = {}) => {
    const l = new RedisLimiter({ url: redis.url, deadlineMs: RELAXED, ...options });
    limiters.push(l);
    await l.ready();
    return l;
  };

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await Promise.all(limiters.map((l) => l.close()));
    await redis?.stop();
  });

  test('a full bucket admits its burst at once, then refills at the rate, never above the burst', async () => {
    const l = await limiter();
    const db = freshDb('burst');
    const limits = { rate: 5, burst: 10 };

    const s1 = performance.now();
    const first = await burstOf(l, db, limits, 11);
    const e1 = performance.now();
    // 10 tokens, plus whatever refilled while the 11 were answered (nothing, unless the machine stalls for 200 ms).
    const admitted1 = count(first, 'admitted');
    assert.ok(admitted1 >= 10 && admitted1 <= Math.floor(10 + (5 * (e1 - s1)) / 1000 + 0.05), `admitted ${admitted1}`);
    assert.equal(count(first, 'rate_limited'), 11 - admitted1);
    for (const a of first) if (a.kind === 'rate_limited') assert.equal(a.retryAfterS, 1);
    assert.equal(first.at(-1)?.kind, admitted1 === 11 ? 'admitted' : 'rate_limited');

    await sleep(1050);
    const s2 = performance.now();
    const second = await burstOf(l, db, limits, 10);
    const e2 = performance.now();
    const admitted2 = count(second, 'admitted');
    // At least what refilled between the two batches; at most what the bucket can have given in all.
    const low = Math.floor((5 * (s2 - e1)) / 1000 - 0.05);
    const high = Math.floor(10 + (5 * (e2 - s1)) / 1000 + 0.05) - admitted1;
    assert.ok(low >= 5, `the batches were ${s2 - e1} ms apart`);
    assert.ok(admitted2 >= low && admitted2 <= high, `admitted ${admitted2} after ~1 s, expected ${low}..${high}`);

    // A long idle (enough to refill 10 tokens) leaves a small bucket at exactly its burst.
    const small = { rate: 10, burst: 3 };
    const dbSmall = freshDb('cap');
    await burstOf(l, dbSmall, small, 5);
    await sleep(1000);
    assert.equal(await l.peek(dbSmall, small), 3);
    const s3 = performance.now();
    const third = await burstOf(l, dbSmall, small, 10);
    const e3 = performance.now();
    const admitted3 = count(third, 'admitted');
    assert.ok(admitted3 >= 3 && admitted3 <= Math.floor(3 + (10 * (e3 - s3)) / 1000 + 0.05), `admitted ${admitted3} from a capped bucket`);
  });

  test('tokensLeft counts down and Retry-After follows a slow rate (0.25/s: 4 s)', async () => {
    const l = await limiter();
    const db = freshDb('retry');
    const slow = { rate: 0.25, burst: 1 };
    assert.deepEqual(await l.admit(db, slow), { kind: 'admitted', tokensLeft: 0 });
    assert.deepEqual(await l.admit(db, slow), { kind: 'rate_limited', retryAfterS: 4 });

    const dbFive = freshDb('countdown');
    const five = { rate: 0.001, burst: 5 };
    const left: number[] = [];
    for (let i = 0; i < 6; i++) {
      const a = await l.admit(dbFive, five);
      left.push(a.kind === 'admitted' ? a.tokensLeft : -1);
    }
    assert.deepEqual(left, [4, 3, 2, 1, 0, -1]);
    // 1 token at 0.001/s: 1000 s, less the few ms since the last admission.
    assert.deepEqual(await l.admit(dbFive, five), { kind: 'rate_limited', retryAfterS: 1000 });
  });

  test('concurrent admissions never overspend: 100 at once against a burst of 30 admit exactly 30', async () => {
    const l = await limiter();
    const answers = await burstOf(l, freshDb('atomic'), { rate: 0.001, burst: 30 }, 100);
    assert.equal(count(answers, 'admitted'), 30);
    assert.equal(count(answers, 'rate_limited'), 70);
  });

  test('admissions asked for in one event-loop turn share one call, and spend as calls in a row would', async () => {
    const l = await limiter();
    const calls = async () => {
      const stats = String(await redis.command('INFO', 'commandstats'));
      return [...stats.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    };
    const before = await calls();
    const answers = await burstOf(l, freshDb('batched'), { rate: 0.001, burst: 50 }, 200);
    const used = (await calls()) - before;
    assert.equal(count(answers, 'admitted'), 50);
    assert.equal(used, 1, `${used} script calls for 200 admissions asked for in one turn`);
    // Each admitted request sees the tokens left after its own spend, as if one by one: 49 down to 0.
    const left = answers.flatMap((a) => (a.kind === 'admitted' ? [a.tokensLeft] : [])).sort((a, b) => a - b);
    assert.deepEqual(
      left,
      Array.from({ length: 50 }, (_, i) => i),
    );
    // An idle limiter sends an admission at once, alone.
    const single = await calls();
    assert.equal((await l.admit(freshDb('alone'), { rate: 1, burst: 1 })).kind, 'admitted');
    assert.equal((await calls()) - single, 1);
  });

  test('a unix:// URL reaches Redis on its socket: the same bucket as over TCP, and ?db= picks the logical database', async () => {
    const tcp = await limiter();
    const unix = await limiter({ url: redis.socketUrl });
    const db = freshDb('unix');
    const limits = { rate: 0.001, burst: 4 };
    assert.deepEqual(
      (await burstOf(unix, db, limits, 2)).map((a) => a.kind),
      ['admitted', 'admitted'],
    );
    // The socket and TCP limiters spend from one bucket: two tokens are left, then none.
    assert.deepEqual(
      (await burstOf(tcp, db, limits, 3)).map((a) => a.kind),
      ['admitted', 'admitted', 'rate_limited'],
    );
    const inDb3 = await limiter({ url: `${redis.socketUrl}?db=3`, keyPrefix: 'unixdb:' });
    assert.equal((await inDb3.admit(db, limits)).kind, 'admitted');
    assert.equal(await redis.command('EXISTS', `unixdb:bucket:{${db}}`), 0, 'not in db 0');
    assert.ok((await inDb3.peek(db, limits)) !== undefined, 'the bucket exists in db 3');
  });

  test('two limiter instances (two gateway replicas) share one bucket: burst + rate x elapsed within 5%', async (t) => {
    const a = await limiter();
    const b = await limiter();
    const db = freshDb('shared');
    // A bucket that holds 2 s of refill: only a client starved for 2 s would let it fill up
    // and lose refill, so the count below does not depend on how fast this machine hammers.
    const limits = { rate: 200, burst: 400 };
    const windowMs = 2000;
    const admittedBy = [0, 0];
    const other: Admission[] = [];
    const t0 = performance.now();
    const end = t0 + windowMs;
    const hammer = async (l: RedisLimiter, who: number) => {
      while (performance.now() < end) {
        const answer = await l.admit(db, limits);
        if (answer.kind === 'admitted') admittedBy[who]!++;
        else if (answer.kind !== 'rate_limited') other.push(answer);
      }
    };
    await Promise.all([0, 1].flatMap((who) => Array.from({ length: 8 }, () => hammer(who === 0 ? a : b, who))));
    // What is left counts too: the bucket gave out or still holds burst + rate x elapsed.
    const left = await a.peek(db, limits);
    const elapsedS = (performance.now() - t0) / 1000;
    assert.deepEqual(other, []);
    assert.ok(left !== undefined && left >= 0 && left <= limits.burst, `left ${left}`);
    const total = admittedBy[0]! + admittedBy[1]!;
    const expected = limits.burst + limits.rate * elapsedS;
    t.diagnostic(
      `admitted ${total} (${admittedBy.join(' + ')}), ${left.toFixed(2)} left, in ${elapsedS.toFixed(3)} s; burst + rate x elapsed = ${expected.toFixed(1)}`,
    );
    assert.ok(
      Math.abs(total + left - expected) <= expected * 0.05,
      `admitted ${total} (${admittedBy.join(' + ')}) and ${left} left, expected ${expected.toFixed(1)} in all`,
    );
    assert.ok(admittedBy[0]! > 0 && admittedBy[1]! > 0, `both replicas were admitted: ${admittedBy.join(', ')}`);
  });

  /** Stores a bucket's state (the documented hash) stamped with Redis's own clock, as the admission script does. */
  const storeBucket = (db: string, tokens: number) =>
    redis.command(
      'EVAL',
      "local t = redis.call('TIME') redis.call('HSET', KEYS[1], 'tokens', ARGV[1], 'ts_us', string.format('%d', t[1] * 1000000 + t[2])) return 'ok'",
      '1',
      `trellis:bucket:{${db}}`,
      String(tokens),
    );
  const storedBucket = async (db: string) => ({
    tokens: Number(await redis.command('HGET', `trellis:bucket:{${db}}`, 'tokens')),
    tsUs: Number(await redis.command('HGET', `trellis:bucket:{${db}}`, 'ts_us')),
  });
  /** Tokens the bucket gave out between two stored states; exact while it stays below its burst (no refill lost). */
  const given = (from: { tokens: number; tsUs: number }, to: { tokens: number; tsUs: number }, rate: number) =>
    from.tokens + (rate * (to.tsUs - from.tsUs)) / 1e6 - to.tokens;
  /** Script calls (EVALSHA and EVAL) this Redis has run since it started. */
  const scriptCalls = async () => {
    const info = String(await redis.command('INFO', 'commandstats'));
    return [...info.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  };
  /** One client admitting one request after another for `ms`: the admitted count and any other answers. */
  const hammerFor = async (l: RedisLimiter, db: string, limits: BucketLimits, ms: number) => {
    let admitted = 0;
    const other: Admission[] = [];
    for (const end = performance.now() + ms; performance.now() < end;) {
      const answer = await l.admit(db, limits);
      if (answer.kind === 'admitted') admitted++;
      else other.push(answer);
    }
    return { admitted, other };
  };
  // 1,000 tokens/s: a reserve of 10 ms is at most 10 tokens, of 100 ms at most 100.
  const FAST = { rate: 1000, burst: 1_000_000 };

  test('a busy replica of a fast bucket reserves tokens ahead: one script call serves many admissions, each still one token', async () => {
    // 100 ms: one client whose round trips a loaded machine stretches to tens of ms still
    // asks more than one admission per reserveMs, so a reserve forms.
    const l = await limiter({ reserveMs: 100 });
    const db = freshDb('reserve');
    // Above half the burst (where reserves are taken), and far enough below it that no refill is lost.
    await storeBucket(db, 900_000);
    const from = await storedBucket(db);
    const callsBefore = await scriptCalls();
    const { admitted, other } = await hammerFor(l, db, FAST, 500);
    const calls = (await scriptCalls()) - callsBefore;
    const gave = given(from, await storedBucket(db), FAST.rate);
    assert.deepEqual(other, []);
    // One client, one admission at a time: without a reserve every admission would be a call.
    assert.ok(calls * 3 < admitted, `${calls} script calls for ${admitted} admissions`);
    // The bucket gave one token per admission, plus the reserve the replica still holds (at most 100).
    assert.ok(gave > admitted - 1e-6 && gave < admitted + 100 + 1e-6, `the bucket gave ${gave} for ${admitted} admissions`);
  });

  test('a bucket at or below half its burst, a slow bucket, or reserveMs 0: every admission is its own script call', async () => {
    const cases = [
      { name: 'half-empty', reserveMs: 10, limits: FAST, tokens: 400_000 },
      { name: 'slow', reserveMs: 10, limits: { rate: 99, burst: 1_000_000 }, tokens: 900_000 },
      { name: 'exact', reserveMs: 0, limits: FAST, tokens: 900_000 },
    ];
    for (const { name, reserveMs, limits, tokens } of cases) {
      const l = await limiter({ reserveMs });
      const db = freshDb(name);
      await storeBucket(db, tokens);
      const from = await storedBucket(db);
      const callsBefore = await scriptCalls();
      const { admitted, other } = await hammerFor(l, db, limits, 300);
      const calls = (await scriptCalls()) - callsBefore;
      const gave = given(from, await storedBucket(db), limits.rate);
      assert.deepEqual(other, [], name);
      assert.equal(calls, admitted, `${name}: ${calls} script calls for ${admitted} admissions`);
      assert.ok(Math.abs(gave - admitted) < 1e-6, `${name}: the bucket gave ${gave} for ${admitted} admissions`);
    }
  });

  test('a reserve serves at most reserveMs once Redis stops answering, then admissions are unavailable within the deadline', async () => {
    const l = await limiter({ deadlineMs: 50, reserveMs: 200 });
    const db = freshDb('reserve-paused');
    await storeBucket(db, 900_000);
    assert.deepEqual((await hammerFor(l, db, FAST, 300)).other, []);
    assert.equal(await redis.command('CLIENT', 'PAUSE', '1500', 'ALL'), 'OK');
    const pausedAt = performance.now();
    let lateAdmission = 0;
    let unavailable: { afterMs: number; waitedMs: number } | undefined;
    while (unavailable === undefined && performance.now() - pausedAt < 1000) {
      const sent = performance.now();
      const answer = await l.admit(db, FAST);
      if (answer.kind === 'admitted') lateAdmission = Math.max(lateAdmission, sent - pausedAt);
      else {
        assert.equal(answer.kind, 'unavailable');
        unavailable = { afterMs: sent - pausedAt, waitedMs: performance.now() - sent };
      }
      await sleep(10);
    }
    // The last grant came before the pause, so its tokens are dropped 200 ms after it at the latest.
    assert.ok(lateAdmission < 200, `admitted from the reserve ${lateAdmission.toFixed(0)} ms into the pause`);
    assert.ok(unavailable !== undefined, 'admissions became unavailable during the pause');
    assert.ok(unavailable.waitedMs < SLACK_MS, `unavailable after waiting ${unavailable.waitedMs.toFixed(0)} ms`);
    await pollAdmitted(l, db, FAST, 5000);
  });

  test('a disabled database drops the reserve at the next call: then every admission is disabled', async () => {
    const l = await limiter({ reserveMs: 1000 }); // a reserve that does not expire during the test
    const db = freshDb('reserve-credit');
    await storeBucket(db, 900_000);
    const from = await storedBucket(db);
    const { admitted, other } = await hammerFor(l, db, FAST, 300);
    assert.deepEqual(other, []);
    await sleep(50); // any top-up in flight lands
    const held = given(from, await storedBucket(db), FAST.rate) - admitted;
    assert.ok(held >= 20, `the replica holds a reserve: ${held}`);
    await l.setDisabled(db, true);
    // One admission per event-loop turn, so the top-up goes out while reserved tokens remain,
    // and a pause of 10 ms every 50: the rest of the reserve then lasts about 100 ms, time for
    // Redis to answer the top-up on a busy machine (500 admissions in a row take about 2 ms,
    // and an answer delayed that long, seen here, let them all through). The reserve lasts a
    // second, so it does not expire first.
    let fromReserve = 0;
    while ((await l.admit(db, FAST)).kind === 'admitted') {
      fromReserve++;
      await new Promise((resolve) => setImmediate(resolve));
      if (fromReserve % 50 === 0) await sleep(10);
    }
    // Without the drop every reserved token would be used before the first 'disabled'.
    assert.ok(fromReserve < Math.round(held), `${fromReserve} of ${held} reserved tokens used after the credit ran out`);
    for (let i = 0; i < 20; i++) assert.deepEqual(await l.admit(db, FAST), { kind: 'disabled' });
    await l.setDisabled(db, false);
  });

  test('each database has its own bucket, under the documented keys, expiring when idle', async () => {
    const l = await limiter();
    const limits = { rate: 0.001, burst: 2 };
    const dbA = freshDb('a');
    const dbB = `${freshDb('b')} {odd}:*/ünïcödé`;
    assert.equal(count(await burstOf(l, dbA, limits, 3), 'admitted'), 2);
    assert.equal((await l.admit(dbA, limits)).kind, 'rate_limited');
    assert.equal(count(await burstOf(l, dbB, limits, 3), 'admitted'), 2);
    assert.equal(await l.peek(freshDb('never-used'), limits), undefined);

    for (const db of [dbA, dbB]) {
      const key = `trellis:bucket:{${db}}`;
      assert.equal(await redis.command('EXISTS', key), 1);
      // Twice the full refill time (2 / 0.001 s) plus a 1 s margin.
      const pttl = Number(await redis.command('PTTL', key));
      assert.ok(pttl > 4_000_000 - 60_000 && pttl <= 4_001_000, `PTTL ${pttl}`);
      const tokens = Number(await redis.command('HGET', key, 'tokens'));
      assert.ok(tokens >= 0 && tokens < 0.01, `tokens ${tokens}`);
      const tsUs = Number(await redis.command('HGET', key, 'ts_us'));
      assert.ok(Math.abs(tsUs / 1000 - Date.now()) < 60_000, `ts_us ${tsUs}`);
    }

    // Another prefix is another set of buckets.
    const prefixed = await limiter({ keyPrefix: 'other:' });
    assert.equal((await prefixed.admit(dbA, limits)).kind, 'admitted');
    assert.equal(await redis.command('EXISTS', `other:bucket:{${dbA}}`), 1);
    assert.throws(() => new RedisLimiter({ url: redis.url, keyPrefix: 'a{b}:' }), TypeError);

    // An idle bucket vanishes once it would have refilled (1 token at 100/s: 2 x 10 ms + 1 s).
    const fast = { rate: 100, burst: 1 };
    const dbIdle = freshDb('idle');
    assert.equal((await l.admit(dbIdle, fast)).kind, 'admitted');
    assert.equal(await redis.command('EXISTS', `trellis:bucket:{${dbIdle}}`), 1);
    await sleep(1300);
    assert.equal(await redis.command('EXISTS', `trellis:bucket:{${dbIdle}}`), 0);
    assert.equal(await l.peek(dbIdle, fast), undefined);
  });

  test('a disabled database answers disabled without spending a token, and is enabled again without a restart', async () => {
    const l = await limiter();
    const db = freshDb('credit');
    const limits = { rate: 0.001, burst: 5 };
    assert.deepEqual(await l.admit(db, limits), { kind: 'admitted', tokensLeft: 4 });
    const tokensBefore = await l.peek(db, limits);
    assert.ok(tokensBefore !== undefined && tokensBefore >= 4 && tokensBefore < 4.01);

    await l.setDisabled(db, true);
    assert.equal(await l.isDisabled(db), true);
    assert.equal(await redis.command('GET', `trellis:credit:{${db}}`), 'exhausted');
    for (let i = 0; i < 10; i++) assert.deepEqual(await l.admit(db, limits), { kind: 'disabled' });
    const during = await l.peek(db, limits);
    assert.ok(during !== undefined && Math.abs(during - tokensBefore) < 0.01, `tokens ${tokensBefore} -> ${during}`);

    await l.setDisabled(db, false);
    assert.equal(await l.isDisabled(db), false);
    assert.equal(await redis.command('EXISTS', `trellis:credit:{${db}}`), 0);
    assert.deepEqual(await l.admit(db, limits), { kind: 'admitted', tokensLeft: 3 });

    // What an operator does with redis-cli (docs/gateway.md, "Rate limit and credit") takes effect at once,
    // and a database disabled before its first request gets no bucket.
    const fresh = freshDb('operator');
    assert.equal(await redis.command('SET', `trellis:credit:{${fresh}}`, 'exhausted'), 'OK');
    assert.deepEqual(await l.admit(fresh, limits), { kind: 'disabled' });
    assert.equal(await l.peek(fresh, limits), undefined);
    assert.equal(await redis.command('DEL', `trellis:credit:{${fresh}}`), 1);
    assert.deepEqual(await l.admit(fresh, limits), { kind: 'admitted', tokensLeft: 4 });
  });

  test('invalid limits and database ids reject with a TypeError', async () => {
    const l = await limiter();
    const db = freshDb('invalid');
    for (const limits of [
      { rate: 0, burst: 1 },
      { rate: -1, burst: 1 },
      { rate: Number.NaN, burst: 1 },
      { rate: Number.POSITIVE_INFINITY, burst: 1 },
      { rate: 1, burst: 0.5 },
      { rate: 1, burst: 0 },
      { rate: 1, burst: Number.NaN },
      { rate: '1', burst: 1 } as unknown as BucketLimits,
      undefined as unknown as BucketLimits,
    ]) {
      await assert.rejects(l.admit(db, limits), TypeError, JSON.stringify(limits));
      await assert.rejects(l.peek(db, limits), TypeError);
    }
    await assert.rejects(l.admit('', { rate: 1, burst: 1 }), TypeError);
    assert.equal(await l.peek(db, { rate: 1, burst: 1 }), undefined, 'nothing reached Redis');
    assert.throws(() => new RedisLimiter({ url: redis.url, deadlineMs: 0 }), TypeError);
  });

  test('a paused Redis (CLIENT PAUSE) is unavailable within the deadline, then admits again', async () => {
    // No reserve (reserveMs 0): every admission goes to Redis; 'a reserve ...' below covers reserves.
    const l = await limiter({ deadlineMs: 50, reserveMs: 0 });
    const db = freshDb('paused');
    const limits = { rate: 1000, burst: 1000 };
    await pollAdmitted(l, db, limits, 5000); // the first call on a new connection may miss 50 ms on a loaded machine
    assert.equal(await redis.command('CLIENT', 'PAUSE', '800', 'ALL'), 'OK');
    const pausedAt = performance.now();
    // Up to three calls, all sent well inside the pause.
    for (let i = 0; i < 3 && (i === 0 || performance.now() - pausedAt < 400); i++) {
      const t = performance.now();
      const answer = await l.admit(db, limits);
      const ms = performance.now() - t;
      assert.equal(answer.kind, 'unavailable');
      assert.match((answer as { reason: string }).reason, /within 50 ms/);
      assert.ok(ms < SLACK_MS, `answered after ${ms.toFixed(0)} ms`);
    }
    await pollAdmitted(l, db, limits, 5000);
  });

  test('admissions waiting together each get their own deadline, counted from their own call', async () => {
    const l = await limiter({ deadlineMs: 50, reserveMs: 0 });
    const db = freshDb('staggered');
    const limits = { rate: 1000, burst: 1000 };
    await pollAdmitted(l, db, limits, 5000);
    assert.equal(await redis.command('CLIENT', 'PAUSE', '800', 'ALL'), 'OK');
    const timed = async () => {
      const t = performance.now();
      const answer = await l.admit(db, limits);
      return { answer, ms: performance.now() - t };
    };
    const first = timed();
    await sleep(30);
    const second = timed(); // waits behind the first one's call, which Redis holds
    for (const { answer, ms } of [await first, await second]) {
      assert.equal(answer.kind, 'unavailable');
      // Not before its own deadline (the second is not answered with the first), nor long after it.
      assert.ok(ms >= 49 && ms < SLACK_MS, `answered after ${ms.toFixed(0)} ms`);
    }
    await pollAdmitted(l, db, limits, 5000);
  });

  test('a killed Redis is unavailable at once, never thrown, and admissions recover after it restarts', async (t) => {
    const own = await startRedis();
    t.after(() => own.stop());
    const errors: Error[] = [];
    const l = await limiter({ url: own.url, deadlineMs: 50, reserveMs: 0, onError: (err) => errors.push(err) });
    const db = freshDb('killed');
    const limits = { rate: 1000, burst: 1000 };
    await pollAdmitted(l, db, limits, 5000);

    await own.kill();
    let slowest = 0;
    const reasons = new Set<string>();
    // For about a second: while disconnected and while ioredis tries to reconnect.
    for (const start = performance.now(); performance.now() - start < 1000;) {
      const sent = performance.now();
      const answer = await l.admit(db, limits);
      slowest = Math.max(slowest, performance.now() - sent);
      assert.equal(answer.kind, 'unavailable');
      reasons.add((answer as { reason: string }).reason);
      await sleep(20);
    }
    assert.ok(slowest < SLACK_MS, `slowest answer ${slowest.toFixed(0)} ms`);
    // At once: every refusal is the connection's own error, none waited for the deadline.
    for (const reason of reasons) assert.match(reason, /^Redis error: /);
    assert.ok(errors.length > 0, 'connection errors reach onError');
    await assert.rejects(l.isDisabled(db), 'operator calls reject instead of answering wrongly');

    await own.restart();
    const recoveredMs = await pollAdmitted(l, db, limits, 5000);
    t.diagnostic(`slowest unavailable answer ${slowest.toFixed(1)} ms (${[...reasons].join(' | ')})`);
    t.diagnostic(`admitted again ${recoveredMs} ms after the restart`);
  });

  test('a connection that stops answering is unavailable within the deadline, then replaced by a new one', async (t) => {
    const proxy = await freezableProxy(redis.port);
    t.after(() => proxy.close());
    const l = await limiter({ url: `redis://127.0.0.1:${proxy.port}`, deadlineMs: 50, reserveMs: 0 });
    const db = freshDb('frozen');
    const limits = { rate: 1000, burst: 1000 };
    await pollAdmitted(l, db, limits, 5000);
    assert.equal(proxy.connections(), 1);

    // Bytes to and from the open connection vanish; TCP itself would not notice for minutes.
    proxy.freeze();
    const started = performance.now();
    const answer = await l.admit(db, limits);
    const ms = performance.now() - started;
    assert.equal(answer.kind, 'unavailable');
    assert.ok(ms < SLACK_MS, `answered after ${ms.toFixed(0)} ms`);
    // The limiter gives up on the silent connection (after 1 s) and connects again.
    await pollAdmitted(l, db, limits, 5000);
    assert.ok(proxy.connections() >= 2, `connections: ${proxy.connections()}`);
  });

  test('ready() rejects naming the URL (without its password) when Redis cannot be reached; admit fails closed', async () => {
    const port = await freePort();
    const l = new RedisLimiter({ url: `redis://:s3cret@127.0.0.1:${port}`, deadlineMs: 50 });
    limiters.push(l);
    await assert.rejects(l.ready(300), (err: Error) => {
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.doesNotMatch(err.message, /s3cret/);
      return true;
    });
    const t = performance.now();
    assert.equal((await l.admit(freshDb('nowhere'), { rate: 1, burst: 1 })).kind, 'unavailable');
    assert.ok(performance.now() - t < SLACK_MS);
    const socket = new RedisLimiter({ url: 'unix:///nonexistent/trellis-redis.sock?password=s3cret', deadlineMs: 50 });
    limiters.push(socket);
    await assert.rejects(socket.ready(300), (err: Error) => {
      assert.match(err.message, /\/nonexistent\/trellis-redis\.sock/);
      assert.doesNotMatch(err.message, /s3cret/);
      return true;
    });
  });
});

/** Admits every 50 ms until admitted; returns how long it took, failing after `limitMs`. */
async function pollAdmitted(l: RedisLimiter, db: string, limits: BucketLimits, limitMs: number): Promise<number> {
  const start = performance.now();
  let last: Admission | undefined;
  while (performance.now() - start < limitMs) {
    last = await l.admit(db, limits);
    if (last.kind === 'admitted') return Math.round(performance.now() - start);
    await sleep(50);
  }
  assert.fail(`not admitted again within ${limitMs} ms; last answer ${JSON.stringify(last)}`);
}

/** A TCP proxy whose open connections can be frozen: their bytes are dropped both ways, the sockets stay open. */
async function freezableProxy(targetPort: number) {
  const pairs: { client: Socket; upstream: Socket; frozen: boolean }[] = [];
  let connections = 0;
  const server = createServer((client) => {
    connections++;
    const upstream = createConnection({ port: targetPort, host: '127.0.0.1' });
    const pair = { client, upstream, frozen: false };
    pairs.push(pair);
    client.on('data', (d) => pair.frozen || upstream.write(d));
    upstream.on('data', (d) => pair.frozen || client.write(d));
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    connections: () => connections,
    freeze: () => pairs.forEach((p) => (p.frozen = true)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const p of pairs) p.client.destroy();
        server.close(() => resolve());
      }),
  };
}
