package io.llmgw.extproc.control.cluster;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.llmgw.api.crd.CrdNames;

/** How the informers and the status writer address our kinds as generic resources. */
public final class Kinds {
  public static final ResourceDefinitionContext POOL = context(CrdNames.POOL_GROUP, CrdNames.POOL_VERSION,
      "InferencePool",
      "inferencepools");
  public static final ResourceDefinitionContext ROUTE = context(CrdNames.ROUTE_GROUP, CrdNames.ROUTE_VERSION,
      "LLMRoute",
      "llmroutes");
  public static final ResourceDefinitionContext OBJECTIVE = context(CrdNames.OBJECTIVE_GROUP,
      CrdNames.OBJECTIVE_VERSION,
      "InferenceObjective", "inferenceobjectives");
  /** llm-d-router's InferenceObjective, read beside GIE's; a GIE objective keeps its name when both use it. */
  public static final ResourceDefinitionContext LLMD_OBJECTIVE = context(CrdNames.LLMD_GROUP, CrdNames.LLMD_VERSION,
      "InferenceObjective", "inferenceobjectives");
  public static final ResourceDefinitionContext LLMD_REWRITE = context(CrdNames.LLMD_GROUP, CrdNames.LLMD_VERSION,
      "InferenceModelRewrite", "inferencemodelrewrites");
  public static final ResourceDefinitionContext BUDGET = context(CrdNames.ROUTE_GROUP, CrdNames.ROUTE_VERSION,
      "TenantBudget", "tenantbudgets");

  private Kinds() {}

  private static ResourceDefinitionContext context(String group, String version, String kind, String plural) {
    return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind)
        .withPlural(plural).withNamespaced(true).build();
  }

  /** One object of a kind, as the store and the status writer index it. */
  record Key(String namespace, String name) {
    @Override
    public String toString() {
      return namespace + "/" + name;
    }
  }

  static Key key(String namespace, String name) {
    return new Key(namespace, name);
  }
}
