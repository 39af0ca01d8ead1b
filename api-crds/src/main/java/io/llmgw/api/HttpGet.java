package io.llmgw.api;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;

/**
 * One bounded GET with the JDK's plain URL connection, for the gateway's own small status reads ({@code llmgw status},
 * the status page's batch section): {@code HttpClient} took a quarter of a second to start, half of what
 * a status call may take.
 *
 * @param timeout for the connection and again for the answer
 * @param maxBytes the body is cut here: a larger answer is not one these callers read
 */
public record HttpGet(Duration timeout, int maxBytes) {
  /** One answer: its status and (for an error status too) its body. */
  public record Answer(int status, String body) {}

  /**
   * @param tls for an https URL, the context to verify the server with; null for the JDK's default
   * @param authorization the Authorization header's value, or null for none
   */
  public Answer get(String url, SSLContext tls, String authorization) throws IOException {
    HttpURLConnection c;
    try {
      c = (HttpURLConnection) URI.create(url).toURL().openConnection();
    } catch (IllegalArgumentException e) {
      throw new IOException("not an address: " + url, e);
    }
    try {
      if (tls != null && c instanceof HttpsURLConnection https) {
        https.setSSLSocketFactory(tls.getSocketFactory());
      }
      c.setConnectTimeout((int) timeout.toMillis());
      c.setReadTimeout((int) timeout.toMillis());
      if (authorization != null) {
        c.setRequestProperty("Authorization", authorization);
      }
      int status = c.getResponseCode();
      try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
        return new Answer(status, in == null ? "" : new String(in.readNBytes(maxBytes), StandardCharsets.UTF_8));
      }
    } finally {
      c.disconnect();
    }
  }
}
