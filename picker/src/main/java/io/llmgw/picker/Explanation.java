package io.llmgw.picker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Why one scheduling cycle chose what it chose: the candidates, which each filter kept, what each scorer gave each pod
 * (with its weight), the weighted totals and the ranking. Filled by {@link SchedulingProfile#schedule(PickRequest,
 * List, Explanation)} only when a caller passes one: a decision nobody asks about records and allocates nothing.
 */
public final class Explanation {
  /**
   * The addresses a filter kept (all of them when it kept all), of how many it was given, and how many went on to the
   * next step: a preference filter that keeps none passes its candidates on (best effort).
   */
  public record Filtered(String filter, List<String> kept, int considered, int passedOn) {
    /** "kept 1 of 4", or "kept none of 4 (best effort: all 4 go on)": a line a newcomer reads right. */
    public String text() {
      if (!kept.isEmpty()) {
        return filter + " kept " + kept.size() + " of " + considered;
      }
      return filter + " kept none of " + considered + (passedOn == 0 ? ""
          : passedOn == considered ? " (best effort: all " + considered + " go on)"
          : " (best effort: " + passedOn + " go on)");
    }
  }

  /** A scorer's weight and its score for each candidate, by address. */
  public record Scored(String scorer, double weight, Map<String, Double> scores) {}

  /**
   * The cycle as it ran.
   *
   * @param totals each remaining candidate's weighted sum
   * @param ranked primary first, then the fallbacks
   * @param noEndpoint why no endpoint could serve, or null when one was picked
   */
  public record Snapshot(List<String> candidates, List<Filtered> filters, List<Scored> scorers,
      Map<String, Double> totals, List<String> ranked, String noEndpoint) {}

  private List<String> candidates = List.of();
  private final List<Filtered> filters = new ArrayList<>();
  private final List<Scored> scorers = new ArrayList<>();
  private Map<String, Double> totals = Map.of();
  private List<String> ranked = List.of();
  private String noEndpoint;

  void candidates(List<EndpointState> pool) {
    candidates = addresses(pool);
  }

  void filtered(PluginId filter, List<EndpointState> kept, int considered, int passedOn) {
    filters.add(new Filtered(filter.toString(), addresses(kept), considered, passedOn));
  }

  void scored(PluginId scorer, double weight, List<EndpointState> candidates, double[] scores) {
    scorers.add(new Scored(scorer.toString(), weight, byAddress(candidates, scores)));
  }

  void picked(List<EndpointState> candidates, double[] total, List<EndpointState> order) {
    totals = byAddress(candidates, total);
    ranked = addresses(order);
  }

  void none(String why) {
    noEndpoint = why;
  }

  public Snapshot snapshot() {
    return new Snapshot(candidates, List.copyOf(filters), List.copyOf(scorers), totals, ranked, noEndpoint);
  }

  private static List<String> addresses(List<EndpointState> states) {
    List<String> out = new ArrayList<>(states.size());
    states.forEach(s -> out.add(s.address()));
    return List.copyOf(out);
  }

  private static Map<String, Double> byAddress(List<EndpointState> candidates, double[] values) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (int i = 0; i < candidates.size(); i++) {
      out.put(candidates.get(i).address(), Math.round(values[i] * 1e4) / 1e4);
    }
    return out;
  }
}
