package io.llmgw.batch.store;

import io.lettuce.core.KeyValue;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The store for several dispatchers: one Redis. Each pool's queue is a sorted set scored by deadline (then line), so
 * {@code ZRANGEBYSCORE} hands out the earliest deadline first; a claim moves a line into the pool's claimed set scored
 * by when the claim lapses, and whichever dispatcher claims next puts lapsed claims (a dispatcher that died) back first.
 * Every step that touches more than one key is one Lua script, so no crash leaves a line half moved. Durability is
 * Redis's own: run it with {@code appendonly yes} (and {@code appendfsync always} to survive a power cut).
 */
public final class RedisStore implements BatchStore {
  private static final int ACCEPT_CHUNK = 500;
  private static final long SCORE_PER_SECOND = 100_000L;

  private static final String PUT_FILE = """
      if redis.call('exists', KEYS[1]) == 1 then return 0 end
      redis.call('hset', KEYS[1], 'purpose', ARGV[1], 'filename', ARGV[2], 'bytes', ARGV[3], 'created_at', ARGV[4],
        'content', ARGV[5])
      redis.call('zadd', KEYS[2], ARGV[4], ARGV[6])
      return 1""";
  // KEYS: batch, results, items, attempts, batches; ARGV: prefix, id. Queued lines leave their pools' sets too.
  private static final String DELETE_BATCH = """
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
  private static final String CREATE = """
      if redis.call('exists', KEYS[1]) == 1 then return 0 end
      local seq = redis.call('incr', KEYS[2])
      redis.call('hset', KEYS[1], 'status', ARGV[2], 'doc', ARGV[3], 'completed', 0, 'failed', 0)
      redis.call('zadd', KEYS[3], seq, ARGV[1])
      redis.call('sadd', KEYS[4], ARGV[1])
      return 1""";
  private static final String TRANSITION = """
      if redis.call('hget', KEYS[1], 'status') ~= ARGV[1] then return 0 end
      redis.call('hset', KEYS[1], 'status', ARGV[2], 'doc', ARGV[3])
      redis.call('srem', KEYS[2], ARGV[4])
      redis.call('sadd', KEYS[3], ARGV[4])
      return 1""";
  // ARGV: prefix, pool, now; then triples (customId, score, item json). Lines with a result are not queued again.
  private static final String ENQUEUE = """
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
  private static final String UNQUEUE_FN = """
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
  // ARGV: prefix, batchId, customId, value, ok(1/0), onlyIfUnclaimed(1/0)
  private static final String FINISH = UNQUEUE_FN + """
      local p, b, c = ARGV[1], ARGV[2], ARGV[3]
      if ARGV[6] == '1' then
        local item = redis.call('hget', p .. 'item:' .. b, c)
        if not item then return -1 end
        if redis.call('zscore', p .. 'claimed:' .. cjson.decode(item).pool, b .. '\\t' .. c) then return -1 end
      end
      local w = redis.call('hsetnx', p .. 'res:' .. b, c, ARGV[4])
      if w == 1 then
        redis.call('hincrby', p .. 'batch:' .. b, ARGV[5] == '1' and 'completed' or 'failed', 1)
      end
      unqueue(p, b, c)
      return w""";
  // ARGV: prefix, pool, nowMillis, minScore, max, claimUntil
  private static final String CLAIM = """
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
      local out = {}
      for _, m in ipairs(redis.call('zrangebyscore', q, ARGV[4], '+inf', 'LIMIT', 0, tonumber(ARGV[5]))) do
        redis.call('zrem', q, m)
        local sep = string.find(m, '\\t', 1, true)
        local b, c = string.sub(m, 1, sep - 1), string.sub(m, sep + 1)
        local item = redis.call('hget', p .. 'item:' .. b, c)
        if item then
          redis.call('zadd', claimed, ARGV[6], m)
          local n = redis.call('hincrby', p .. 'attempts:' .. b, c, 1)
          table.insert(out, item)
          table.insert(out, tostring(n - 1))
        end
      end
      return out""";
  // ARGV: prefix, pool, member, notBefore
  private static final String RELEASE = """
      local p, pool, m = ARGV[1], ARGV[2], ARGV[3]
      if redis.call('zrem', p .. 'claimed:' .. pool, m) == 1 then
        redis.call('zadd', p .. 'delayed:' .. pool, ARGV[4], m)
      end
      return 1""";

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final String prefix;
  private final Map<String, String> shas = new HashMap<>();

  private RedisStore(RedisClient client, StatefulRedisConnection<String, String> connection, String prefix) {
    this.client = client;
    this.connection = connection;
    this.redis = connection.sync();
    this.prefix = prefix;
  }

  /** Connects to {@code uri} (redis://host:port[/db]); keys start with {@code prefix}. */
  public static RedisStore connect(String uri, String prefix, Duration timeout) {
    RedisURI u = RedisURI.create(uri);
    u.setTimeout(timeout);
    RedisClient client = RedisClient.create(u);
    try {
      return new RedisStore(client, client.connect(), prefix);
    } catch (RuntimeException e) {
      client.shutdown();
      throw new IllegalStateException("cannot reach the batch store at " + u.getHost() + ":" + u.getPort() + ": "
          + e.getMessage(), e);
    }
  }

  private String k(String suffix) {
    return prefix + suffix;
  }

  private Object run(String script, ScriptOutputType type, String[] keys, String... args) {
    String sha;
    synchronized (shas) {
      sha = shas.computeIfAbsent(script, s -> redis.digest(s));
    }
    try {
      return redis.evalsha(sha, type, keys, args);
    } catch (RedisNoScriptException e) {
      return redis.eval(script, type, keys, args); // Redis restarted and forgot its scripts
    }
  }

  private long runLong(String script, String... args) {
    return (Long) run(script, ScriptOutputType.INTEGER, new String[0], args);
  }

  @Override
  public boolean putFile(StoredFile f, byte[] content) {
    return (Long) run(PUT_FILE, ScriptOutputType.INTEGER, new String[] {k("file:" + f.id()), k("files")},
        f.purpose(), f.filename(), Long.toString(f.bytes()), Long.toString(f.createdAt()),
        new String(content, StandardCharsets.UTF_8), f.id()) == 1;
  }

  @Override
  public Optional<StoredFile> file(String id) {
    List<KeyValue<String, String>> v = redis.hmget(k("file:" + id), "purpose", "filename", "bytes",
        "created_at");
    if (!v.getFirst().hasValue()) {
      return Optional.empty();
    }
    return Optional.of(new StoredFile(id, v.get(0).getValue(), v.get(1).getValue(), Long.parseLong(v.get(2).getValue()),
        Long.parseLong(v.get(3).getValue())));
  }

  @Override
  public Optional<byte[]> content(String id) {
    String c = redis.hget(k("file:" + id), "content");
    return Optional.ofNullable(c).map(s -> s.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public List<StoredFile> files() {
    List<StoredFile> out = new ArrayList<>();
    for (String id : redis.zrange(k("files"), 0, -1)) {
      file(id).ifPresent(out::add);
    }
    return out;
  }

  @Override
  public boolean deleteFile(String id) {
    redis.zrem(k("files"), id);
    return redis.del(k("file:" + id)) == 1;
  }

  @Override
  public void deleteBatch(String id) {
    run(DELETE_BATCH, ScriptOutputType.INTEGER, new String[] {k("batch:" + id), k("res:" + id), k("item:" + id),
        k("attempts:" + id), k("batches")}, prefix, id);
  }

  @Override
  public void createBatch(Batch b) {
    run(CREATE, ScriptOutputType.INTEGER, new String[] {k("batch:" + b.id()), k("batch-seq"), k("batches"),
        k("status:" + b.status().name())}, b.id(), b.status().name(), BatchJsonCodec.write(b));
  }

  @Override
  public Optional<Batch> batch(String id) {
    return Optional.ofNullable(redis.hget(k("batch:" + id), "doc")).map(d -> BatchJsonCodec.read(d, Batch.class));
  }

  @Override
  public List<Batch> batches(String after, int limit) {
    List<String> ids;
    if (after == null) {
      ids = redis.zrevrange(k("batches"), 0, limit - 1);
    } else {
      Double score = redis.zscore(k("batches"), after);
      if (score == null) {
        return List.of();
      }
      ids = redis.zrevrangebyscore(k("batches"), Range.create(Double.NEGATIVE_INFINITY,
          score - 0.5), Limit.create(0, limit));
    }
    List<Batch> out = new ArrayList<>();
    for (String id : ids) {
      batch(id).ifPresent(out::add);
    }
    return out;
  }

  @Override
  public List<String> batchIds(List<BatchStatus> statuses) {
    List<String> out = new ArrayList<>();
    for (BatchStatus s : statuses) {
      out.addAll(redis.smembers(k("status:" + s.name())));
    }
    return out;
  }

  @Override
  public boolean transition(String id, BatchStatus from, Batch next) {
    return (Long) run(TRANSITION, ScriptOutputType.INTEGER, new String[] {k("batch:" + id), k("status:" + from.name()),
        k("status:" + next.status().name())}, from.name(), next.status().name(), BatchJsonCodec.write(next), id) == 1;
  }

  @Override
  public boolean accept(Batch next, List<QueuedLine> lines, List<LineResult> known, long nowMillis) {
    // Queue first, then move the batch: a crash in between leaves it validating, and validating again queues nothing twice.
    Map<String, List<QueuedLine>> byPool = new HashMap<>();
    for (QueuedLine l : lines) {
      byPool.computeIfAbsent(l.pool(), p -> new ArrayList<>()).add(l);
    }
    String now = Long.toString(nowMillis);
    for (Map.Entry<String, List<QueuedLine>> e : byPool.entrySet()) {
      List<QueuedLine> pool = e.getValue();
      for (int from = 0; from < pool.size(); from += ACCEPT_CHUNK) {
        List<String> args = new ArrayList<>(List.of(prefix, e.getKey(), now));
        for (QueuedLine l : pool.subList(from, Math.min(pool.size(), from + ACCEPT_CHUNK))) {
          args.add(l.customId());
          args.add(Long.toString(Math.floorDiv(l.deadline(), 1000) * SCORE_PER_SECOND + l.line()));
          args.add(BatchJsonCodec.write(l));
        }
        runLong(ENQUEUE, args.toArray(String[]::new));
      }
    }
    for (LineResult r : known) {
      write(r, false);
    }
    return transition(next.id(), BatchStatus.VALIDATING, next);
  }

  @Override
  public List<Claim> claim(String pool, int max, String owner, long now, long visibilityMillis) {
    if (max <= 0) {
      return List.of();
    }
    long minScore = (Math.floorDiv(now, 1000) + 1) * SCORE_PER_SECOND;
    @SuppressWarnings("unchecked")
    List<Object> raw = (List<Object>) run(CLAIM, ScriptOutputType.MULTI, new String[0], prefix, pool,
        Long.toString(now), Long.toString(minScore), Integer.toString(max), Long.toString(now + visibilityMillis));
    List<Claim> out = new ArrayList<>();
    for (int i = 0; i + 1 < raw.size(); i += 2) {
      out.add(new Claim(BatchJsonCodec.read((String) raw.get(i), QueuedLine.class),
          Integer.parseInt((String) raw.get(i + 1))));
    }
    return out;
  }

  @Override
  public void extend(List<QueuedLine> lines, String owner, long now, long visibilityMillis) {
    for (QueuedLine l : lines) {
      redis.zadd(k("claimed:" + l.pool()), ZAddArgs.Builder.xx(), (double) (now + visibilityMillis),
          member(l.batchId(), l.customId()));
    }
  }

  @Override
  public void release(QueuedLine l, long notBefore) {
    runLong(RELEASE, prefix, l.pool(), member(l.batchId(), l.customId()), Long.toString(notBefore));
  }

  @Override
  public boolean finish(LineResult r) {
    return write(r, false) == 1;
  }

  private long write(LineResult r, boolean onlyIfUnclaimed) {
    return runLong(FINISH, prefix, r.batchId(), r.customId(), encode(r), r.ok() ? "1" : "0",
        onlyIfUnclaimed ? "1" : "0");
  }

  @Override
  public int drop(String batchId, Function<QueuedLine, LineResult> make) {
    int dropped = 0;
    for (String json : redis.hvals(k("item:" + batchId))) {
      QueuedLine l = BatchJsonCodec.read(json, QueuedLine.class);
      if (write(make.apply(l), true) >= 0) {
        dropped++;
      }
    }
    return dropped;
  }

  @Override
  public long remaining(String batchId) {
    return redis.hlen(k("item:" + batchId));
  }

  @Override
  public RequestCounts counts(String batchId, int total) {
    List<KeyValue<String, String>> v = redis.hmget(k("batch:" + batchId), "completed", "failed");
    return new RequestCounts(total, v.get(0).getValueOrElse("0").transform(Integer::parseInt),
        v.get(1).getValueOrElse("0").transform(Integer::parseInt));
  }

  @Override
  public List<LineResult> results(String batchId) {
    List<LineResult> out = new ArrayList<>();
    for (Map.Entry<String, String> e : redis.hgetall(k("res:" + batchId)).entrySet()) {
      out.add(decode(batchId, e.getKey(), e.getValue()));
    }
    out.sort(Comparator.comparingInt(LineResult::line));
    return out;
  }

  @Override
  public QueueStats stats(String pool) {
    long depth = redis.zcard(k("enq:" + pool));
    var oldest = redis.zrangeWithScores(k("enq:" + pool), 0, 0);
    return new QueueStats(depth, oldest.isEmpty() ? 0 : (long) oldest.getFirst().getScore());
  }

  @Override
  public List<String> pools() {
    return new ArrayList<>(redis.smembers(k("pools")));
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  private static String member(String batchId, String customId) {
    return batchId + "\t" + customId;
  }

  private static String encode(LineResult r) {
    return (r.ok() ? "1" : "0") + "\t" + r.line() + "\t" + r.json();
  }

  private static LineResult decode(String batchId, String customId, String v) {
    int a = v.indexOf('\t');
    int b = v.indexOf('\t', a + 1);
    return new LineResult(batchId, customId, Integer.parseInt(v.substring(a + 1, b)), v.charAt(0) == '1',
        v.substring(b + 1));
  }
}
