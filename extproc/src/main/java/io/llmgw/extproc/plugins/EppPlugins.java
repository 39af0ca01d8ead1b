package io.llmgw.extproc.plugins;

import io.llmgw.extproc.cacheprediction.plugins.CachePredictionCheck;
import io.llmgw.extproc.capacity.plugins.ArrivalCount;
import io.llmgw.extproc.flow.plugins.FairnessIdProducer;
import io.llmgw.extproc.flow.plugins.FlowControlAdmission;
import io.llmgw.extproc.flow.plugins.FlowSignal;
import io.llmgw.extproc.flow.plugins.SaturationShedding;
import io.llmgw.extproc.objectives.plugins.LatencyObservation;
import io.llmgw.extproc.objectives.plugins.ObjectiveCheckProducer;
import io.llmgw.extproc.objectives.plugins.ObjectiveShedding;
import io.llmgw.extproc.observe.TokenizerMetrics;
import io.llmgw.extproc.request.Pipeline;
import io.llmgw.extproc.request.admission.AdmissionStep;
import io.llmgw.extproc.request.hooks.AdapterUsage;
import io.llmgw.extproc.request.hooks.InFlightLease;
import io.llmgw.extproc.request.hooks.PreRequestHook;
import io.llmgw.extproc.request.hooks.RequestMetrics;
import io.llmgw.extproc.request.hooks.ResponseHook;
import io.llmgw.extproc.request.prepare.MaxTokensProducer;
import io.llmgw.extproc.request.prepare.Producer;
import io.llmgw.extproc.request.prepare.Producers;
import io.llmgw.extproc.request.prepare.PromptBlocksProducer;
import io.llmgw.extproc.request.prepare.PromptTokensProducer;
import io.llmgw.extproc.request.prepare.SessionIdProducer;
import io.llmgw.extproc.request.residency.JustInTimeLoader;
import io.llmgw.extproc.request.residency.Loader;
import io.llmgw.extproc.request.resolve.RolloutRedirect;
import io.llmgw.extproc.request.resolve.TargetResolver;
import io.llmgw.extproc.request.resolve.VariantChooser;
import io.llmgw.extproc.request.resolve.WeightedTargets;
import io.llmgw.extproc.tenancy.plugins.TenantAdmission;
import io.llmgw.extproc.tenancy.plugins.TenantSettlement;
import io.llmgw.extproc.tokens.HuggingFaceTokenizer;
import io.llmgw.extproc.tokens.SimTokenizer;
import io.llmgw.extproc.tokens.Tokenizer;
import io.llmgw.extproc.tokens.VllmRenderTokenizer;
import io.llmgw.picker.Plugin;
import io.llmgw.picker.PluginId;
import io.llmgw.picker.SessionKey;
import io.llmgw.picker.config.Parameters;
import io.llmgw.picker.config.PluginEnv;
import io.llmgw.picker.config.PluginRegistry;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.SchedulingConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one registry of plugin types, for all nine extension points: producers, target resolvers, admission steps, the
 * loader, filters, scorers, pickers, before-request and response hooks. One configuration ({@code
 * EndpointPickerConfig}) lists them all: scheduling plugins run as its profile orders them (assembled by the picker's
 * {@link PluginRegistry}); every other plugin runs at the extension point its interface names, in the order the
 * {@code plugins} list gives. An extension point the configuration lists nothing for gets the shipped defaults
 * ({@link DefaultPlugins}); plugins the lifecycle cannot work without are added where the configuration omits them,
 * in their default place; producers are added for every attribute a plugin consumes and nobody lists a producer of.
 */
public final class EppPlugins {
  private static final Logger LOG = LoggerFactory.getLogger(EppPlugins.class);
  /** Builds one lifecycle plugin from its parameters. */
  @FunctionalInterface
  public interface Factory {
    Plugin create(Parameters parameters, LifecycleEnv env);
  }

  /** @param required added where a configuration omits it (the lifecycle is incorrect without it) */
  private record Entry(Factory factory, boolean required) {}

  private final PluginRegistry scheduling;
  private final Map<String, Entry> lifecycle = new LinkedHashMap<>();

  private EppPlugins(PluginRegistry scheduling) {
    this.scheduling = scheduling;
  }

  /** Every plugin this EPP ships. */
  public static EppPlugins builtIn() {
    EppPlugins r = new EppPlugins(PluginRegistry.builtIn());
    r.register(WeightedTargets.TYPE, true, (p, env) -> none(p, new WeightedTargets(ThreadLocalRandom::current,
        env.settings().requests().trustRewriteHeader())));
    r.register(VariantChooser.TYPE, true, (p, env) -> none(p, new VariantChooser(env.datastore(), env.saturation(),
        env.latency().estimator(), env.adapters().loads(), env.arrivals())));
    r.register(RolloutRedirect.TYPE, true, (p, env) -> none(p, new RolloutRedirect(env.rollouts())));
    r.register(PromptBlocksProducer.TYPE, false, EppPlugins::promptBlocks);
    r.register(SessionIdProducer.TYPE, false, EppPlugins::sessionId);
    r.register(PromptTokensProducer.TYPE, false, EppPlugins::promptTokens);
    r.register(FairnessIdProducer.TYPE, false, (p, env) -> none(p, new FairnessIdProducer()));
    r.register(MaxTokensProducer.TYPE, false, (p, env) -> none(p, new MaxTokensProducer()));
    r.register(ObjectiveCheckProducer.TYPE, false,
        (p, env) -> none(p, new ObjectiveCheckProducer(env.latency().estimator(),
            env.settings().objectives().model().headroom(), env.profile())));
    r.register(TenantAdmission.TYPE, true,
        (p, env) -> none(p, new TenantAdmission(env.tenants(), env.datastore(), env.tenantEvents(),
            env.settings().tenancy().on(), countsPromptTokens(env))));
    r.register(SaturationShedding.TYPE, false, (p, env) -> none(p, new SaturationShedding()));
    r.register(ObjectiveShedding.TYPE, false, (p, env) -> none(p, new ObjectiveShedding()));
    r.register(FlowControlAdmission.TYPE, false,
        (p, env) -> none(p, new FlowControlAdmission(env.flow(), env.clock(), env.datastore())));
    r.register(JustInTimeLoader.TYPE, true, (p, env) -> none(p, new JustInTimeLoader(env.adapters().loads(),
        env.datastore()::states, env.settings().adapters().loadWaitTimeout(), env.ticker(),
        env.metrics()::cacheMissWaitSeconds)));
    r.register(ArrivalCount.TYPE, true, (p, env) -> none(p, new ArrivalCount(env.arrivals())));
    r.register(InFlightLease.TYPE, true, (p, env) -> none(p, new InFlightLease(env.datastore().inFlight())));
    r.register(AdapterUsage.TYPE, false, (p, env) -> none(p, new AdapterUsage(env.adapters().usage())));
    r.register(FlowSignal.TYPE, true, (p, env) -> none(p, new FlowSignal(env.flow(), env.datastore())));
    r.register(TenantSettlement.TYPE, true,
        (p, env) -> none(p, new TenantSettlement(env.tenants(), env.tenantEvents())));
    r.register(LatencyObservation.TYPE, false, (p, env) -> none(p, new LatencyObservation(env.latency())));
    r.register(RequestMetrics.TYPE, true, (p, env) -> none(p, new RequestMetrics(env.metrics())));
    r.register(CachePredictionCheck.TYPE, false, (p, env) -> none(p, new CachePredictionCheck(
        env.profile().prefixHasher() != null, env.cachePrediction(), env.decisions(), env.engineBlocks())));
    return r;
  }

  /** Adds a lifecycle plugin type (its extension points are the interfaces its instances implement). */
  public EppPlugins register(String type, boolean required, Factory factory) {
    if (scheduling.types().contains(type) || lifecycle.putIfAbsent(type, new Entry(factory, required)) != null) {
      throw new IllegalArgumentException("plugin type " + type + " is registered twice");
    }
    return this;
  }

  /** Every type, of every extension point. */
  public Set<String> types() {
    Set<String> all = new TreeSet<>(scheduling.types());
    all.addAll(lifecycle.keySet());
    return all;
  }

  /**
   * The whole lifecycle the configuration describes, with the shipped defaults for what it leaves out.
   *
   * @param env the parts lifecycle plugins are built with (the profile is built here)
   * @param warn told of what the configuration declares but does not use
   * @throws IllegalArgumentException naming the configuration, the plugin and what is wrong
   */
  public Pipeline build(SchedulingConfig config, PluginEnv pluginEnv, LifecycleEnv env, Consumer<String> warn) {
    List<PluginSpec> lifecycleSpecs = new ArrayList<>();
    List<PluginSpec> schedulingSpecs = new ArrayList<>();
    for (PluginSpec spec : config.plugins()) {
      (lifecycle.containsKey(spec.type()) ? lifecycleSpecs : schedulingSpecs).add(spec);
    }
    PluginRegistry.Assembled scheduled = scheduling.assemble(new SchedulingConfig(config.source(), schedulingSpecs,
        config.profiles()), pluginEnv, warn);
    try {
      return assemble(lifecycleSpecs, scheduled, env.withProfile(scheduled.profile()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(config.source() + ": " + e.getMessage(), e);
    }
  }

  private Pipeline assemble(List<PluginSpec> specs, PluginRegistry.Assembled scheduled, LifecycleEnv env) {
    List<Plugin> listed = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (PluginSpec spec : specs) {
      if (!names.add(spec.name())) {
        throw new IllegalArgumentException("two plugins are named '" + spec.name() + "'; give each a unique name");
      }
      listed.add(create(spec, env));
    }
    List<Plugin> defaults = new ArrayList<>();
    for (PluginSpec spec : DefaultPlugins.config().plugins()) {
      if (!lifecycle.containsKey(spec.type())) {
        continue; // the default profile's plugins: the configuration's own profile is built instead
      }
      defaults.add(listed.stream().filter(p -> p.type().equals(spec.type())).findFirst()
          .orElseGet(() -> create(spec, env)));
    }
    List<TargetResolver> resolvers = point(TargetResolver.class, listed, defaults);
    List<AdmissionStep> admission = point(AdmissionStep.class, listed, defaults);
    List<Loader> loaders = point(Loader.class, listed, defaults);
    if (loaders.size() != 1) {
      throw new IllegalArgumentException("lists " + loaders.size() + " loaders (" + ids(loaders) + "); the lifecycle "
          + "runs exactly one");
    }
    List<PreRequestHook> preRequest = point(PreRequestHook.class, listed, defaults);
    List<ResponseHook> response = point(ResponseHook.class, listed, defaults);
    List<Plugin> consumers = new ArrayList<>(scheduled.profile().allPlugins());
    if (scheduled.disaggregation().enabled()) {
      consumers.addAll(scheduled.disaggregation().prefillProfile().allPlugins());
    }
    consumers.addAll(resolvers);
    consumers.addAll(admission);
    consumers.addAll(loaders);
    consumers.addAll(preRequest);
    consumers.addAll(response);
    List<Producer> producers = Producers.order(only(Producer.class, listed), consumers,
        type -> lifecycle.containsKey(type) && create(PluginSpec.of(type), env) instanceof Producer p ? p : null);
    return new Pipeline(resolvers, producers, admission, loaders.getFirst(), scheduled.profile(),
        scheduled.disaggregation(), preRequest, response);
  }

  private Plugin create(PluginSpec spec, LifecycleEnv env) {
    Entry entry = lifecycle.get(spec.type());
    PluginId id = new PluginId(spec.type(), spec.name());
    return entry.factory().create(new Parameters(id.toString(), spec.parameters()), env);
  }

  /**
   * The plugins of one extension point: as listed when the configuration lists any, with the required defaults it
   * omits put back in their default place; else the defaults.
   */
  private <T extends Plugin> List<T> point(Class<T> kind, List<Plugin> listed, List<Plugin> defaults) {
    List<T> mine = only(kind, listed);
    List<T> byDefault = only(kind, defaults);
    if (mine.isEmpty()) {
      return byDefault;
    }
    List<T> out = new ArrayList<>(mine);
    for (int d = 0; d < byDefault.size(); d++) {
      T missing = byDefault.get(d);
      if (!lifecycle.get(missing.type()).required() || out.contains(missing)) {
        continue;
      }
      int at = out.size(); // before the first plugin that follows it in the default order
      for (int i = 0; i < out.size(); i++) {
        int rank = byDefault.indexOf(out.get(i));
        if (rank > d) {
          at = i;
          break;
        }
      }
      out.add(at, missing);
    }
    return out;
  }

  private static <T> List<T> only(Class<T> kind, List<Plugin> plugins) {
    List<T> out = new ArrayList<>();
    for (Plugin p : plugins) {
      if (kind.isInstance(p)) {
        out.add(kind.cast(p));
      }
    }
    return out;
  }

  private static String ids(List<? extends Plugin> plugins) {
    return String.join(", ", plugins.stream().map(p -> PluginId.of(p).toString()).toList());
  }

  private static Plugin none(Parameters p, Plugin plugin) {
    p.allowOnly();
    return plugin;
  }

  private static Plugin promptBlocks(Parameters p, LifecycleEnv env) {
    p.allowOnly();
    if (env.profile().prefixHasher() == null) {
      throw new IllegalArgumentException("plugin " + PromptBlocksProducer.TYPE + " hashes prompts as the profile's "
          + "prefix-tracking scorer cuts them, and the profile has none (prefix-cache-scorer, latency-scorer)");
    }
    return new PromptBlocksProducer(env.profile().prefixHasher());
  }

  /** Whether the configuration names a tokenizer: then a tenant's prompt is counted, not estimated from its bytes. */
  private static boolean countsPromptTokens(LifecycleEnv env) {
    return env.settings().scheduling().plugins().stream().anyMatch(s -> s.type().equals(PromptTokensProducer.TYPE)
        && !Tokenizer.NONE.name().equals(String.valueOf(s.parameters().getOrDefault("tokenizer",
            Tokenizer.NONE.name()))));
  }

  private static Plugin promptTokens(Parameters p, LifecycleEnv env) {
    p.allowOnly("tokenizer", "maxPromptBytes", "model", "renderTimeoutMillis", "renderMaxInFlight",
        "tokenizeThreads");
    String name = p.text("tokenizer", Tokenizer.NONE.name(), "none|sim|hf:.+|vllm:https?://[^/?#]+/?",
        "none, sim (the simulator's), hf:DIR of a model's Hugging Face files (tokenizer.json, tokenizer_config.json), "
            + "or vllm:http://HOST:PORT of a vLLM render server (vllm launch render MODEL)");
    Duration renderTimeout = Duration.ofMillis(p.integer("renderTimeoutMillis", 5000, 10, 120_000));
    int renderMaxInFlight = p.integer("renderMaxInFlight", 256, 1, 65_536);
    if (name.startsWith(HuggingFaceTokenizer.PREFIX)) {
      HuggingFaceTokenizer model = new HuggingFaceTokenizer(Path.of(name.substring(HuggingFaceTokenizer.PREFIX
          .length())), p.integer("tokenizeThreads", Runtime.getRuntime().availableProcessors(), 1, 256),
          renderMaxInFlight, renderTimeout);
      TokenizerMetrics.register(env.metrics().registry(), model::count);
      return new PromptTokensProducer(model, maxPromptBytes(p));
    }
    if (name.startsWith(VllmRenderTokenizer.PREFIX)) {
      String model = p.text("model", "", ".+", "the model the render server serves");
      if (model.isEmpty()) {
        throw new IllegalArgumentException("plugin " + PromptTokensProducer.TYPE + ": a vLLM render server needs the "
            + "parameter model, the model it serves (the request's own may name an adapter it does not know)");
      }
      return new PromptTokensProducer(new VllmRenderTokenizer(URI.create(name.substring(
          VllmRenderTokenizer.PREFIX.length())), model, renderTimeout, renderMaxInFlight), maxPromptBytes(p));
    }
    Tokenizer tokenizer = switch (name) {
      case "none" -> {
        LOG.warn("{} has no tokenizer (its parameter tokenizer, or serve --tokenizer): every prompt is matched "
            + "approximately, whatever the pods' KV-cache events say", PromptTokensProducer.TYPE);
        yield Tokenizer.NONE;
      }
      default -> new SimTokenizer();
    };
    return new PromptTokensProducer(tokenizer, maxPromptBytes(p));
  }

  private static int maxPromptBytes(Parameters p) {
    return p.integer("maxPromptBytes", PromptTokensProducer.DEFAULT_MAX_PROMPT_BYTES, 1024, 16 << 20);
  }

  private static Plugin sessionId(Parameters p, LifecycleEnv env) {
    p.allowOnly("sessionHeader", "useUserField");
    String header = p.text("sessionHeader", SessionKey.DEFAULT_HEADER, "[a-z0-9!#$%&'*+.^_`|~-]+",
        "a header name: lower-case letters, digits and - (no spaces)");
    return new SessionIdProducer(new SessionKey(header, p.bool("useUserField", false)));
  }
}
