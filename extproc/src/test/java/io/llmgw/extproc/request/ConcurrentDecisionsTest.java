package io.llmgw.extproc.request;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.ProfileSpec;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.pickers.MaxScorePicker;
import io.llmgw.picker.scorers.TokenLoadScorer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 3: decisions made at the same moment on different streams see each other. The pick and the request's
 * reservation of its pod's load are one step, so a burst of identical requests over identical idle pods lands evenly,
 * never two on a pod while another is empty.
 */
class ConcurrentDecisionsTest {
  static final int PODS = 4;
  static final int THREADS = 8;
  static final int ROUNDS = 500;

  static SchedulingConfig tokenLoadOnly() {
    return new SchedulingConfig("test",
        List.of(PluginSpec.of(TokenLoadScorer.TYPE), PluginSpec.of(MaxScorePicker.TYPE)),
        List.of(new ProfileSpec("default", List.of(ProfileSpec.Ref.to(TokenLoadScorer.TYPE, 1),
            ProfileSpec.Ref.to(MaxScorePicker.TYPE)))));
  }

  @Test
  void aBurstOfIdenticalRequestsDecidedAtOnceSpreadsEvenlyOverIdenticalPods() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (TestGateway g = new TestGateway(TestGateway.settings().withScheduling(tokenLoadOnly()), PODS,
        FileModeYaml.route("chat", "pool", "chat-lora", 5))) {
      g.allIdle(PODS, "chat-lora");
      for (int round = 0; round < ROUNDS; round++) {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<RequestContext>> decided = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          decided.add(pool.submit(() -> {
            RequestContext ctx = Contexts.arrived(g, "chat-lora");
            start.await(10, TimeUnit.SECONDS);
            assertThat(g.director().start(ctx)).isInstanceOf(Step.Forward.class);
            return ctx;
          }));
        }
        List<RequestContext> contexts = new ArrayList<>();
        for (Future<RequestContext> f : decided) {
          contexts.add(f.get(10, TimeUnit.SECONDS));
        }
        for (int pod = 1; pod <= PODS; pod++) {
          assertThat(g.datastore().inFlight().load(address(pod)).total()).as("round %d, pod %d", round, pod)
              .isEqualTo(THREADS / PODS);
        }
        contexts.forEach(ctx -> ctx.lease().release());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
