package io.llmgw.batch.store;

import io.lettuce.core.KeyValue;
import io.lettuce.core.Limit;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
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

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final RedisPieces pieces;
  private final String prefix;
  private final Map<String, String> shas = new HashMap<>();
  private volatile String writeFailure;

  private RedisStore(RedisClient client, StatefulRedisConnection<String, String> connection, String prefix) {
    this.client = client;
    this.connection = connection;
    this.redis = connection.sync();
    this.pieces = new RedisPieces(client, prefix);
    this.prefix = prefix;
  }

  /** Connects to {@code uri} (redis://host:port[/db]); keys start with {@code prefix}. */
  public static RedisStore connect(String uri, String prefix, Duration timeout) {
    RedisURI u = RedisURI.create(uri);
    u.setTimeout(timeout);
    RedisClient client = RedisClient.create(u);
    try {
      RedisStore store = new RedisStore(client, client.connect(), prefix);
      store.pieces.moveWholeContent(store.redis.zrange(store.k("files"), 0, -1));
      return store;
    } catch (RuntimeException e) {
      client.shutdown();
      throw new IllegalStateException("cannot reach the batch store at " + u.getHost() + ":" + u.getPort() + ": "
          + e.getMessage(), e);
    }
  }

  private String k(String suffix) {
    return prefix + suffix;
  }

  /** Runs a script; every script writes, so its failure or success is what {@link #writeFailure} reports. */
  private Object run(String script, ScriptOutputType type, String[] keys, String... args) {
    String sha;
    synchronized (shas) {
      sha = shas.computeIfAbsent(script, s -> redis.digest(s));
    }
    try {
      Object out;
      try {
        out = redis.evalsha(sha, type, keys, args);
      } catch (RedisNoScriptException e) {
        out = redis.eval(script, type, keys, args); // Redis restarted and forgot its scripts
      }
      writeFailure = null;
      return out;
    } catch (RedisException e) {
      writeFailure = e.getMessage(); // out of memory (maxmemory), MISCONF (its disk), a replica, or unreachable
      throw e;
    }
  }

  @Override
  public String writeFailure() {
    return writeFailure;
  }

  /** Writes one small key: fails while Redis refuses writes or cannot be reached. */
  @Override
  public void probeWrite() {
    try {
      redis.set(k("write-probe"), Long.toString(System.currentTimeMillis()));
      writeFailure = null;
    } catch (RedisException e) {
      writeFailure = e.getMessage();
      throw e;
    }
  }

  private long runLong(String script, String... args) {
    return (Long) run(script, ScriptOutputType.INTEGER, new String[0], args);
  }

  @Override
  public void putPiece(String fileId, int index, byte[] piece) {
    pieces.put(fileId, index, piece, redis.exists(k("file:" + fileId)) == 1);
  }

  @Override
  public boolean putFile(StoredFile f) {
    return (Long) run(RedisScripts.PUT_FILE, ScriptOutputType.INTEGER, new String[] {k("file:" + f.id()), k("files"),
        RedisPieces.key(prefix, f.id())}, f.purpose(), f.filename(), Long.toString(f.bytes()),
        Long.toString(f.createdAt()),
        f.id(), f.owner()) == 1;
  }

  @Override
  public Optional<StoredFile> file(String id) {
    List<KeyValue<String, String>> v = redis.hmget(k("file:" + id), "purpose", "filename", "bytes",
        "created_at", "owner");
    if (!v.getFirst().hasValue()) {
      return Optional.empty();
    }
    return Optional.of(new StoredFile(id, v.get(0).getValue(), v.get(1).getValue(), Long.parseLong(v.get(2).getValue()),
        Long.parseLong(v.get(3).getValue()), v.get(4).getValueOrElse("")));
  }

  @Override
  public Optional<byte[]> piece(String id, int index) {
    return pieces.get(id, index);
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
    redis.del(RedisPieces.key(prefix, id));
    return redis.del(k("file:" + id)) == 1;
  }

  @Override
  public void deleteBatch(String id) {
    run(RedisScripts.DELETE_BATCH, ScriptOutputType.INTEGER,
        new String[] {k("batch:" + id), k("res:" + id), k("item:" + id),
            k("attempts:" + id), k("batches")},
        prefix, id);
  }

  @Override
  public void createBatch(Batch b) {
    run(RedisScripts.CREATE, ScriptOutputType.INTEGER, new String[] {k("batch:" + b.id()), k("batch-seq"), k("batches"),
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
    return (Long) run(RedisScripts.TRANSITION, ScriptOutputType.INTEGER,
        new String[] {k("batch:" + id), k("status:" + from.name()),
            k("status:" + next.status().name())},
        from.name(), next.status().name(), BatchJsonCodec.write(next), id) == 1;
  }

  @Override
  public void enqueue(List<QueuedLine> lines, long nowMillis) {
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
        runLong(RedisScripts.ENQUEUE, args.toArray(String[]::new));
      }
    }
  }

  @Override
  public boolean accept(Batch next, List<LineResult> known, long nowMillis) {
    // the lines are queued first: a crash before this leaves the batch validating, and validating again queues nothing
    // twice
    for (LineResult r : known) {
      write(r, false);
    }
    return transition(next.id(), BatchStatus.VALIDATING, next);
  }

  @Override
  public List<Claim> claim(String pool, int max, long maxChars, String owner, long now, long visibilityMillis) {
    if (max <= 0) {
      return List.of();
    }
    long minScore = (Math.floorDiv(now, 1000) + 1) * SCORE_PER_SECOND;
    @SuppressWarnings("unchecked")
    List<Object> raw = (List<Object>) run(RedisScripts.CLAIM, ScriptOutputType.MULTI, new String[0], prefix, pool,
        Long.toString(now), Long.toString(minScore), Integer.toString(max), Long.toString(now + visibilityMillis),
        Long.toString(Math.min(maxChars, 1L << 50)));
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
          RedisEncoding.member(l.batchId(), l.customId()));
    }
  }

  @Override
  public void release(QueuedLine l, long notBefore, boolean refundAttempt) {
    runLong(RedisScripts.RELEASE, prefix, l.pool(), RedisEncoding.member(l.batchId(), l.customId()),
        Long.toString(notBefore),
        refundAttempt ? "1" : "0", l.batchId(), l.customId());
  }

  @Override
  public boolean finish(LineResult r) {
    return write(r, false) == 1;
  }

  private long write(LineResult r, boolean onlyIfUnclaimed) {
    return runLong(RedisScripts.FINISH, prefix, r.batchId(), r.customId(), RedisEncoding.encode(r), r.ok() ? "1" : "0",
        onlyIfUnclaimed ? "1" : "0", Long.toString(r.inputTokens()), Long.toString(r.outputTokens()));
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
    List<KeyValue<String, String>> v = redis.hmget(k("batch:" + batchId), "completed", "failed", "input_tokens",
        "output_tokens");
    return new RequestCounts(total, v.get(0).getValueOrElse("0").transform(Integer::parseInt),
        v.get(1).getValueOrElse("0").transform(Integer::parseInt),
        v.get(2).getValueOrElse("0").transform(Long::parseLong),
        v.get(3).getValueOrElse("0").transform(Long::parseLong));
  }

  @Override
  public void eachResult(String batchId, Consumer<List<LineResult>> page) {
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      MapScanCursor<String, String> next = redis.hscan(k("res:" + batchId), cursor, ScanArgs.Builder.limit(256));
      List<LineResult> out = new ArrayList<>();
      next.getMap().forEach((customId, v) -> out.add(RedisEncoding.decode(batchId, customId, v)));
      if (!out.isEmpty()) {
        page.accept(out);
      }
      cursor = next;
    } while (!cursor.isFinished());
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
    pieces.close();
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
