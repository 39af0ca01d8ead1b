package io.llmgw.batch.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.batch.BatchService;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.store.SqliteStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 47: clients that never finish. A multipart body without its closing boundary is answered 400, one that stops
 * sending 408 within the idle deadline, one whose client goes away is dropped, and none leaves a piece in the store or
 * a file handle open; connections that trickle their headers are closed at the header deadline.
 */
class HostileClientsTest {
  static final String BOUNDARY = "hostile-boundary";
  @TempDir
  Path dir;
  FakeGateway gateway;
  BatchService service;

  @BeforeEach
  void start() throws Exception {
    gateway = new FakeGateway();
    BatchSettings settings = BatchSettings.defaults().withListener("127.0.0.1", 0)
        .withGateway(gateway.admin(), gateway.frontDoor());
    settings = settings.withLimits(settings.limits().withDeadlines(Duration.ofSeconds(1), Duration.ofSeconds(1),
        Duration.ofSeconds(30)));
    service = BatchService.start(settings, SqliteStore.open(dir.resolve("batch.db")), Clock.systemUTC(), false);
  }

  @AfterEach
  void stop() throws Exception {
    service.close();
    gateway.close();
  }

  /** The file's part opened, some of its content, and then no closing delimiter. */
  static byte[] truncated(int contentBytes) {
    return ("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--" + BOUNDARY
        + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jsonl\"\r\n\r\n" + "{}\n".repeat(
            contentBytes / 3))
        .getBytes(StandardCharsets.UTF_8);
  }

  static String head(long contentLength) {
    return "POST /v1/files HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=" + BOUNDARY
        + "\r\nContent-Length: " + contentLength + "\r\n\r\n";
  }

  /** Sends the request and reads the answer's status line (or what the server did instead). */
  String exchange(String head, byte[] body, boolean closeAfterSending) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", service.port()), 5_000);
      s.setSoTimeout(20_000);
      OutputStream out = s.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      if (closeAfterSending) {
        return "closed by the client";
      }
      byte[] answer = s.getInputStream().readNBytes(12);
      return new String(answer, StandardCharsets.US_ASCII);
    }
  }

  long pieces() throws Exception {
    try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("batch.db"));
        ResultSet r = db.createStatement().executeQuery("SELECT COUNT(*) FROM file_pieces")) {
      return r.next() ? r.getLong(1) : -1;
    }
  }

  static long openFiles() throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }

  @Test
  void truncatedUploadsAreAnsweredAndLeaveNothingBehind() throws Exception {
    long filesBefore = openFiles();
    ExecutorService clients = Executors.newFixedThreadPool(8); // as many as it reads at once: more would be 503
    List<Future<String>> answers = new ArrayList<>();
    for (int i = 0; i < 200; i++) { // bounded: 200 uploads, each of about 2 MiB, a third of each kind
      int kind = i % 3;
      byte[] body = truncated(2 << 20);
      answers.add(clients.submit(() -> switch (kind) {
        case 0 -> exchange(head(body.length), body, false); // the body ends, its closing delimiter never came
        case 1 -> exchange(head(body.length + 1_000), body, false); // the client stops sending and waits
        default -> exchange(head(body.length + 1_000), body, true); // the client goes away mid-body
      }));
    }
    for (int i = 0; i < answers.size(); i++) {
      String answer = answers.get(i).get();
      switch (i % 3) {
        case 0 -> assertThat(answer).isEqualTo("HTTP/1.1 400");
        case 1 -> assertThat(answer).isEqualTo("HTTP/1.1 408");
        default -> assertThat(answer).isEqualTo("closed by the client");
      }
    }
    clients.shutdown();
    await().atMost(Duration.ofSeconds(20)).until(() -> pieces() == 0);
    assertThat(service.store().files()).isEmpty();
    await().atMost(Duration.ofSeconds(20)).until(() -> openFiles() <= filesBefore + 5);
  }

  @Test
  void connectionsThatTrickleTheirHeadersAreClosedAtTheDeadline() throws Exception {
    long filesBefore = openFiles();
    List<Socket> slow = new ArrayList<>();
    try {
      for (int i = 0; i < 200; i++) { // bounded: 200 connections that send a header line and then a byte at a time
        Socket s = new Socket("127.0.0.1", service.port());
        s.getOutputStream().write("POST /v1/files HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes());
        slow.add(s);
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      int closed = 0;
      for (int round = 0; round < 100 && closed < slow.size() && System.nanoTime() < deadline; round++) {
        closed = 0;
        for (Socket s : slow) {
          if (trickle(s)) {
            closed++;
          }
        }
      }
      assertThat(closed).as("connections the server closed").isEqualTo(slow.size());
    } finally {
      for (Socket s : slow) {
        s.close();
      }
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> openFiles() <= filesBefore + 5);
    ApiClient.Reply ok = new ApiClient(service.port()).get("/ready");
    assertThat(ok.status()).as("and the service still answers").isEqualTo(200);
  }

  /** curl asks before it sends a large body (Expect: 100-continue) and waits a second unless told to go on. */
  @Test
  void anUploadThatAsksBeforeSendingIsToldToGoOn() throws Exception {
    byte[] body = ("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--"
        + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jsonl\"\r\n\r\n{}\n\r\n--"
        + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8);
    try (Socket s = new Socket("127.0.0.1", service.port())) {
      s.setSoTimeout(5_000);
      s.getOutputStream().write((head(body.length).replace("\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n"))
          .getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      assertThat(new String(in.readNBytes(25), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
      s.getOutputStream().write(body);
      assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
    }
    assertThat(service.store().files()).singleElement().satisfies(f -> assertThat(f.bytes()).isEqualTo(3));
  }

  /** Sends one more byte of a header; true once the server has closed the connection. */
  static boolean trickle(Socket s) {
    try {
      s.setSoTimeout(50);
      InputStream in = s.getInputStream();
      try {
        if (in.read() < 0) {
          return true;
        }
      } catch (java.net.SocketTimeoutException stillOpen) {
        // nothing from the server yet
      }
      s.getOutputStream().write('a');
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
