/**
 * One decision's token from a caller's bucket, taken atomically in the store: the same bucket as the in-process
 * limiter (`http-server/callers/rate-limiter.ts`: `perMinute` a minute, `burst` at most, one token a decision),
 * on the store's clock, so every replica draws from one bucket whatever its own clock says. The key expires once
 * the bucket would be full again, so a quiet caller's bucket costs nothing. Returns 0, or the ms to wait.
 * KEYS[1]: the bucket; ARGV: tokens per ms, burst.
 */
export const TAKE_TOKEN_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local per_ms = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(held[1])
local at = tonumber(held[2])
if tokens == nil or at == nil then
  tokens = burst
  at = now
end
tokens = math.min(burst, tokens + math.max(0, now - at) * per_ms)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.max(1, math.ceil((1 - tokens) / per_ms - 1e-6))
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / per_ms) + 1000)
return wait
`;
