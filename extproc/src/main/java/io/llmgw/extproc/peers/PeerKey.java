package io.llmgw.extproc.peers;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What replicas prove to each other before they exchange counts: a secret every replica reads from the same file
 * ({@code --peers-secret-file}), or, by an explicit opt-out for a network where every host that can reach the health
 * port is trusted ({@code --peers-insecure}), nothing.
 *
 * <p>With a secret, a watch request is a fresh 16-byte nonce and the time, signed (HMAC-SHA256); a replica serves only
 * a request signed with its secret, within a minute of its own clock and not seen before. Every message on that stream
 * is then signed over the watcher's nonce and its place in the stream, so whoever answers on a peer's address without
 * the secret is refused, and no message can be replayed into another stream or out of order. The prompt-block hashes
 * replicas route on are seeded from the secret too ({@link #prefixSeed}), so a hash seen by anyone without it cannot
 * confirm a guessed prompt.
 */
public final class PeerKey {
  /** No key given: a replica with peers must be given one, or be told it needs none. */
  public static final PeerKey NONE = new PeerKey(null, false);
  public static final PeerKey INSECURE = new PeerKey(null, true);
  static final int NONCE_BYTES = 16;
  static final int MAC_BYTES = 32;
  static final int MIN_SECRET_BYTES = 16;
  /** How far a watch request's time may be from this replica's clock. */
  static final long MAX_SKEW_MILLIS = 60_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] secret;
  private final SecretKeySpec macKey;
  private final boolean insecure;

  private PeerKey(byte[] secret, boolean insecure) {
    this.secret = secret;
    this.macKey = secret == null ? null : new SecretKeySpec(secret, "HmacSHA256");
    this.insecure = insecure;
  }

  /** The secret in {@code file}: its bytes, a trailing line break dropped; at least 16 of them. */
  public static PeerKey fromFile(Path file) throws IOException {
    byte[] read;
    try {
      read = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IOException(file + " cannot be read (" + e.getClass().getSimpleName() + ")");
    }
    return of(read, file.toString());
  }

  static PeerKey of(byte[] bytes, String where) throws IOException {
    int n = bytes.length;
    while (n > 0 && (bytes[n - 1] == '\n' || bytes[n - 1] == '\r')) {
      n--;
    }
    if (n < MIN_SECRET_BYTES) {
      throw new IOException(where + " holds " + n + " bytes; a shared secret needs at least " + MIN_SECRET_BYTES
          + " (e.g. head -c 32 /dev/urandom | base64)");
    }
    return new PeerKey(Arrays.copyOf(bytes, n), false);
  }

  /** For tests and the bench: a key from the secret's bytes. */
  public static PeerKey of(byte[] secret) {
    try {
      return of(secret, "the secret");
    } catch (IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** Whether peers may be watched and served at all: a secret, or the explicit opt-out. */
  public boolean given() {
    return secret != null || insecure;
  }

  /** Whether watch requests and messages are signed: a secret was given. */
  public boolean signs() {
    return secret != null;
  }

  static byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  /** A watch request: the nonce and the time, signed when there is a secret. */
  byte[] watchRequest(byte[] nonce, long nowMillis) {
    ByteBuffer b = ByteBuffer.allocate(NONCE_BYTES + 8 + (secret == null ? 0 : MAC_BYTES));
    b.put(nonce).putLong(nowMillis);
    if (secret != null) {
      b.put(mac("llmgw-peer-watch", b.array(), 0, NONCE_BYTES + 8, -1));
    }
    return b.array();
  }

  /**
   * The nonce of a watch request this replica may serve.
   *
   * @throws IOException naming why not (never echoing what was sent)
   */
  byte[] watcherNonce(byte[] request, long nowMillis) throws IOException {
    int signed = NONCE_BYTES + 8;
    if (request.length != signed + (secret == null ? 0 : MAC_BYTES)) {
      if (secret != null && request.length == signed) {
        throw new IOException("an unsigned watch request (this replica wants the shared secret)");
      }
      throw new IOException("a watch request of " + request.length + " bytes");
    }
    if (secret != null && !MessageDigest.isEqual(mac("llmgw-peer-watch", request, 0, signed, -1),
        Arrays.copyOfRange(request, signed, request.length))) {
      throw new IOException("a watch request not signed with this replica's shared secret");
    }
    long sent = ByteBuffer.wrap(request, NONCE_BYTES, 8).getLong();
    if (secret != null && Math.abs(nowMillis - sent) > MAX_SKEW_MILLIS) {
      throw new IOException("a watch request sent " + (nowMillis - sent) / 1000 + " s from this replica's clock");
    }
    return Arrays.copyOf(request, NONCE_BYTES);
  }

  /** A message for the watcher with {@code nonce}, the {@code seq}-th on its stream. */
  byte[] seal(byte[] nonce, long seq, byte[] payload) {
    if (secret == null) {
      return payload;
    }
    byte[] out = Arrays.copyOf(payload, payload.length + MAC_BYTES);
    System.arraycopy(mac("llmgw-peer-snapshot", nonceAndPayload(nonce, payload), 0, -1, seq), 0, out,
        payload.length, MAC_BYTES);
    return out;
  }

  /**
   * The payload of the {@code seq}-th message on the stream this replica opened with {@code nonce}.
   *
   * @throws IOException when it is not signed so: whoever answered does not hold the secret
   */
  byte[] open(byte[] nonce, long seq, byte[] message) throws IOException {
    if (secret == null) {
      return message;
    }
    if (message.length < MAC_BYTES) {
      throw new IOException("a message too short to be signed");
    }
    byte[] payload = Arrays.copyOf(message, message.length - MAC_BYTES);
    if (!MessageDigest.isEqual(mac("llmgw-peer-snapshot", nonceAndPayload(nonce, payload), 0, -1, seq),
        Arrays.copyOfRange(message, payload.length, message.length))) {
      throw new IOException("a message not signed with the shared secret (an impostor on the peer's address, or a "
          + "replica given another secret)");
    }
    return payload;
  }

  /** The seed of the prompt-block hashes: from the secret, or 0 (xxHash64's own) without one. */
  public long prefixSeed() {
    if (secret == null) {
      return 0;
    }
    byte[] label = "llmgw routed prefix key".getBytes(StandardCharsets.US_ASCII);
    return ByteBuffer.wrap(mac("llmgw-prefix-seed", label, 0, label.length, -1)).getLong();
  }

  private static byte[] nonceAndPayload(byte[] nonce, byte[] payload) {
    byte[] b = Arrays.copyOf(nonce, nonce.length + payload.length);
    System.arraycopy(payload, 0, b, nonce.length, payload.length);
    return b;
  }

  /** HMAC-SHA256 over the purpose, the sequence number (when not negative) and {@code data[from, to)}. */
  private byte[] mac(String purpose, byte[] data, int from, int to, long seq) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(macKey);
      m.update(purpose.getBytes(StandardCharsets.US_ASCII));
      m.update((byte) 0);
      if (seq >= 0) {
        m.update(ByteBuffer.allocate(8).putLong(seq).array());
      }
      m.update(data, from, (to < 0 ? data.length : to) - from);
      return m.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has HmacSHA256", e);
    }
  }

  /** Never the secret: settings may be logged. */
  @Override
  public String toString() {
    return secret != null ? "a shared secret" : insecure ? "none (insecure, by choice)" : "not given";
  }
}
