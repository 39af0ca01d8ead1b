package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.api.LoopbackPorts;
import io.llmgw.bench.faults.EppChild;
import io.llmgw.bench.faults.SteadyLoad;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.FailureMode;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two EPP replicas, each a JVM of its own, behind the dev proxy under steady load (half the clients streaming): a
 * rolling restart by SIGTERM loses nothing at all, and a SIGKILL loses no request whose response had not started.
 */
class EppReplicasTest {
  @TempDir
  Path dir;
  private SimPods pods;
  private Path config;
  private final int[] ports = new int[2];
  private final Process[] epps = new Process[2];

  @BeforeEach
  void start() throws Exception {
    pods = SimPods.start(SimConfig.builder().adapters(List.of()).loras(1, 1).decode(10, 0.2).seed(5).build(),
        List.of("127.0.0.195", "127.0.0.196"), 8000);
    config = Rig.writeConfig(dir.resolve("pool.yaml"), pods, List.of(SimConfig.DEFAULT_MODEL));
    for (int i = 0; i < 2; i++) {
      ports[i] = LoopbackPorts.free();
      epps[i] = startEpp(i);
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (Process p : epps) {
      if (p != null) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    pods.close();
  }

  private Process startEpp(int i) throws Exception {
    return EppChild.start(config, ports[i], Duration.ofMillis(800), Duration.ofSeconds(20),
        dir.resolve("epp-" + i + "-" + System.nanoTime() + ".log"), List.of());
  }

  private ProxySettings proxy() {
    return ProxySettings.defaults().withListener("127.0.0.1", 0)
        .withEpps(List.of("127.0.0.1:" + ports[0], "127.0.0.1:" + ports[1]));
  }

  /** Bounded at 30 s: a restarted replica is a new JVM, which on two busy cores took longer than 10 s once. */
  private static void awaitBothInRotation(DevProxy proxy) {
    await().atMost(Duration.ofSeconds(30)).until(() -> proxy.eppsInRotation().size() == 2);
  }

  /** Waits (bounded) until {@code n} more requests have completed. */
  private static void awaitMore(SteadyLoad load, int n) {
    int before = load.results().size();
    await().atMost(Duration.ofSeconds(30)).until(() -> load.results().size() >= before + n);
  }

  @Test
  void aRollingRestartOfBothReplicasBySigtermLosesNoRequest() throws Exception {
    try (DevProxy proxy = DevProxy.start(proxy())) {
      awaitBothInRotation(proxy);
      SteadyLoad load = new SteadyLoad(proxy.port(), SimConfig.DEFAULT_MODEL, 8, 5_000);
      try {
        awaitMore(load, 20);
        for (int i = 0; i < 2; i++) {
          epps[i].destroy(); // SIGTERM: readiness off, streams still taken for the drain, then the open ones finish
          assertThat(epps[i].waitFor(60, TimeUnit.SECONDS)).isTrue();
          awaitMore(load, 20); // served by the other replica alone
          epps[i] = startEpp(i);
          awaitBothInRotation(proxy);
          awaitMore(load, 20);
        }
      } finally {
        load.close();
      }
      List<SteadyLoad.Result> all = load.results();
      assertThat(all).hasSizeGreaterThan(100);
      assertThat(all).as("requests that failed in a rolling restart")
          .filteredOn(r -> r.outcome() != SteadyLoad.Outcome.OK).isEmpty();
    }
  }

  @Test
  void aSigkilledReplicaLosesNoRequestWhoseResponseHadNotStarted() throws Exception {
    // the route fails open once the EPP has picked: the pick stands and the response goes on without the EPP
    try (DevProxy proxy = DevProxy.start(proxy().withFailure(FailureMode.openFor(List.of("/v1/"),
        pods.podAddresses())))) {
      awaitBothInRotation(proxy);
      SteadyLoad load = new SteadyLoad(proxy.port(), SimConfig.DEFAULT_MODEL, 8, 5_000);
      long killedAt;
      try {
        awaitMore(load, 40);
        killedAt = System.nanoTime();
        epps[0].destroyForcibly(); // SIGKILL
        assertThat(epps[0].waitFor(30, TimeUnit.SECONDS)).isTrue();
        awaitMore(load, 60);
      } finally {
        load.close();
      }
      List<SteadyLoad.Result> all = load.results();
      assertThat(all).as("requests failed before any of their response reached the client")
          .filteredOn(SteadyLoad.Result::retriable).isEmpty();
      assertThat(all).as("requests started after the kill that did not complete")
          .filteredOn(r -> r.startNanos() > killedAt && r.outcome() != SteadyLoad.Outcome.OK).isEmpty();
      // a response is under way once its status reached the client: a stream's, or a plain answer's whose body was
      // still passing through the EPP when it died (a window of a frame, but it happens under load)
      assertThat(all).as("only responses already under way can be cut, and only by the kill")
          .filteredOn(r -> r.outcome() == SteadyLoad.Outcome.CUT)
          .allMatch(r -> r.status() == 200 && r.startNanos() < killedAt);
      assertThat(proxy.eppsInRotation()).containsExactly("127.0.0.1:" + ports[1]);
      assertThat(Files.readString(config)).contains("InferencePool");
    }
  }
}
