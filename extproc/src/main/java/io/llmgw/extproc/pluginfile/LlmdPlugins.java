package io.llmgw.extproc.pluginfile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.api.ConfigException;
import io.llmgw.api.Durations;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * llm-d-router's plugin types, each as this EPP's: renamed to the plugin that does the same, with its parameters
 * translated, or absorbed (null) where this EPP does it always. A parameter it cannot honour is refused with the
 * nearest thing it offers. Types both EPPs share pass as they are, to be checked by this EPP's own factories. The
 * table is docs/features.md's "From llm-d's router".
 */
final class LlmdPlugins {
  static final int DEFAULT_KV_EVENTS_PORT = 5557;
  /** Bytes of prompt text per token, as this EPP estimates prompt lengths from bodies. */
  private static final int BYTES_PER_TOKEN = 4;
  private static final Set<String> PRODUCER_REFS = Set.of("prefixMatchInfoProducerName",
      "latencyPredictionInfoProducerName", "inFlightLoadProducerName", "encoderCacheMatchInfoProducerName");

  private LlmdPlugins() {}

  /** llm-d's vLLM render backend ({@code vllm: {url, timeout, mmTimeout}} and {@code modelName}) as ours. */
  private static ObjectNode renderServer(LlmdParameters p, ObjectNode params) throws ConfigException {
    p.allowOnly("vllm", "url", "timeout", "mmTimeout");
    if (!p.has("modelName") || p.text("modelName").isBlank()) {
      throw p.refuse("modelName", "is required with vllm: the model the render server serves (the request's own may "
          + "name an adapter it does not know)");
    }
    // llm-d's default: a render sidecar in the EPP's own pod
    String url = p.has("vllm.url") ? p.text("vllm.url").strip() : "http://localhost:8000";
    if (!url.matches("https?://[^/?#\\s]+/?")) {
      throw p.refuse("vllm.url", "'" + url + "' is not http://HOST:PORT of a render server");
    }
    ObjectNode ours = params.objectNode().put("tokenizer", "vllm:" + url).put("model", p.text("modelName"));
    p.absent("vllm.mmTimeout", "this EPP gives every request the one time limit vllm.timeout (multimodal ones too)");
    if (p.has("vllm.timeout")) {
      Duration d = Durations.parse(p.text("vllm.timeout"));
      if (d == null || d.isZero() || d.toMillis() > 120_000) {
        throw p.refuse("vllm.timeout", "'" + p.text("vllm.timeout") + "' is not a duration between 10ms and 2m");
      }
      ours.put("renderTimeoutMillis", Math.max(10, (int) d.toMillis()));
    }
    return ours;
  }

  /** The plugin as this EPP's, or null when absorbed. */
  static JsonNode translate(LlmdTranslation.State s, ObjectNode plugin, String path) throws ConfigException {
    String type = plugin.path("type").asText("").trim();
    String name = plugin.path("name").isTextual() ? plugin.path("name").asText().trim() : type;
    JsonNode raw = plugin.path("parameters");
    if (!raw.isMissingNode() && !raw.isNull() && !raw.isObject()) {
      // an absorbed plugin would otherwise drop it unread
      throw s.error(path + ".parameters", "must be a mapping");
    }
    ObjectNode params = raw.isObject() ? (ObjectNode) raw : plugin.objectNode();
    LlmdParameters p = new LlmdParameters(s.source, path, name.equals(type) ? type : type + "/" + name, params);
    switch (type) {
      case "metrics-data-source" -> {
        p.allowOnly("", "scheme", "path", "port", "insecureSkipVerify", "caCertPath", "clientCertPath",
            "clientKeyPath", "interval");
        p.onlyValue("scheme", "http", "this EPP scrapes model servers over plain HTTP");
        if (p.has("path") && !Set.of("/metrics", "/metrics/").contains(p.text("path"))) {
          throw p.refuse("path", "'" + p.text("path") + "' cannot be honoured; this EPP reads /metrics (vLLM's, "
              + "SGLang's and Triton's path)");
        }
        p.absent("port", "this EPP scrapes each endpoint on its own targetPort (the InferencePool's)");
        for (String tls : new String[] {"caCertPath", "clientCertPath", "clientKeyPath"}) {
          p.absent(tls, "this EPP scrapes over plain HTTP");
        }
        if (p.has("interval")) {
          s.scrapeInterval(p, p.text("interval"));
        }
        return absorbed(s, name);
      }
      case "core-metrics-extractor" -> {
        p.allowOnly("", "defaultEngine", "engineLabelKey");
        p.onlyValue("defaultEngine", "vllm", "an SGLang or Triton pod says so in its label llm-d.ai/engine-type");
        if (p.has("engineLabelKey") && !Set.of("llm-d.ai/engine-type", "inference.networking.k8s.io/engine-type")
            .contains(p.text("engineLabelKey"))) {
          throw p.refuse("engineLabelKey", "this EPP reads llm-d.ai/engine-type (or the older "
              + "inference.networking.k8s.io/engine-type)");
        }
        return absorbed(s, name);
      }
      case "models-data-source", "models-data-extractor" -> {
        p.allowOnly("");
        return absorbed(s, name); // every pod's /v1/models is read, always
      }
      case "endpoint-notification-source" -> {
        p.allowOnly("");
        return absorbed(s, name); // pods are watched; the extractors it feeds say what it is for
      }
      case "openai-parser", "vllmhttp-parser" -> {
        p.allowOnly("");
        return absorbed(s, name);
      }
      case "passthrough-parser" -> {
        p.allowOnly("");
        s.warn.accept(s.source + ": " + name + ": this EPP reads the model from the OpenAI body of every request; a "
            + "body it cannot read is answered 400, not routed blind as llm-d's passthrough-parser would");
        return absorbed(s, name);
      }
      case "vllmgrpc-parser", "sglanghttp-parser", "anthropic-parser", "vertexai-parser" -> throw p.refuse("",
          "this EPP parses OpenAI's HTTP API (openai-parser); " + type + " is not offered");
      case "approx-prefix-cache-producer" -> {
        p.allowOnly("", "autoTune", "blockSize", "blockSizeTokens", "maxPrefixBlocksToMatch",
            "maxPrefixTokensToMatch", "lruCapacityPerServer");
        return absorbed(s, name); // its parameters go to the scorer that reads it
      }
      case "precise-prefix-cache-producer" -> {
        precise(s, p);
        return absorbed(s, name);
      }
      case "token-producer", "tokenizer" -> {
        p.allowOnly("", "modelName", "vllm", "udsTokenizerConfig", "estimate", "tokenizer");
        String nearest = "this EPP tokenizes in process (parameter tokenizer: hf:DIR, a model's Hugging Face files) or "
            + "asks a vLLM render server (parameters vllm.url and modelName)";
        p.absent("udsTokenizerConfig", nearest + "; llm-d deprecates the UDS tokenizer for the latter");
        p.absent("estimate", nearest + "; without a tokenizer prompts are matched approximately, as llm-d's "
            + "estimate does");
        if (p.has("vllm")) {
          return ours(plugin, name, "prompt-tokens-producer", renderServer(p, params));
        }
        if (!p.has("tokenizer")) {
          throw p.refuse(p.has("modelName") ? "modelName" : "", "cannot be honoured alone; " + nearest);
        }
        return ours(plugin, name, "prompt-tokens-producer", params.objectNode().put("tokenizer", p.text("tokenizer")));
      }
      case "session-id-producer" -> {
        if (!p.has("headerName") && !p.has("cookieName")) {
          return plugin; // this EPP's own parameters (sessionHeader, useUserField), checked by its factory
        }
        p.allowOnly("", "headerName", "cookieName");
        p.absent("cookieName", "this EPP reads a session from a header (headerName) or the body's user field");
        ObjectNode ours = params.objectNode();
        if (p.has("headerName")) {
          ours.put("sessionHeader", p.text("headerName").toLowerCase(Locale.ROOT));
        }
        return ours(plugin, name, "session-id-producer", ours);
      }
      case "inflight-load-producer" -> {
        p.allowOnly("", "syncCrossReplicaState");
        return absorbed(s, name); // in-flight counts and prefill tokens are kept always, and shared with peers
      }
      case "predicted-latency-producer" -> {
        p.allowOnly("", "prefixMatchInfoProducerName", "inFlightLoadProducerName");
        return absorbed(s, name); // the latency model is fitted online from every response, always
      }
      case "prefix-cache-scorer" -> {
        return prefixScorer(s, plugin, name, p);
      }
      case "precise-prefix-cache-scorer" -> {
        precise(s, p);
        return ours(plugin, name, type, params.objectNode());
      }
      case "active-request-scorer" -> {
        p.allowOnly("", "requestTimeout", "inFlightLoadProducerName");
        p.absent("requestTimeout", "a request counts until its response ends, or serve --max-request-duration");
        return ours(plugin, name, "least-request-scorer", params.objectNode());
      }
      case "latency-scorer", "token-load-scorer" -> {
        for (String ref : PRODUCER_REFS) {
          params.remove(ref);
        }
        return plugin;
      }
      case "prefix-cache-affinity-filter" -> {
        p.allowOnly("", "affinityThreshold", "explorationProbability", "maxTTFTPenaltyMs", "ttftSource",
            "peakPrefillThroughput", "prefixMatchInfoProducerName", "latencyPredictionInfoProducerName",
            "inFlightLoadProducerName");
        s.warn.accept(s.source + ": " + name + ": the latency-scorer here weighs each pod's cached share of the prompt "
            + "in its predicted time to first token, so no affinity gate runs before it");
        return absorbed(s, name);
      }
      case "slo-headroom-tier-filter" -> {
        p.allowOnly("", "epsilonExploreNeg", "latencyPredictionInfoProducerName");
        p.absent("epsilonExploreNeg", "pods predicted to miss the objective are explored only when none meets it");
        return ours(plugin, name, "latency-objective-filter", params.objectNode());
      }
      case "latency-slo-admitter" -> {
        p.allowOnly("", "latencyPredictionInfoProducerName");
        // objective-shedding, among the default admission steps, does the same: listing it would replace them all
        return absorbed(s, name);
      }
      case "disagg-profile-handler" -> {
        return disaggHandler(s, plugin, name, p);
      }
      case "prefix-based-pd-decider", "always-disagg-pd-decider" -> {
        p.allowOnly("", "nonCachedTokens", "promptTokens");
        return absorbed(s, name); // read by the disagg-profile-handler that names it
      }
      case "data-parallel-profile-handler" -> {
        p.allowOnly("", "primaryPort");
        s.warn.accept(s.source + ": " + name + ": every data-parallel rank (each of the pool's targetPorts, or a pod's "
            + "llm-d.ai/active-ports) is an endpoint of its own here and is picked directly");
        return absorbed(s, name);
      }
      default -> {
        return plugin; // this EPP's own types, and those both share: their factories check the parameters
      }
    }
  }

  /** llm-d's prefix-cache-scorer reads a producer: the approximate one, or the precise one (our precise scorer). */
  private static JsonNode prefixScorer(LlmdTranslation.State s, ObjectNode plugin, String name, LlmdParameters p)
      throws ConfigException {
    p.allowOnly("", "prefixMatchInfoProducerName", "blockSize", "hashBlockSize", "maxPrefixBlocksToMatch",
        "lruCapacityPerServer");
    String producer = p.text("prefixMatchInfoProducerName");
    String producerType = producer == null ? null : s.typeByName.get(producer);
    if (producer != null && producerType == null) {
      throw p.refuse("prefixMatchInfoProducerName", "names '" + producer + "', which the plugins list does not define");
    }
    JsonNode given = plugin.path("parameters");
    ObjectNode params = given.isObject() ? ((ObjectNode) given.deepCopy()).without("prefixMatchInfoProducerName")
        : plugin.objectNode();
    if ("precise-prefix-cache-producer".equals(producerType)) {
      return ours(plugin, name, "precise-prefix-cache-scorer", params);
    }
    ObjectNode approx = producer != null ? s.paramsByName.get(producer) : onlyApproxProducer(s);
    if (approx != null) {
      int blockTokens = approx.path("blockSizeTokens").asInt(0);
      if (blockTokens > 0) {
        params.put("blockSize", blockTokens * BYTES_PER_TOKEN);
      } else if (approx.has("blockSize")) {
        params.set("blockSize", approx.get("blockSize"));
      }
      int maxTokens = approx.path("maxPrefixTokensToMatch").asInt(0);
      if (maxTokens > 0) {
        int perBlock = blockTokens > 0 ? blockTokens : params.path("blockSize").asInt(64 * BYTES_PER_TOKEN)
            / BYTES_PER_TOKEN;
        params.put("maxPrefixBlocksToMatch", (maxTokens + perBlock - 1) / Math.max(1, perBlock));
      } else if (approx.has("maxPrefixBlocksToMatch")) {
        params.set("maxPrefixBlocksToMatch", approx.get("maxPrefixBlocksToMatch"));
      }
      if (approx.has("lruCapacityPerServer")) {
        params.set("lruCapacityPerServer", approx.get("lruCapacityPerServer"));
      }
    }
    return ours(plugin, name, "prefix-cache-scorer", params);
  }

  private static ObjectNode onlyApproxProducer(LlmdTranslation.State s) {
    ObjectNode found = null;
    for (var e : s.typeByName.entrySet()) {
      if (e.getValue().equals("approx-prefix-cache-producer")) {
        if (found != null) {
          return null; // two producers and no name: each scorer must name its own
        }
        found = s.paramsByName.get(e.getKey());
      }
    }
    return found;
  }

  /** The precise producer's (or the legacy precise scorer's) parameters: the pods' KV events, followed per pod. */
  private static void precise(LlmdTranslation.State s, LlmdParameters p) throws ConfigException {
    p.allowOnly("", "tokenProcessorConfig", "indexerConfig", "kvEventsConfig", "speculativeIndexing",
        "speculativeTTL");
    // the engine's block size and hash seed: this EPP matches the block hashes each pod's events carry
    p.allowOnly("tokenProcessorConfig", "blockSize", "blockSizeTokens", "hashSeed");
    p.allowOnly("kvEventsConfig", "zmqEndpoint", "topicFilter", "concurrency", "engineType", "discoverPods",
        "podDiscoveryConfig");
    p.allowOnly("kvEventsConfig.podDiscoveryConfig", "podLabelSelector", "podNamespace", "socketPort",
        "replaySocketPort");
    p.absent("kvEventsConfig.zmqEndpoint", "this EPP subscribes to each pod's publisher (kvEventsConfig."
        + "podDiscoveryConfig.socketPort, default 5557; vLLM --kv-events-config endpoint tcp://*:5557)");
    p.onlyValue("kvEventsConfig.engineType", "vllm", "KV events are read as vLLM publishes them");
    p.onlyValue("kvEventsConfig.discoverPods", "true", "pods are discovered from the InferencePool, always");
    s.followKvEvents();
    if (p.has("kvEventsConfig.podDiscoveryConfig.socketPort")) {
      s.kvPort = p.integer("kvEventsConfig.podDiscoveryConfig.socketPort", DEFAULT_KV_EVENTS_PORT, 1, 65535);
    }
    if (p.has("kvEventsConfig.podDiscoveryConfig.replaySocketPort")) {
      int replay = p.integer("kvEventsConfig.podDiscoveryConfig.replaySocketPort", 0, 0, 65535);
      s.kvReplayPort = replay > 0 ? replay : null;
    }
    if (p.has("kvEventsConfig.topicFilter")) {
      s.kvTopic = p.text("kvEventsConfig.topicFilter");
    }
  }

  /** llm-d's disaggregation: profiles and deciders by name, as this EPP's pd-profile-handler with llm-d's rule. */
  private static JsonNode disaggHandler(LlmdTranslation.State s, ObjectNode plugin, String name, LlmdParameters p)
      throws ConfigException {
    p.allowOnly("", "profiles", "deciders", "decodeProfile", "prefillProfile", "deciderPluginName",
        "prefillDeciderPluginName", "primaryPort");
    p.allowOnly("profiles", "decode", "prefill");
    p.allowOnly("deciders", "prefill");
    for (String profile : new String[] {"profiles.decode", "decodeProfile"}) {
      p.onlyValue(profile, "decode", "name the decode profile 'decode'");
    }
    for (String profile : new String[] {"profiles.prefill", "prefillProfile"}) {
      p.onlyValue(profile, "prefill", "name the prefill profile 'prefill'");
    }
    String decider = p.text("deciders.prefill");
    if (decider == null) {
      decider = p.text("prefillDeciderPluginName") != null ? p.text("prefillDeciderPluginName")
          : p.text("deciderPluginName");
    }
    String deciderType = decider == null ? null : s.typeByName.get(decider);
    if (decider != null && deciderType == null) {
      throw p.refuse("deciders.prefill", "names '" + decider + "', which the plugins list does not define");
    }
    LlmdParameters deciderParams = "prefix-based-pd-decider".equals(deciderType)
        ? new LlmdParameters(s.source, "plugins[" + decider + "]", decider, s.paramsByName.get(decider))
        : null;
    int threshold = deciderParams == null ? 0 : deciderParams.integer("nonCachedTokens", 0, 0, 10_000_000);
    int minPrompt = deciderParams == null ? 0 : deciderParams.integer("promptTokens", 0, 0, 10_000_000);
    // llm-d's rule (split at the threshold whatever the loads), not this EPP's cost-aware one
    ObjectNode ours = plugin.objectNode().put("threshold", threshold).put("costAware", false);
    return ours(plugin, name, "pd-profile-handler", minPrompt > 0 ? ours.put("minPromptTokens", minPrompt) : ours);
  }

  private static ObjectNode ours(ObjectNode plugin, String name, String type, ObjectNode params) {
    ObjectNode out = plugin.objectNode().put("name", name).put("type", type);
    if (!params.isEmpty()) {
      out.set("parameters", params);
    }
    return out;
  }

  private static JsonNode absorbed(LlmdTranslation.State s, String name) {
    s.absorbed.add(name);
    return null;
  }
}
