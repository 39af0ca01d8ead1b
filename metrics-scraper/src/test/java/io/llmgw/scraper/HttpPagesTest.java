package io.llmgw.scraper;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The scraper's HTTP/1.1 client against scripted pods: the answer shapes real servers send, and the broken ones. */
class HttpPagesTest {
  final HttpPages pages = new HttpPages(Duration.ofSeconds(5), 1 << 20);

  @AfterEach
  void close() {
    pages.close();
  }

  @Test
  void aChunkedAnswerIsReadWholeAndItsConnectionServesTheNextRequest() throws Exception {
    try (ServerSocket pod = pod("127.0.0.33"); var fetching = new Fetch(address(pod), "/metrics")) {
      try (Socket s = pod.accept()) {
        assertThat(readHead(s)).startsWith("GET /metrics HTTP/1.1").containsIgnoringCase("host: " + address(pod));
        write(s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
        assertThat(fetching.body()).isEqualTo("hello world");

        var second = new Fetch(address(pod), "/v1/models");
        assertThat(readHead(s)).as("asked on the same connection").startsWith("GET /v1/models HTTP/1.1");
        write(s, "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno");
        assertThat(second.status()).isEqualTo(404);
      }
    }
  }

  @Test
  void anAnswerWithoutALengthIsReadUntilThePodClosesAndTheNextRequestConnectsAgain() throws Exception {
    try (ServerSocket pod = pod("127.0.0.34"); var fetching = new Fetch(address(pod), "/metrics")) {
      try (Socket s = pod.accept()) {
        readHead(s);
        write(s, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end");
      }
      assertThat(fetching.body()).isEqualTo("until the end");
      var second = new Fetch(address(pod), "/metrics");
      try (Socket s = pod.accept()) {
        readHead(s);
        write(s, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nnew");
      }
      assertThat(second.body()).isEqualTo("new");
    }
  }

  @Test
  void aPodThatDropsAKeptAliveConnectionAsItIsReusedCostsNoScrape() throws Exception {
    try (ServerSocket pod = pod("127.0.0.35"); var first = new Fetch(address(pod), "/metrics")) {
      Socket kept = pod.accept();
      readHead(kept);
      write(kept, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst");
      assertThat(first.body()).isEqualTo("first");

      var second = new Fetch(address(pod), "/metrics");
      readHead(kept);
      kept.close(); // the request arrived as the pod gave the idle connection up: no answer on it
      try (Socket fresh = pod.accept()) {
        assertThat(readHead(fresh)).as("asked once more, on a new connection").startsWith("GET /metrics");
        write(fresh, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond");
      }
      assertThat(second.body()).isEqualTo("second");
    }
  }

  @Test
  void aBrokenChunkSizeFailsTheRequestAsNotHttp() throws Exception {
    try (ServerSocket pod = pod("127.0.0.36"); var fetching = new Fetch(address(pod), "/metrics")) {
      try (Socket s = pod.accept()) {
        readHead(s);
        write(s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz-not-hex\r\nhello\r\n0\r\n\r\n");
        assertThat(fetching.error()).hasMessageContaining("not an HTTP answer");
      }
    }
  }

  @Test
  void aHeaderSectionPastItsBoundFailsTheRequestInsteadOfGrowing() throws Exception {
    try (ServerSocket pod = pod("127.0.0.37"); var fetching = new Fetch(address(pod), "/metrics")) {
      try (Socket s = pod.accept()) {
        readHead(s);
        write(s, "HTTP/1.1 200 OK\r\nX-Padding: " + "x".repeat(64 << 10) + "\r\nContent-Length: 2\r\n\r\nok");
        assertThat(fetching.error()).hasMessageContaining("not an HTTP answer");
      }
    }
  }

  @Test
  void anAddressThatIsNotHostAndPortFailsAtOnce() throws Exception {
    try (var fetching = new Fetch("no-port-here", "/metrics")) {
      assertThat(fetching.error()).hasMessageContaining("not host:port");
    }
    try (var injecting = new Fetch("127.0.0.33:80\r\nX-Injected: yes", "/metrics")) {
      assertThat(injecting.error()).as("nothing but visible ASCII goes into a request's bytes")
          .hasMessageContaining("not host:port");
    }
  }

  private static ServerSocket pod(String ip) throws IOException {
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getByName(ip));
    s.setSoTimeout(5_000);
    return s;
  }

  private static String address(ServerSocket pod) {
    return pod.getInetAddress().getHostAddress() + ":" + pod.getLocalPort();
  }

  private static String readHead(Socket s) throws IOException {
    s.setSoTimeout(5_000);
    InputStream in = s.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed before a whole request head: " + head);
      }
      head.write(b);
      String text = head.toString(StandardCharsets.ISO_8859_1);
      if (text.endsWith("\r\n\r\n")) {
        return text;
      }
    }
  }

  private static void write(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
    s.getOutputStream().flush();
  }

  /** One GET in flight, its outcome awaited with a bound. */
  private final class Fetch implements AutoCloseable {
    final CompletableFuture<String> body = new CompletableFuture<>();
    volatile int status;

    Fetch(String address, String path) {
      pages.get(address, path, new HttpPages.Reader() {
        @Override
        public void page(int code, byte[] bytes, int length) {
          status = code;
          body.complete(new String(bytes, 0, length, StandardCharsets.UTF_8));
        }

        @Override
        public void failed(Throwable error) {
          body.completeExceptionally(error);
        }
      });
    }

    String body() throws Exception {
      return body.get(10, TimeUnit.SECONDS);
    }

    int status() throws Exception {
      body();
      return status;
    }

    Throwable error() throws Exception {
      try {
        body.get(10, TimeUnit.SECONDS);
        throw new AssertionError("expected the request to fail");
      } catch (ExecutionException e) {
        return e.getCause();
      }
    }

    @Override
    public void close() {
      body.cancel(false);
    }
  }
}
