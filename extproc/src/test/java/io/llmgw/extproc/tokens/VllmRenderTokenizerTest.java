package io.llmgw.extproc.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 48: the vLLM render server as llm-d's token-producer asks it, here against a server on 127.0.0.1 that answers
 * as told: the ids of its answer (chat: an object, completions: a list), the model put in the body, and for every
 * hostile answer (an error status, garbage, an endless body, silence, too many at once) null within the time limit.
 */
class VllmRenderTokenizerTest {
  HttpServer server;
  volatile String answer = "{\"token_ids\":[1,2,3]}";
  volatile int status = 200;
  volatile CountDownLatch hold = new CountDownLatch(0);
  final List<String> seen = new CopyOnWriteArrayList<>();
  VllmRenderTokenizer tokenizer;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.createContext("/", this::handle);
    server.start();
    tokenizer = new VllmRenderTokenizer(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
        "base-model", Duration.ofMillis(500), 2);
  }

  @AfterEach
  void stop() {
    hold.countDown();
    tokenizer.close();
    server.stop(0);
  }

  private void handle(HttpExchange ex) throws IOException {
    seen.add(ex.getRequestURI().getPath() + " " + new String(ex.getRequestBody().readAllBytes(),
        StandardCharsets.UTF_8));
    try {
      hold.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    byte[] body = answer.getBytes(StandardCharsets.UTF_8);
    if (answer.equals("endless")) {
      ex.sendResponseHeaders(200, 0);
      try (OutputStream out = ex.getResponseBody()) {
        byte[] chunk = new byte[1 << 16];
        for (int i = 0; i < (VllmRenderTokenizer.MAX_ANSWER_BYTES >> 16) + 8; i++) {
          out.write(chunk);
        }
      } catch (IOException closedByTheClient) {
        // expected: the client gives up past its limit
      }
      return;
    }
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  private int[] render(boolean chat, String body) throws Exception {
    return tokenizer.render(chat, ByteString.copyFromUtf8(body)).get(5, TimeUnit.SECONDS);
  }

  @Test
  void chatAndCompletionsGoToTheirRenderEndpointsWithTheBodyAsGiven() throws Exception {
    assertThat(render(true, "{\"model\":\"base-model\",\"messages\":[]}")).containsExactly(1, 2, 3);
    answer = "[{\"token_ids\":[7,8],\"prompt\":\"x\"}]";
    assertThat(render(false, "{\"model\":\"base-model\",\"prompt\":\"x\"}")).containsExactly(7, 8);
    assertThat(seen).containsExactly("/v1/chat/completions/render {\"model\":\"base-model\",\"messages\":[]}",
        "/v1/completions/render {\"model\":\"base-model\",\"prompt\":\"x\"}");
    answer = "{\"request_id\":\"r\",\"features\":{\"a\":[1]},\"token_ids\":[]}";
    assertThat(render(true, "{}")).as("other fields skipped; no ids is an answer").isEmpty();
  }

  @Test
  void everyHostileAnswerIsNullInTime() throws Exception {
    String[] garbage = {"not json", "{\"token_ids\":[1,\"two\"]}", "{\"token_ids\":[-1]}",
        "{\"token_ids\":[99999999999]}", "{\"token_ids\":{}}", "{\"ids\":[1]}", "[{\"token_ids\":[1]}]", "",
        "{\"token_ids\":[1,2"};
    for (String g : garbage) {
      answer = g;
      assertThat(render(true, "{}")).as(g).isNull();
    }
    answer = "{\"token_ids\":[1]}";
    status = 500;
    assertThat(render(true, "{}")).as("an error status").isNull();
    status = 200;
    answer = "endless";
    assertThat(render(true, "{}")).as("an answer past the limit").isNull();
  }

  @Test
  void aSilentServerCostsTheTimeLimitAndBeyondTheInFlightLimitARequestIsNotSentAtAll() throws Exception {
    hold = new CountDownLatch(1);
    long t0 = System.nanoTime();
    var first = tokenizer.render(true, ByteString.copyFromUtf8("{}"));
    var second = tokenizer.render(true, ByteString.copyFromUtf8("{}"));
    assertThat(tokenizer.render(true, ByteString.copyFromUtf8("{}")).getNow(new int[] {42}))
        .as("a third at once, over the limit of 2: answered at once").isNull();
    assertThat(first.get(5, TimeUnit.SECONDS)).isNull();
    assertThat(second.get(5, TimeUnit.SECONDS)).isNull();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
    hold.countDown();
    answer = "{\"token_ids\":[5]}";
    assertThat(render(true, "{}")).as("permits come back after a timeout").containsExactly(5);
  }

  @Test
  void nothingIsTokenizedInProcess() {
    assertThat(tokenizer.tokenIds("\"hello\"".getBytes(StandardCharsets.UTF_8), true)).isNull();
    assertThat(tokenizer.name()).startsWith("vllm:http://127.0.0.1:");
    assertThat(tokenizer.modelName()).isEqualTo("base-model");
  }
}
