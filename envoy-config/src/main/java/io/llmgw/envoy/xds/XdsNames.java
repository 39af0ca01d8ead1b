package io.llmgw.envoy.xds;

/** Names of the resources we serve, shared by the snapshot builder, the bootstrap and the tests. */
public final class XdsNames {
  public static final String LISTENER = "llm_gateway";
  public static final String ROUTE_CONFIG = "llm_routes";
  public static final String EPP_CLUSTER = "epp";
  /** Where a request goes before (or without) a matching LLMRoute: the pod the EPP named, through no pool's cluster. */
  public static final String DEFAULT_CLUSTER = "model_servers";
  /** The batch service (`llmgw batch`), when the EPP is told where it is. */
  public static final String BATCH_CLUSTER = "batch_service";
  /** The group every Envoy node is served from: one gateway configuration for all. */
  public static final String NODE_GROUP = "llmgw";

  private XdsNames() {}

  public static String poolCluster(String namespace, String pool) {
    return "pool/" + namespace + "/" + pool;
  }

  public static String routeName(String namespace, String route) {
    return "llmroute/" + namespace + "/" + route;
  }
}
