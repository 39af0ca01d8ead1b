package io.llmgw.picker;

import io.llmgw.picker.latency.LoadSnapshot;
import io.llmgw.picker.pickers.Picker;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * One scheduling cycle, as the reference EPP runs it: filters narrow the candidates in order, scorers score what is
 * left (weighted sum), the picker chooses the primary and its fallbacks, and scorers that learn are told the choice.
 * Each plugin's running time goes to its duration sink. Assembled by {@code config.PluginRegistry}; immutable.
 */
public final class SchedulingProfile {
  /** One plugin in the profile: who it is, the plugin, its weight (scorers), where its durations go. */
  public record Step<T extends Plugin>(PluginId id, T plugin, double weight, LongConsumer durations) {
    boolean timed() {
      return durations != PluginTimings.NOT_TIMED;
    }
  }

  private final String name;
  private final List<Step<Filter>> filters;
  private final List<Step<Scorer>> scorers;
  private final Step<Picker> picker;
  private final Ticker ticker;
  private final boolean timed;
  private final PrefixView prefixView;

  public SchedulingProfile(String name, List<Step<Filter>> filters, List<Step<Scorer>> scorers, Step<Picker> picker,
      Ticker ticker) {
    this.name = name;
    this.filters = List.copyOf(filters);
    this.scorers = List.copyOf(scorers);
    this.picker = picker;
    this.ticker = ticker;
    this.timed = picker.timed() || filters.stream().anyMatch(Step::timed) || scorers.stream().anyMatch(Step::timed);
    PrefixView view = null;
    for (Step<Scorer> s : scorers) {
      if (s.plugin() instanceof PrefixView v && view == null) {
        view = v;
      }
    }
    this.prefixView = view;
  }

  public PickOutcome schedule(PickRequest request, List<EndpointState> pool) {
    return schedule(request, pool, null);
  }

  public PickOutcome schedule(PickRequest request, List<EndpointState> pool, Explanation explain) {
    return schedule(request, pool, explain, true);
  }

  /**
   * @param explain told what each step did, or null when nobody asks (then nothing is recorded)
   * @param timedRequest whether this request is one whose plugins are timed (the others read no clock)
   */
  public PickOutcome schedule(PickRequest request, List<EndpointState> pool, Explanation explain,
      boolean timedRequest) {
    PickOutcome outcome = rank(request, pool, explain, timedRequest);
    if (outcome instanceof PickOutcome.Picked picked) {
      recordPick(request, picked.decision().primary());
    }
    return outcome;
  }

  /** The scorers that learn (a prefix index) are told the request goes to {@code primary}. */
  public void recordPick(PickRequest request, EndpointState primary) {
    for (Step<Scorer> s : scorers) {
      s.plugin().onPicked(request, primary);
    }
  }

  /**
   * Filters, scores and picks, as {@link #schedule} does, without telling the scorers: for a pick that may not be
   * used (a prefill pod the request may not be split to).
   */
  public PickOutcome rank(PickRequest request, List<EndpointState> pool, Explanation explain, boolean timedRequest) {
    if (explain != null) {
      explain.candidates(pool);
    }
    if (pool.isEmpty()) {
      return explained(explain,
          new PickOutcome.NoEndpoint(PickOutcome.NoEndpoint.NO_READY_ENDPOINT, "its pool has no ready pods"));
    }
    List<EndpointState> candidates = pool;
    // one ticker read per plugin boundary: a plugin's duration is the time since the previous timed boundary
    boolean timing = timed && timedRequest;
    long mark = timing ? ticker.nanos() : 0;
    for (Step<Filter> f : filters) {
      if (!f.plugin().applies(request)) {
        continue;
      }
      List<EndpointState> kept = filter(f.plugin(), request, candidates);
      mark = lap(timing, f, mark);
      int considered = candidates.size();
      if (kept.isEmpty()) {
        PickOutcome.NoEndpoint none = f.plugin().whyNone(request, candidates);
        if (none != null) {
          if (explain != null) {
            explain.filtered(f.id(), kept, considered, 0);
          }
          return explained(explain, none);
        }
        candidates = f.plugin().bestEffort(request, candidates);
      } else {
        candidates = kept;
      }
      if (explain != null) {
        explain.filtered(f.id(), kept, considered, candidates.size());
      }
    }
    int n = candidates.size();
    double[] total = new double[n];
    double[] partial = scorers.isEmpty() ? null : new double[n];
    for (Step<Scorer> s : scorers) {
      s.plugin().score(request, candidates, partial);
      for (int i = 0; i < n; i++) {
        total[i] += s.weight() * partial[i];
      }
      mark = lap(timing, s, mark);
      if (explain != null) {
        explain.scored(s.id(), s.weight(), candidates, partial);
      }
    }
    List<EndpointState> ranked = picker.plugin().pick(request, candidates, total);
    lap(timing, picker, mark);
    if (explain != null) {
      explain.picked(candidates, total, ranked);
    }
    EndpointState primary = ranked.getFirst();
    // what the request meets there, before it is recorded there (recordPick)
    LoadSnapshot load = loadFor(request.model(), request.prefixBlocks(), primary);
    return new PickOutcome.Picked(new Decision(ranked), load, new Scored(candidates, total));
  }

  private static PickOutcome explained(Explanation explain, PickOutcome.NoEndpoint none) {
    if (explain != null) {
      explain.none(none.code() + ": " + none.detail());
    }
    return none;
  }

  /**
   * The endpoint's load as a request for {@code model} whose prompt hashes to {@code prefixBlocks} would meet it: its
   * adapter's place in the batch and the share of its prompt the profile's prefix index believes cached there (0
   * without a prefix-tracking scorer).
   */
  public LoadSnapshot loadFor(String model, long[] prefixBlocks, EndpointState e) {
    return LoadSnapshot.of(e, model, prefixView == null ? 0 : prefixView.cachedShare(e.address(), prefixBlocks));
  }

  /** Records the step's duration since {@code mark} when it is timed; the next mark. */
  private long lap(boolean timing, Step<?> step, long mark) {
    if (!timing) {
      return 0;
    }
    long now = ticker.nanos();
    if (step.timed()) {
      step.durations().accept(now - mark);
    }
    return now;
  }

  /** The candidates the filter keeps; the same list, not a copy, when it keeps them all. */
  private static List<EndpointState> filter(Filter f, PickRequest request, List<EndpointState> candidates) {
    List<EndpointState> kept = null;
    for (int i = 0; i < candidates.size(); i++) {
      EndpointState e = candidates.get(i);
      boolean keep = f.keep(request, e);
      if (!keep && kept == null) {
        kept = new ArrayList<>(candidates.subList(0, i));
      } else if (keep && kept != null) {
        kept.add(e);
      }
    }
    return kept == null ? candidates : kept;
  }

  /** The hasher of the profile's first {@link PrefixView} scorer; null when no scorer looks at the prompt. */
  public PrefixHasher prefixHasher() {
    return prefixView == null ? null : prefixView.hasher();
  }

  /** Every filter, scorer and picker, for the attributes they consume. */
  public List<Plugin> allPlugins() {
    List<Plugin> out = new ArrayList<>();
    filters.forEach(f -> out.add(f.plugin()));
    scorers.forEach(s -> out.add(s.plugin()));
    out.add(picker.plugin());
    return out;
  }

  /** Endpoints that left: scorers forget what they learned about them. */
  public void retainOnly(Set<String> addresses) {
    for (Step<Scorer> s : scorers) {
      s.plugin().retainOnly(addresses);
    }
  }

  public String name() {
    return name;
  }

  /** Every plugin in running order, for logs and the status page. */
  public List<PluginId> plugins() {
    List<PluginId> out = new ArrayList<>();
    filters.forEach(f -> out.add(f.id()));
    scorers.forEach(s -> out.add(s.id()));
    out.add(picker.id());
    return out;
  }

  /** The profile in running order, scorers with their weights: {@code default: subset-hint-filter → … → queue-scorer ×2 → …}. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    filters.forEach(f -> parts.add(f.id().toString()));
    scorers.forEach(s -> parts.add(s.id() + " ×" + (s.weight() == Math.rint(s.weight())
        ? Long.toString((long) s.weight()) : Double.toString(s.weight()))));
    parts.add(picker.id().toString());
    return name + ": " + String.join(" → ", parts);
  }
}
