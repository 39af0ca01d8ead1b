package io.llmgw.extproc.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.picker.Ticker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Issue 32, item 6: the batch section's data, read from the batch service's address, garbage included. */
class BatchStatusReaderTest {
  final AtomicReference<String> body = new AtomicReference<>("[]");
  final AtomicInteger reads = new AtomicInteger();
  final AtomicLong nanos = new AtomicLong();
  final Ticker ticker = nanos::get;
  HttpServer server;
  String address;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/admin/batch/status", ex -> {
      reads.incrementAndGet();
      byte[] bytes = body.get().getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, bytes.length);
      ex.getResponseBody().write(bytes);
      ex.close();
    });
    server.start();
    address = "127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void theServicesListIsPassedOnAndReadAtMostOnceASecond() {
    body.set("[{\"pool\":\"default/pool\",\"depth\":3}]");
    BatchStatusReader reader = new BatchStatusReader(address, ticker);
    assertThat(reader.read()).containsEntry("address", address).containsKey("pools").doesNotContainKey("error");
    assertThat(reader.read().get("pools").toString()).contains("default/pool");
    nanos.addAndGet(999_000_000L);
    reader.read();
    assertThat(reads.get()).isEqualTo(1);
    nanos.addAndGet(1_000_000L);
    reader.read();
    assertThat(reads.get()).isEqualTo(2);
  }

  @Test
  void anAnswerThatIsNotTheServicesListIsAnErrorNeverPassedOn() {
    for (String garbage : new String[] {"{\"pools\": 1}", "<html>a dashboard</html>", "", "[unclosed"}) {
      body.set(garbage);
      var answer = new BatchStatusReader(address, ticker).read();
      assertThat(answer).as(garbage).containsKey("error").doesNotContainKey("pools");
    }
  }

  @Test
  void noAddressIsAnEmptyAnswerAndNobodyListeningIsAnErrorNamingTheAddress() throws Exception {
    assertThat(new BatchStatusReader(null, ticker).read()).isEmpty();
    String closed = "127.0.0.1:" + LoopbackPorts.free();
    assertThat(new BatchStatusReader(closed, ticker).read().get("error").toString())
        .startsWith("no batch service answered at " + closed);
  }
}
