package io.llmgw.extproc.observe;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Who may use the metrics/admin port. Calls that change something ({@code POST /admin/...}) need the write token and
 * are refused while none is configured; reads ({@code /metrics}, {@code GET /admin/...}) need the read token (or the
 * write token) when one is configured, and are open otherwise. Tokens come from files ({@code TokenFile}) and are
 * compared in constant time; they never appear in a log line or an answer.
 */
public final class AdminAccess {
  private static final String BEARER = "Bearer ";

  private final byte[] writeToken;
  private final byte[] readToken;

  private AdminAccess(String writeToken, String readToken) {
    this.writeToken = writeToken == null ? null : writeToken.getBytes(StandardCharsets.UTF_8);
    this.readToken = readToken == null ? null : readToken.getBytes(StandardCharsets.UTF_8);
  }

  /** Reads open, writes off: what an EPP started without token files allows. */
  public static AdminAccess readOnly() {
    return new AdminAccess(null, null);
  }

  public static AdminAccess of(String writeToken, String readToken) {
    return new AdminAccess(writeToken, readToken);
  }

  public boolean readsProtected() {
    return readToken != null;
  }

  /** What a call with this {@code Authorization} header may do. */
  public enum Verdict {
    ALLOWED, UNAUTHENTICATED, DISABLED
  }

  public Verdict write(String authorization) {
    if (writeToken == null) {
      return Verdict.DISABLED;
    }
    return matches(authorization, writeToken) ? Verdict.ALLOWED : Verdict.UNAUTHENTICATED;
  }

  public Verdict read(String authorization) {
    if (readToken == null) {
      return Verdict.ALLOWED;
    }
    return matches(authorization, readToken) || (writeToken != null && matches(authorization, writeToken))
        ? Verdict.ALLOWED : Verdict.UNAUTHENTICATED;
  }

  private static boolean matches(String authorization, byte[] token) {
    if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return false;
    }
    byte[] given = authorization.substring(BEARER.length()).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(given, token);
  }

  @Override
  public String toString() {
    return "AdminAccess[writes " + (writeToken == null ? "off" : "need a token") + ", reads "
        + (readToken == null ? "open" : "need a token") + "]";
  }
}
