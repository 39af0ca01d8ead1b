package io.llmgw.batch.store;

/**
 * The Lua scripts {@link RedisStore} runs: every move of a line between a pool's queue, its delayed retries and its
 * claims, and every write of a result, happens inside one script, so no crash can leave a line in two places or none.
 * Keys are passed in KEYS; the store's key prefix comes in as the first argument where a script builds keys itself.
 */
final class RedisScripts {
  private RedisScripts() {}

  // KEYS: file, files, pieces; ARGV: purpose, filename, bytes, created_at, id. The pieces stop expiring once published.
  static final String PUT_FILE = """
      if redis.call('exists', KEYS[1]) == 1 then return 0 end
      redis.call('hset', KEYS[1], 'purpose', ARGV[1], 'filename', ARGV[2], 'bytes', ARGV[3], 'created_at', ARGV[4],
        'owner', ARGV[6])
      redis.call('persist', KEYS[3])
      redis.call('zadd', KEYS[2], ARGV[4], ARGV[5])
      return 1""";
  // KEYS: batch, results, items, attempts, batches; ARGV: prefix, id. Queued lines leave their pools' sets too.
  static final String DELETE_BATCH = """
      local p, id = ARGV[1], ARGV[2]
      local items = redis.call('hgetall', KEYS[3])
      for i = 1, #items, 2 do
        local pool = cjson.decode(items[i + 1]).pool
        local m = id .. '\\t' .. items[i]
        for _, set in ipairs({'q:', 'delayed:', 'claimed:', 'enq:'}) do redis.call('zrem', p .. set .. pool, m) end
        redis.call('hdel', p .. 'score:' .. pool, m)
      end
      local status = redis.call('hget', KEYS[1], 'status')
      if status then redis.call('srem', p .. 'status:' .. status, id) end
      redis.call('del', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
      redis.call('zrem', KEYS[5], id)
      return 1""";
  static final String CREATE = """
      if redis.call('exists', KEYS[1]) == 1 then return 0 end
      local seq = redis.call('incr', KEYS[2])
      redis.call('hset', KEYS[1], 'status', ARGV[2], 'doc', ARGV[3], 'completed', 0, 'failed', 0)
      redis.call('zadd', KEYS[3], seq, ARGV[1])
      redis.call('sadd', KEYS[4], ARGV[1])
      return 1""";
  static final String TRANSITION = """
      if redis.call('hget', KEYS[1], 'status') ~= ARGV[1] then return 0 end
      redis.call('hset', KEYS[1], 'status', ARGV[2], 'doc', ARGV[3])
      redis.call('srem', KEYS[2], ARGV[4])
      redis.call('sadd', KEYS[3], ARGV[4])
      return 1""";
  // ARGV: prefix, pool, now; then triples (customId, score, item json). Lines with a result are not queued again.
  static final String ENQUEUE = """
      local p, pool = ARGV[1], ARGV[2]
      redis.call('sadd', p .. 'pools', pool)
      for i = 4, #ARGV, 3 do
        local b = cjson.decode(ARGV[i + 2]).batchId
        local m = b .. '\\t' .. ARGV[i]
        if redis.call('hexists', p .. 'res:' .. b, ARGV[i]) == 0
            and redis.call('hsetnx', p .. 'item:' .. b, ARGV[i], ARGV[i + 2]) == 1 then
          redis.call('zadd', p .. 'q:' .. pool, ARGV[i + 1], m)
          redis.call('hset', p .. 'score:' .. pool, m, ARGV[i + 1])
          redis.call('zadd', p .. 'enq:' .. pool, ARGV[3], m)
        end
      end
      return 1""";
  // Takes a line off every queue it is in; the item's JSON names its pool.
  static final String UNQUEUE_FN = """
      local function unqueue(p, b, c)
        local item = redis.call('hget', p .. 'item:' .. b, c)
        if not item then return end
        local pool = cjson.decode(item).pool
        local m = b .. '\\t' .. c
        redis.call('hdel', p .. 'item:' .. b, c)
        redis.call('zrem', p .. 'q:' .. pool, m)
        redis.call('zrem', p .. 'delayed:' .. pool, m)
        redis.call('zrem', p .. 'claimed:' .. pool, m)
        redis.call('zrem', p .. 'enq:' .. pool, m)
        redis.call('hdel', p .. 'score:' .. pool, m)
      end
      """;
  // ARGV: prefix, batchId, customId, value, ok(1/0), onlyIfUnclaimed(1/0), input tokens, output tokens
  static final String FINISH = UNQUEUE_FN + """
      local p, b, c = ARGV[1], ARGV[2], ARGV[3]
      if ARGV[6] == '1' then
        local item = redis.call('hget', p .. 'item:' .. b, c)
        if not item then return -1 end
        if redis.call('zscore', p .. 'claimed:' .. cjson.decode(item).pool, b .. '\\t' .. c) then return -1 end
      end
      local w = redis.call('hsetnx', p .. 'res:' .. b, c, ARGV[4])
      if w == 1 then
        redis.call('hincrby', p .. 'batch:' .. b, ARGV[5] == '1' and 'completed' or 'failed', 1)
        redis.call('hincrby', p .. 'batch:' .. b, 'input_tokens', ARGV[7])
        redis.call('hincrby', p .. 'batch:' .. b, 'output_tokens', ARGV[8])
      end
      unqueue(p, b, c)
      return w""";
  // ARGV: prefix, pool, nowMillis, minScore, max, claimUntil, maxChars (the items' sizes; the first is always taken)
  static final String CLAIM = """
      local p, pool, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
      local q, delayed, claimed, score = p .. 'q:' .. pool, p .. 'delayed:' .. pool, p .. 'claimed:' .. pool,
        p .. 'score:' .. pool
      for _, set in ipairs({delayed, claimed}) do
        for _, m in ipairs(redis.call('zrangebyscore', set, '-inf', now)) do
          redis.call('zrem', set, m)
          local s = redis.call('hget', score, m)
          if s then redis.call('zadd', q, s, m) end
        end
      end
      local out, budget, used = {}, tonumber(ARGV[7]), 0
      for _, m in ipairs(redis.call('zrangebyscore', q, ARGV[4], '+inf', 'LIMIT', 0, tonumber(ARGV[5]))) do
        local sep = string.find(m, '\\t', 1, true)
        local b, c = string.sub(m, 1, sep - 1), string.sub(m, sep + 1)
        local size = redis.call('hstrlen', p .. 'item:' .. b, c)
        if #out > 0 and used + size > budget then break end
        used = used + size
        redis.call('zrem', q, m)
        local item = redis.call('hget', p .. 'item:' .. b, c)
        if item then
          redis.call('zadd', claimed, ARGV[6], m)
          local n = redis.call('hincrby', p .. 'attempts:' .. b, c, 1)
          table.insert(out, item)
          table.insert(out, tostring(n - 1))
        end
      end
      return out""";
  // ARGV: prefix, pool, member, notBefore, refund (1: the claim's attempt does not count), batch id, custom id
  static final String RELEASE = """
      local p, pool, m = ARGV[1], ARGV[2], ARGV[3]
      if redis.call('zrem', p .. 'claimed:' .. pool, m) == 1 then
        redis.call('zadd', p .. 'delayed:' .. pool, ARGV[4], m)
        if ARGV[5] == '1' and tonumber(redis.call('hget', p .. 'attempts:' .. ARGV[6], ARGV[7]) or '0') > 0 then
          redis.call('hincrby', p .. 'attempts:' .. ARGV[6], ARGV[7], -1)
        end
      end
      return 1""";
}
