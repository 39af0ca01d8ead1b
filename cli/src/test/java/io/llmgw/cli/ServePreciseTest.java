package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.request.prepare.PromptTokensProducer;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.scorers.PrecisePrefixCacheScorer;
import io.llmgw.picker.scorers.SessionAffinityScorer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 29: {@code serve --policy precise} with the KV-event and tokenizer flags: the precise scorer without session
 * affinity, the subscription's ports, the tokenizer as the producer's parameter, and a tokenizer chosen twice refused.
 */
class ServePreciseTest {
  @TempDir
  Path dir;

  static EppSettings settings(String... args) throws Exception {
    ServeCommand serve = new ServeCommand();
    String[] withConfig = java.util.Arrays.copyOf(args, args.length + 2);
    withConfig[args.length] = "--config";
    withConfig[args.length + 1] = "pool.yaml"; // read when the EPP starts, not here
    new CommandLine(serve).parseArgs(withConfig);
    return serve.settings();
  }

  @Test
  void thePrecisePolicyFollowsThePodsEventsWithTheTokenizerAsked() throws Exception {
    EppSettings s = settings("--policy", "precise", "--kv-events-port", "5557", "--kv-events-replay-port", "5558",
        "--tokenizer", "sim");
    SchedulingConfig c = s.scheduling();
    assertThat(c.lists(PrecisePrefixCacheScorer.TYPE)).isTrue();
    assertThat(c.lists(SessionAffinityScorer.TYPE)).as("its prefix scorer follows conversations").isFalse();
    PluginSpec tokens = c.plugins().stream().filter(p -> p.type().equals(PromptTokensProducer.TYPE)).findFirst()
        .orElseThrow();
    assertThat(tokens.parameters()).containsEntry(PromptTokensProducer.TOKENIZER, "sim");
    assertThat(s.scrape().kvEvents().port()).isEqualTo(5557);
    assertThat(s.scrape().kvEvents().replayPort()).isEqualTo(5558);
    assertThat(settings().scrape().kvEvents().enabled()).as("off by default").isFalse();
  }

  @Test
  void aTokenizerChosenByTheFlagAndTheFileIsRefused() throws Exception {
    Path plugins = Files.writeString(dir.resolve("plugins.yaml"), """
        apiVersion: inference.networking.x-k8s.io/v1alpha1
        kind: EndpointPickerConfig
        plugins:
        - type: precise-prefix-cache-scorer
        - type: prompt-tokens-producer
          parameters:
            tokenizer: sim
        - type: max-score-picker
        schedulingProfiles:
        - name: default
          plugins:
          - pluginRef: precise-prefix-cache-scorer
          - pluginRef: max-score-picker
        """);
    assertThatThrownBy(() -> settings("--plugins-config", plugins.toString(), "--tokenizer", "sim"))
        .hasMessageContaining("--tokenizer").hasMessageContaining("give one");
  }
}
