package io.llmgw.picker.config;

import io.llmgw.picker.Filter;
import io.llmgw.picker.Plugin;
import io.llmgw.picker.PluginId;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.Scorer;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.disagg.Disaggregation;
import io.llmgw.picker.disagg.PdProfileHandler;
import io.llmgw.picker.filters.FreshMetricsFilter;
import io.llmgw.picker.filters.LabelSelectorFilter;
import io.llmgw.picker.filters.LatencyObjectiveFilter;
import io.llmgw.picker.filters.ResidencyFilter;
import io.llmgw.picker.filters.RoleFilter;
import io.llmgw.picker.filters.SubsetHintFilter;
import io.llmgw.picker.pickers.MaxScorePicker;
import io.llmgw.picker.pickers.Picker;
import io.llmgw.picker.pickers.RandomPicker;
import io.llmgw.picker.pickers.RoundRobinPicker;
import io.llmgw.picker.pickers.WeightedRandomPicker;
import io.llmgw.picker.scorers.KvCacheScorer;
import io.llmgw.picker.scorers.LatencyScorer;
import io.llmgw.picker.scorers.LeastRequestScorer;
import io.llmgw.picker.scorers.LoraAffinityScorer;
import io.llmgw.picker.scorers.LoraPackingScorer;
import io.llmgw.picker.scorers.PrecisePrefixCacheScorer;
import io.llmgw.picker.scorers.PrefixCacheScorer;
import io.llmgw.picker.scorers.QueueScorer;
import io.llmgw.picker.scorers.SessionAffinityScorer;
import io.llmgw.picker.scorers.TokenLoadScorer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Plugin factories by type name, and the assembly of a scheduling profile from a {@link SchedulingConfig}. The types
 * we share with the reference EPP keep its names and parameters, so an operator's configuration carries over; ours
 * are named in the same style. The filters correctness depends on (the proxy's subset hint, adapter residency,
 * fresh metrics) and the latency-objective preference run in every profile: a profile that does not list them gets
 * them first, in that order.
 */
public final class PluginRegistry {
  /** Builds one plugin instance from its parameters. */
  @FunctionalInterface
  public interface Factory {
    Plugin create(Parameters parameters, PluginEnv env);
  }

  /** Accepted in a configuration for compatibility: one profile runs for every request, so nothing to choose. */
  public record SingleProfileHandler() implements Plugin {
    public static final String TYPE = "single-profile-handler";

    @Override
    public String type() {
      return TYPE;
    }
  }

  /** Where the session-affinity scorer's session comes from (it read the header itself before producers existed). */
  private static final String SESSION_PRODUCER = RequestAttributes.SESSION_ID.defaultProducer();

  private static final List<String> REQUIRED_FILTERS = List.of(SubsetHintFilter.TYPE, ResidencyFilter.TYPE,
      LatencyObjectiveFilter.TYPE, FreshMetricsFilter.TYPE);

  private final Map<String, Factory> factories = new LinkedHashMap<>();

  public PluginRegistry register(String type, Factory factory) {
    if (factories.putIfAbsent(type, factory) != null) {
      throw new IllegalArgumentException("plugin type " + type + " is registered twice");
    }
    return this;
  }

  public Set<String> types() {
    return new TreeSet<>(factories.keySet());
  }

  /** Every plugin this EPP ships. */
  public static PluginRegistry builtIn() {
    PluginRegistry r = new PluginRegistry();
    r.register(SubsetHintFilter.TYPE, (p, env) -> none(p, new SubsetHintFilter()));
    r.register(ResidencyFilter.TYPE, (p, env) -> none(p, new ResidencyFilter()));
    r.register(LatencyObjectiveFilter.TYPE, (p, env) -> none(p, new LatencyObjectiveFilter()));
    r.register(FreshMetricsFilter.TYPE, (p, env) -> none(p, new FreshMetricsFilter(env.clock(), env.staleAfter())));
    r.register(QueueScorer.TYPE, (p, env) -> none(p, new QueueScorer()));
    r.register(TokenLoadScorer.TYPE, (p, env) -> none(p, new TokenLoadScorer()));
    Factory kv = (p, env) -> none(p, new KvCacheScorer());
    r.register(KvCacheScorer.TYPE, kv);
    r.register("kv-cache-scorer", kv); // the reference EPP's earlier name
    r.register(LoraAffinityScorer.TYPE, (p, env) -> none(p, new LoraAffinityScorer()));
    r.register(PrefixCacheScorer.TYPE, PluginRegistry::prefixCacheScorer);
    r.register(LatencyScorer.TYPE, PluginRegistry::latencyScorer);
    r.register(PrecisePrefixCacheScorer.TYPE, PluginRegistry::precisePrefixCacheScorer);
    r.register(SessionAffinityScorer.TYPE, PluginRegistry::sessionAffinityScorer);
    r.register(LeastRequestScorer.TYPE, (p, env) -> none(p, new LeastRequestScorer()));
    r.register(LoraPackingScorer.TYPE, (p, env) -> new LoraPackingScorer(p.allowOnly("pendingThreshold")
        .integer("pendingThreshold", LoraPackingScorer.DEFAULT_PENDING_THRESHOLD, 1, 1_000_000)));
    r.register(MaxScorePicker.TYPE, (p, env) -> new MaxScorePicker(maxEndpoints(p, env), env.random()));
    r.register(RandomPicker.TYPE, (p, env) -> new RandomPicker(maxEndpoints(p, env), env.random()));
    r.register(RoundRobinPicker.TYPE, (p, env) -> new RoundRobinPicker(maxEndpoints(p, env)));
    r.register(WeightedRandomPicker.TYPE, (p, env) -> new WeightedRandomPicker(maxEndpoints(p, env), env.random()));
    r.register(SingleProfileHandler.TYPE, (p, env) -> none(p, new SingleProfileHandler()));
    r.register(RoleFilter.PREFILL_TYPE, (p, env) -> none(p, RoleFilter.prefill()));
    r.register(RoleFilter.DECODE_TYPE, (p, env) -> none(p, RoleFilter.decode()));
    r.register(PdProfileHandler.TYPE, PluginRegistry::pdProfileHandler);
    r.register(LabelSelectorFilter.TYPE, (p, env) -> LabelSelectors.filter(p));
    return r;
  }

  private static Plugin none(Parameters p, Plugin plugin) {
    p.allowOnly();
    return plugin;
  }

  private static int maxEndpoints(Parameters p, PluginEnv env) {
    return p.allowOnly("maxNumOfEndpoints").integer("maxNumOfEndpoints", env.maxEndpoints(), 1, 100);
  }

  private static Plugin prefixCacheScorer(Parameters p, PluginEnv env) {
    p.allowOnly("blockSize", "hashBlockSize", "maxPrefixBlocksToMatch", "lruCapacityPerServer");
    return approximate(p, env);
  }

  /** The approximate prefix-cache scorer the three prefix-reading scorers are built on, over the EPP's shared index. */
  private static PrefixCacheScorer approximate(Parameters p, PluginEnv env) {
    PrefixHasher hasher = hasher(p, env.routedPrefixes().hashSeed());
    return new PrefixCacheScorer(hasher, env.routedPrefixes().index(hasher.blockBytes(), lruCapacity(p)));
  }

  private static Plugin precisePrefixCacheScorer(Parameters p, PluginEnv env) {
    p.allowOnly("blockSize", "hashBlockSize", "maxPrefixBlocksToMatch", "lruCapacityPerServer",
        "maxTokenBlocksToMatch");
    return new PrecisePrefixCacheScorer(env.engineBlocks(), approximate(p, env),
        p.integer("maxTokenBlocksToMatch", PrecisePrefixCacheScorer.DEFAULT_MAX_TOKEN_BLOCKS, 1, 1 << 16));
  }

  private static Plugin latencyScorer(Parameters p, PluginEnv env) {
    p.allowOnly("blockSize", "hashBlockSize", "maxPrefixBlocksToMatch", "lruCapacityPerServer");
    return new LatencyScorer(env.estimator(), approximate(p, env));
  }

  private static PrefixHasher hasher(Parameters p, long seed) {
    int block = p.integer(p.present("blockSize", "hashBlockSize"), PrefixHasher.DEFAULT_BLOCK_BYTES, 1, 1 << 20);
    return new PrefixHasher(block, p.integer("maxPrefixBlocksToMatch", PrefixHasher.DEFAULT_MAX_BLOCKS, 1, 1 << 16),
        seed);
  }

  private static int lruCapacity(Parameters p) {
    return p.integer("lruCapacityPerServer", PrefixCacheScorer.DEFAULT_LRU_CAPACITY_PER_SERVER, 1, 10_000_000);
  }

  private static Plugin pdProfileHandler(Parameters p, PluginEnv env) {
    // hashBlockSize and primaryPort: llm-d's, not needed here (the profiles' prefix scorer cuts prompts)
    p.allowOnly("threshold", "transferCost", "costAware", "stallWeight", "splitOverhead", "minPromptTokens",
        "hashBlockSize", "primaryPort");
    return new PdProfileHandler(p.integer("threshold", PdProfileHandler.DEFAULT_THRESHOLD, 0, 10_000_000),
        p.number("transferCost", PdProfileHandler.DEFAULT_TRANSFER_COST, 0.0, 1000.0), p.bool("costAware", true),
        p.number("stallWeight", PdProfileHandler.DEFAULT_STALL_WEIGHT, 0.0, 1000.0),
        p.integer("splitOverhead", PdProfileHandler.DEFAULT_SPLIT_OVERHEAD, 0, 10_000_000),
        p.integer("minPromptTokens", 0, 0, 10_000_000));
  }

  private static Plugin sessionAffinityScorer(Parameters p, PluginEnv env) {
    p.movedTo(Map.of("sessionHeader", SESSION_PRODUCER, "useUserField", SESSION_PRODUCER));
    p.allowOnly("balance", "maxQueue", "maxKvCacheUsage");
    return new SessionAffinityScorer(p.number("balance", SessionAffinityScorer.DEFAULT_BALANCE, 1.0, 100.0),
        p.integer("maxQueue", 5, 1, 1_000_000), p.number("maxKvCacheUsage", 0.8, 0.01, 1.0));
  }

  /** What a configuration assembles to: the profile every request is routed by, and the split of its prompts. */
  public record Assembled(SchedulingProfile profile, Disaggregation disaggregation) {}

  /**
   * The profile every request is routed by, with its plugins built and the required filters added: the one profile
   * the configuration defines, or, with a {@code pd-profile-handler}, its {@code decode} profile.
   *
   * @param warn told of what the configuration declares but does not use
   * @throws IllegalArgumentException naming the configuration, the plugin or profile, and what is wrong
   */
  public SchedulingProfile build(SchedulingConfig config, PluginEnv env, Consumer<String> warn) {
    return assemble(config, env, warn).profile();
  }

  /** As {@link #build}, with the {@code prefill} profile and the handler when the configuration disaggregates. */
  public Assembled assemble(SchedulingConfig config, PluginEnv env, Consumer<String> warn) {
    try {
      return assembleAll(config, env, warn);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(config.source() + ": " + e.getMessage(), e);
    }
  }

  private Assembled assembleAll(SchedulingConfig config, PluginEnv env, Consumer<String> warn) {
    Map<String, Built> byName = new LinkedHashMap<>();
    for (PluginSpec spec : config.plugins()) {
      Factory f = factories.get(spec.type());
      if (f == null) {
        throw new IllegalArgumentException("plugin type '" + spec.type() + "' is not known; known types: "
            + types());
      }
      PluginId id = new PluginId(spec.type(), spec.name());
      if (byName.put(spec.name(),
          new Built(id, f.create(new Parameters(id.toString(), spec.parameters()), env))) != null) {
        throw new IllegalArgumentException("two plugins are named '" + spec.name() + "'; give each a unique name");
      }
    }
    PdProfileHandler handler = null;
    for (Built b : byName.values()) {
      if (b.plugin() instanceof PdProfileHandler h) {
        if (handler != null) {
          throw new IllegalArgumentException("lists two " + PdProfileHandler.TYPE + " plugins; one decides");
        }
        handler = h;
      }
    }
    Set<String> used = new HashSet<>();
    Assembled out;
    if (handler == null) {
      if (config.profiles().size() != 1) {
        throw new IllegalArgumentException(config.profiles().isEmpty()
            ? "schedulingProfiles is empty; define one profile"
            : "defines " + config.profiles().size() + " scheduling profiles; without a " + PdProfileHandler.TYPE
                + " this EPP runs one profile for every request (single-profile-handler), so define exactly one");
      }
      out = new Assembled(profile(config.profiles().getFirst(), byName, env, used), Disaggregation.NONE);
    } else {
      Map<String, ProfileSpec> named = new LinkedHashMap<>();
      config.profiles().forEach(p -> named.put(p.name(), p));
      if (config.profiles().size() != 2 || !named.containsKey(PdProfileHandler.PREFILL_PROFILE)
          || !named.containsKey(PdProfileHandler.DECODE_PROFILE)) {
        throw new IllegalArgumentException("lists a " + PdProfileHandler.TYPE + ", so it must define exactly two "
            + "scheduling profiles, '" + PdProfileHandler.PREFILL_PROFILE + "' and '" + PdProfileHandler.DECODE_PROFILE
            + "'; it defines " + named.keySet());
      }
      SchedulingProfile decode = profile(named.get(PdProfileHandler.DECODE_PROFILE), byName, env, used);
      SchedulingProfile prefill = profile(named.get(PdProfileHandler.PREFILL_PROFILE), byName, env, used);
      PrefixHasher a = decode.prefixHasher();
      PrefixHasher b = prefill.prefixHasher();
      if (a != null && b != null && (a.blockBytes() != b.blockBytes() || a.maxBytes() != b.maxBytes())) {
        // a request's prompt blocks are hashed once, as the decode profile cuts them
        throw new IllegalArgumentException("the prefill and decode profiles' prefix scorers cut prompts differently ("
            + b.blockBytes() + " and " + a.blockBytes() + " bytes a block); give them the same blockSize and "
            + "maxPrefixBlocksToMatch, or one shared prefix scorer");
      }
      out = new Assembled(decode, new Disaggregation(handler, prefill));
    }
    byName.forEach((name, b) -> {
      if (!used.contains(name) && !(b.plugin() instanceof SingleProfileHandler)
          && !(b.plugin() instanceof PdProfileHandler)) {
        warn.accept(config.source() + ": plugin " + b.id() + " is declared but no profile uses it");
      }
    });
    return out;
  }

  private SchedulingProfile profile(ProfileSpec profile, Map<String, Built> byName, PluginEnv env, Set<String> used) {
    List<SchedulingProfile.Step<Filter>> filters = new ArrayList<>();
    List<SchedulingProfile.Step<Scorer>> scorers = new ArrayList<>();
    SchedulingProfile.Step<Picker> picker = null;
    Set<String> listed = new HashSet<>();
    for (ProfileSpec.Ref ref : profile.plugins()) {
      Built b = byName.get(ref.pluginRef());
      if (b == null) {
        throw new IllegalArgumentException("profile " + profile.name() + " refers to plugin '" + ref.pluginRef()
            + "', which the plugins list does not define");
      }
      if (!listed.add(ref.pluginRef())) {
        throw new IllegalArgumentException("profile " + profile.name() + " lists plugin '" + ref.pluginRef()
            + "' twice");
      }
      used.add(ref.pluginRef());
      String where = "profile " + profile.name() + ", plugin " + b.id();
      if (ref.weight() != null && !(b.plugin() instanceof Scorer)) {
        throw new IllegalArgumentException(where + ": only scorers take a weight");
      }
      switch (b.plugin()) {
        case Filter f -> filters.add(step("filter", b.id(), f, 0, env));
        case Scorer s -> {
          double weight = ref.weight() == null ? 1 : ref.weight();
          if (!(weight >= 0 && weight <= 1_000_000)) {
            throw new IllegalArgumentException(where + ": weight " + ref.weight() + " is not between 0 and 1000000");
          }
          scorers.add(step("scorer", b.id(), s, weight, env));
        }
        case Picker p -> {
          if (picker != null) {
            throw new IllegalArgumentException("profile " + profile.name() + " has two pickers: " + picker.id()
                + " and " + b.id());
          }
          picker = step("picker", b.id(), p, 0, env);
        }
        default -> throw new IllegalArgumentException(where + ": a " + b.id().type()
            + " is not a filter, scorer or picker and does not belong in a profile");
      }
    }
    if (picker == null) {
      picker = step("picker", new PluginId(MaxScorePicker.TYPE, MaxScorePicker.TYPE),
          new MaxScorePicker(env.maxEndpoints(), env.random()), 0, env);
    }
    return new SchedulingProfile(profile.name(), withRequiredFilters(filters, env), scorers, picker, env.ticker());
  }

  /** The required filters the profile did not list go first, in their order; listed ones stay where listed. */
  private List<SchedulingProfile.Step<Filter>> withRequiredFilters(List<SchedulingProfile.Step<Filter>> listed,
      PluginEnv env) {
    List<SchedulingProfile.Step<Filter>> out = new ArrayList<>();
    for (String type : REQUIRED_FILTERS) {
      if (listed.stream().noneMatch(s -> s.id().type().equals(type))) {
        Filter f = (Filter) factories.get(type).create(new Parameters(type, Map.of()), env);
        out.add(step("filter", new PluginId(type, type), f, 0, env));
      }
    }
    out.addAll(listed);
    return out;
  }

  private static <T extends Plugin> SchedulingProfile.Step<T> step(String point, PluginId id, T plugin, double weight,
      PluginEnv env) {
    return new SchedulingProfile.Step<>(id, plugin, weight, env.timings().sink(point, id));
  }

  private record Built(PluginId id, Plugin plugin) {}
}
