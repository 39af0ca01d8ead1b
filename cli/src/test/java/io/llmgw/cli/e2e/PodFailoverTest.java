package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.http.SimServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A pod dies while requests run on it and arrive for it. Non-streamed requests whose pod dies before the response
 * started are retried down the EPP's fallback list, so none is lost.
 */
class PodFailoverTest {
  @Test
  void killingAPodMidRunLosesNoNonStreamedRequest() throws Exception {
    try (Rig rig = Gateways.start("127.0.0.131", 3, true)) {
      OpenAIClient client = Gateways.client(rig.proxyPort());
      ExecutorService callers = Executors.newFixedThreadPool(16);
      AtomicInteger started = new AtomicInteger();
      List<Future<String>> calls = new ArrayList<>();
      try {
        for (int i = 0; i < 90; i++) {
          String model = i % 2 == 0 ? "sql-lora" : "chat-lora";
          calls.add(callers.submit(() -> {
            started.incrementAndGet();
            return client.chat().completions().create(ChatCompletionCreateParams.builder().model(model)
                .addUserMessage("hello").maxCompletionTokens(20).build()).model();
          }));
        }
        SimServer victim = await().atMost(Duration.ofSeconds(30)).until(() -> started.get() >= 30
            ? rig.pods().pods().stream().filter(p -> p.engine().runningCount() > 0).findFirst().orElse(null)
            : null, java.util.Objects::nonNull);
        int runningOnVictim = victim.engine().runningCount();
        rig.pods().kill(victim);
        int lost = 0;
        for (Future<String> f : calls) {
          try {
            assertThat(f.get(60, TimeUnit.SECONDS)).isIn("sql-lora", "chat-lora");
          } catch (java.util.concurrent.ExecutionException e) {
            lost++;
          }
        }
        assertThat(runningOnVictim).as("the pod died with requests running").isPositive();
        assertThat(lost).as("non-streamed requests lost when a pod died").isZero();
        long admitted = rig.pods().pods().stream().mapToLong(p -> p.engine().metrics().admitted()).sum();
        assertThat(admitted).as("the dead pod's requests ran again on a fallback").isGreaterThan(calls.size());
        assertThat(rig.epp().datastore().inFlight().load(victim.address()).total())
            .as("nothing stays in flight on the dead pod").isZero();
      } finally {
        callers.shutdownNow();
        client.close();
      }
    }
  }

  @Test
  void aStreamCutByADyingPodEndsInAnErrorNotASilentlyShortAnswer() throws Exception {
    try (Rig rig = Gateways.start("127.0.0.135", 2, true)) {
      OpenAIClient client = Gateways.client(rig.proxyPort());
      try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(
          ChatCompletionCreateParams.builder().model("sql-lora").addUserMessage("tell me everything")
              .maxCompletionTokens(3000).build())) {
        Iterator<ChatCompletionChunk> chunks = stream.stream().iterator();
        assertThat(chunks.hasNext()).isTrue();
        chunks.next();
        SimServer serving = rig.pods().pods().stream().filter(p -> p.engine().runningCount() > 0).findFirst()
            .orElseThrow();
        rig.pods().kill(serving);
        assertThatThrownBy(() -> chunks.forEachRemaining(c -> {}))
            .as("the client learns the answer is incomplete").isInstanceOf(RuntimeException.class);
      } finally {
        client.close();
      }
      await().atMost(Duration.ofSeconds(10))
          .until(() -> rig.epp().datastore().inFlight().load(rig.pods().pods().getFirst().address()).total() == 0
              && rig.epp().datastore().inFlight().load(rig.pods().pods().getLast().address()).total() == 0);
    }
  }
}
