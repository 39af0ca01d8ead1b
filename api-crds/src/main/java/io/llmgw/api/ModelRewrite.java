package io.llmgw.api;

import java.util.ArrayList;

import java.util.List;

/**
 * {@code llm-d.ai InferenceModelRewrite}: llm-d's traffic splitting. Each rule matches requests by the body's model
 * name (exactly; a rule with no matches takes every request to the pool) and sends them to one of its targets by weight.
 * A rule is served as a route of its own ({@link #routes}), so a rewrite and an LLMRoute with targets behave alike.
 */
public record ModelRewrite(String namespace, String name, String poolName, List<Rule> rules) {
  /** The model name of the route a rule without matches becomes: it answers every model no other route names. */
  public static final String ANY_MODEL = "*";

  /** One rule: the model names it matches (empty: any) and its weighted targets. */
  public record Rule(List<String> models, List<AdapterTarget> targets) {
    public Rule {
      models = List.copyOf(models);
      targets = List.copyOf(targets);
    }

    public boolean anyModel() {
      return models.isEmpty();
    }
  }

  public ModelRewrite {
    rules = List.copyOf(rules);
  }

  public PoolKey pool() {
    return new PoolKey(namespace, poolName);
  }

  /**
   * The routes this rewrite's rules become, in rule order: one per matched model name, and one named
   * {@link #ANY_MODEL} for a rule without matches. Callers give precedence as llm-d does: an exact match over a rule
   * without matches, then the oldest rewrite, then the first rule.
   */
  public List<LLMRoute> routes() {
    ArrayList<LLMRoute> out = new ArrayList<>();
    for (Rule rule : rules) {
      for (String model : rule.anyModel() ? List.of(ANY_MODEL) : rule.models()) {
        out.add(new LLMRoute(namespace, name, List.of(poolName), new RouteAdapter(model, 0, List.of(),
            rule.targets())));
      }
    }
    return out;
  }
}
