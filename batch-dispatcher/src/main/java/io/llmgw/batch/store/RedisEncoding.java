package io.llmgw.batch.store;

/**
 * How the Redis store writes a queued line's member (batch and custom id) and a result (ok flag, line number and the
 * output line) as strings. A batch id, a flag and a number never hold a tab, so the first tabs split them from what
 * follows (a custom id or an output line, which may hold one).
 */
final class RedisEncoding {
  private RedisEncoding() {}

  static String member(String batchId, String customId) {
    return batchId + "\t" + customId;
  }

  static String encode(LineResult r) {
    return (r.ok() ? "1" : "0") + "\t" + r.line() + "\t" + r.json();
  }

  static LineResult decode(String batchId, String customId, String v) {
    int a = v.indexOf('\t');
    int b = v.indexOf('\t', a + 1);
    return new LineResult(batchId, customId, Integer.parseInt(v.substring(a + 1, b)), v.charAt(0) == '1',
        v.substring(b + 1));
  }
}
