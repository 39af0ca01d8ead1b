package io.llmgw.batch.store;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.util.List;
import java.util.Optional;

/**
 * File content in Redis: one string per file ({@code pieces:<id>}), written with {@code SETRANGE} and read with
 * {@code GETRANGE} one {@link BatchStore#CONTENT_PIECE} at a time, as bytes (a piece may end inside a UTF-8 character)
 * on a connection of its own, so a download's reads do not queue behind the dispatcher's calls or hold them up.
 */
final class RedisPieces implements AutoCloseable {
  /** How long the pieces of a file nobody published (its writer died) are kept. */
  private static final long UNPUBLISHED_SECONDS = 86_400;

  private final StatefulRedisConnection<String, byte[]> connection;
  private final RedisCommands<String, byte[]> bytes;
  private final String prefix;

  RedisPieces(RedisClient client, String prefix) {
    this.connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
    this.bytes = connection.sync();
    this.prefix = prefix;
  }

  static String key(String prefix, String fileId) {
    return prefix + "pieces:" + fileId;
  }

  /** Writes a piece; the pieces of a file not yet published expire unless it is published within a day. */
  void put(String fileId, int index, byte[] piece, boolean published) {
    String key = key(prefix, fileId);
    bytes.setrange(key, (long) index * BatchStore.CONTENT_PIECE, piece);
    if (!published) {
      bytes.expire(key, UNPUBLISHED_SECONDS);
    }
  }

  Optional<byte[]> get(String fileId, int index) {
    long from = (long) index * BatchStore.CONTENT_PIECE;
    byte[] piece = bytes.getrange(key(prefix, fileId), from, from + BatchStore.CONTENT_PIECE - 1);
    return piece == null || piece.length == 0 ? Optional.empty() : Optional.of(piece);
  }

  /** Content an older version kept whole in the file's hash moves to its pieces key, once, when the store opens. */
  void moveWholeContent(List<String> fileIds) {
    for (String id : fileIds) {
      byte[] whole = bytes.hget(prefix + "file:" + id, "content");
      if (whole != null) {
        bytes.set(key(prefix, id), whole);
        bytes.hdel(prefix + "file:" + id, "content");
      }
    }
  }

  @Override
  public void close() {
    connection.close();
  }
}
