package io.llmgw.cli;

import io.llmgw.api.ConfigException;
import io.llmgw.extproc.pluginfile.PluginConfigFile;
import io.llmgw.extproc.request.prepare.PromptTokensProducer;
import io.llmgw.extproc.request.prepare.SessionIdProducer;
import io.llmgw.picker.SessionKey;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.scorers.SessionAffinityScorer;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** How pods are picked: a policy or a plugin file, and what is added to it (session affinity, a tokenizer). */
final class SchedulingOptions {
  static final double DEFAULT_SESSION_AFFINITY = 2;

  @Option(names = "--policy", converter = PolicyConverter.class,
      description = "seed (pack each adapter onto few pods; default), scorers (GIE queue/kv-cache/prefix/lora-affinity), "
          + "precise (scorers, with prefixes matched against the pods' KV-cache events: --kv-events-port), latency "
          + "(the pod with the least predicted latency, learned online), or a baseline for comparison: round-robin, "
          + "random, least-request. Short for a plugin configuration.")
  PolicyShorthand policy;

  @Option(names = "--plugins-config", paramLabel = "FILE",
      description = "Scheduling plugins and profile in the reference EPP's format (kind: EndpointPickerConfig), "
          + "instead of --policy; docs/architecture.md lists the plugin types.")
  Path pluginsConfig;

  @Option(names = "--session-affinity", paramLabel = "WEIGHT",
      description = "Weight of the session-affinity scorer added to the --policy: a request naming a session goes to "
          + "the pod that served the session last while that pod has room; 0 leaves it out. Default: 2, except with "
          + "--policy scorers, whose prefix-cache scorer already follows conversations (the two together crowd pods: "
          + "bench/README.md), and with --plugins-config, which lists it when it wants it.")
  Double sessionAffinity;

  @Option(names = "--session-header", paramLabel = "NAME", defaultValue = SessionKey.DEFAULT_HEADER,
      description = "The request header that names a session (default: ${DEFAULT-VALUE}).")
  String sessionHeader;

  @Option(names = "--session-from-user",
      description = "Without the session header, OpenAI's body field 'user' names the session.")
  boolean sessionFromUser;

  @Option(names = "--adapter-pending-threshold",
      description = "Seed policy: pending requests for an adapter on a pod before the next pod takes over "
          + "(default: ${DEFAULT-VALUE}).")
  int threshold;

  @Option(names = "--tokenizer", paramLabel = "sim|hf:DIR",
      description = "How the precise prefix scorer turns prompts into the engine's token ids: sim (the simulator's), "
          + "or hf:DIR, a model's Hugging Face files (tokenizer.json, tokenizer_config.json): chat and Responses "
          + "requests are rendered with the model's chat template and tokenized as vLLM does, off the event loops. "
          + "Without it every prompt is matched approximately.")
  String tokenizer;

  @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
  CommandLine.Model.CommandSpec command;

  private boolean given(String flag) {
    return command.commandLine().getParseResult().hasMatchedOption(flag);
  }

  int threshold() {
    return threshold;
  }

  /** The plugin file, read once: null with --policy. */
  PluginConfigFile.Loaded file() throws ConfigException {
    if (pluginsConfig != null && given("--policy")) {
      throw new IllegalArgumentException("--policy and --plugins-config both choose the scheduling; give one");
    }
    return pluginsConfig != null ? PluginConfigFile.loadFile(pluginsConfig, w -> System.err.println("llmgw: " + w))
        : null;
  }

  /** The scheduling from --plugins-config, else from --policy; with the session-affinity scorer when asked for. */
  SchedulingConfig scheduling(PluginConfigFile.Loaded file) {
    SchedulingConfig base = file != null ? file.config() : policy.config(threshold);
    if (tokenizer != null) {
      if (base.lists(PromptTokensProducer.TYPE)) {
        throw new IllegalArgumentException("--tokenizer and " + base.source() + "'s " + PromptTokensProducer.TYPE
            + " both choose the tokenizer; give one");
      }
      base = base.withPlugin(PluginSpec.of(PromptTokensProducer.TYPE, Map.of(PromptTokensProducer.TOKENIZER,
          tokenizer)));
    }
    double weight = sessionAffinity != null ? sessionAffinity
        : pluginsConfig != null || policy == PolicyShorthand.SCORERS || policy == PolicyShorthand.PRECISE ? 0
        : DEFAULT_SESSION_AFFINITY;
    if (!(weight >= 0 && weight <= 1000)) {
      throw new IllegalArgumentException("--session-affinity is a weight between 0 and 1000, not " + weight);
    }
    if (weight == 0) {
      return base;
    }
    SchedulingConfig withScorer = base.withScorer(PluginSpec.of(SessionAffinityScorer.TYPE), weight,
        " + --session-affinity " + weight);
    boolean sessionFlags = given("--session-header") || sessionFromUser;
    if (base.lists(SessionIdProducer.TYPE) && sessionFlags) {
      throw new IllegalArgumentException("--session-header and --session-from-user say where sessions come from, and "
          + base.source() + " says it too (its " + SessionIdProducer.TYPE + "); give one");
    }
    return base.lists(SessionIdProducer.TYPE) ? withScorer : withScorer.withPlugin(PluginSpec.of(
        SessionIdProducer.TYPE, Map.of("sessionHeader", sessionHeader.toLowerCase(Locale.ROOT),
            "useUserField", sessionFromUser)));
  }

  static final class PolicyConverter implements CommandLine.ITypeConverter<PolicyShorthand> {
    @Override
    public PolicyShorthand convert(String value) {
      try {
        return PolicyShorthand.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a policy: seed, scorers, latency, "
            + "round-robin, random or least-request");
      }
    }
  }
}
