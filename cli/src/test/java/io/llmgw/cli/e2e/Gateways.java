package io.llmgw.cli.e2e;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/** Starts the whole local gateway for end-to-end tests: simulated pods, the EPP, and the dev proxy (or none). */
final class Gateways {
  static final String BASE = SimConfig.DEFAULT_MODEL;
  static final List<String> ADAPTERS = List.of("sql-lora", "chat-lora");

  private Gateways() {}

  static Rig start(String firstIp, int pods, boolean devProxy) throws Exception {
    return start(firstIp, pods, devProxy, UnaryOperator.identity());
  }

  static Rig start(String firstIp, int pods, boolean devProxy, UnaryOperator<EppSettings> epp) throws Exception {
    SimConfig sim = SimConfig.builder().adapters(ADAPTERS).loras(2, 2).autoToolChoice(true).promptTokensDetails(true)
        .build();
    SimPods simPods = SimPods.start(sim, pods, firstIp, 8000);
    Path config = Rig.writeConfig(Files.createTempFile("e2e", ".yaml"), simPods,
        List.of(BASE, "sql-lora", "chat-lora"));
    return Rig.start(simPods, epp.apply(EppSettings.defaults(config).onLoopbackEphemeralPorts()),
        devProxy ? ProxySettings.defaults().withListener("127.0.0.1", 0) : null);
  }

  /** Whether a program (a browser, Prometheus) is installed, for tests that skip without it. */
  static boolean onPath(String command) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(d, command))) {
        return true;
      }
    }
    return false;
  }

  /** The official SDK, with its own retries off so that every failure is counted. */
  static OpenAIClient client(int port) {
    return OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + port + "/v1").apiKey("not-needed")
        .maxRetries(0).timeout(Duration.ofSeconds(30)).build();
  }
}
