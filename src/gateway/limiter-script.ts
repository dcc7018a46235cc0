/**
 * The Lua scripts of the gateway's rate limiter (src/gateway/limiter.ts). ADMIT is the
 * whole admission in one Redis round trip: the credit check, then the token bucket.
 *
 * Time comes from the Redis server (`TIME`), never from the gateway, so replicas on
 * machines whose clocks disagree still share one bucket correctly. Redis 7 replicates a
 * script's effects, not the script, so the non-deterministic TIME is allowed before writes.
 *
 * Lua numbers are doubles. Microseconds since the epoch (about 1.8e15) are below 2^53, so
 * `sec * 1e6 + usec` is exact. A number handed to redis.call is formatted with only 14
 * significant digits, so the scripts format tokens themselves with %.17g (exact round
 * trip). A number returned from a script is truncated to an integer, so tokens go back as
 * a string.
 */

/**
 * KEYS[1] credit key, KEYS[2] bucket key; ARGV[1] rate (tokens/s), ARGV[2] burst,
 * ARGV[3] bucket TTL in ms, ARGV[4] n, the admissions asked for at once (limiter.ts sends
 * the requests that arrived while its previous call was in flight together), ARGV[5] the
 * tokens the replica asks to reserve ahead of demand. Returns {0} when the database is
 * disabled (no token spent, bucket untouched), else {1, admitted, tokens, reserved}: the
 * first `admitted` of the n get a token each (at most the whole tokens there are), the
 * others none, exactly as n calls one after another would; then up to ARGV[5] more whole
 * tokens are `reserved`, but only from what lies above half the burst, so a bucket that is
 * close to running dry is spent one request at a time; `tokens` is what is left.
 */
export const ADMIT_LUA = `
if redis.call('GET', KEYS[1]) == 'exhausted' then
  return {0}
end
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local n = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local b = redis.call('HMGET', KEYS[2], 'tokens', 'ts_us')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then
  -- No bucket (never used, or idle long enough to expire): it is full.
  tokens = burst
  ts = now
end
-- A clock that stepped back (a failover to a replica whose clock is behind) refills nothing.
local elapsed = now - ts
if elapsed < 0 then elapsed = 0 end
tokens = math.min(burst, tokens + elapsed * rate / 1000000)
local admitted = math.floor(tokens)
if admitted > n then admitted = n end
local reserved = 0
local spare = math.floor(tokens - admitted - burst / 2)
if spare > 0 then reserved = math.min(tonumber(ARGV[5]), spare) end
if admitted + reserved < 1 then
  -- Nothing written: (tokens, ts_us) as stored still yield the same refill later.
  return {1, 0, string.format('%.17g', tokens), 0}
end
tokens = tokens - admitted - reserved
redis.call('HSET', KEYS[2], 'tokens', string.format('%.17g', tokens), 'ts_us', string.format('%d', now))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return {1, admitted, string.format('%.17g', tokens), reserved}
`;

/**
 * KEYS[1] bucket key; ARGV[1] rate, ARGV[2] burst. Returns the bucket's tokens after
 * refill as a string, or false (nil to the client) when there is no bucket. Writes nothing.
 */
export const PEEK_LUA = `
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts_us')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then
  return false
end
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local elapsed = now - ts
if elapsed < 0 then elapsed = 0 end
return string.format('%.17g', math.min(burst, tokens + elapsed * rate / 1000000))
`;
