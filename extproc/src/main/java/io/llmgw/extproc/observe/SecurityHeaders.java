package io.llmgw.extproc.observe;

import com.sun.net.httpserver.Headers;
import io.llmgw.api.BrowserHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What every answer of the metrics/admin port says to a browser ({@link BrowserHeaders}). The status page alone may run its own inline script and style, named by their hashes
 * (no {@code 'unsafe-inline'}), and read this port's JSON.
 */
final class SecurityHeaders {
  private SecurityHeaders() {}

  static void apply(Headers h) {
    BrowserHeaders.apply(h::set);
  }

  /** The status page's policy: its inline scripts and styles by hash, data from this origin only. */
  static String forPage(String html) {
    return "default-src 'none'; script-src " + hashes(html, "script") + "; style-src " + hashes(html, "style")
        + "; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
  }

  private static String hashes(String html, String tag) {
    Matcher m = Pattern.compile("<" + tag + ">(.*?)</" + tag + ">", Pattern.DOTALL).matcher(html);
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add("'sha256-" + sha256(m.group(1)) + "'");
    }
    return out.isEmpty() ? "'none'" : String.join(" ", out);
  }

  private static String sha256(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
