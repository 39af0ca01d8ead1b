package io.llmgw.api.crd;

/** API groups and versions of our kinds, shared by the CRD classes, the file loader and the informers. */
public final class CrdNames {
  public static final String ROUTE_GROUP = "inference.x-k8s.io";
  public static final String ROUTE_VERSION = "v1alpha1";
  public static final String POOL_GROUP = "inference.networking.k8s.io";
  public static final String POOL_VERSION = "v1";
  public static final String OBJECTIVE_GROUP = "inference.networking.x-k8s.io";
  public static final String OBJECTIVE_VERSION = "v1alpha2";
  /** llm-d-router's group for InferenceObjective and InferenceModelRewrite, at the version its CRDs serve. */
  public static final String LLMD_GROUP = "llm-d.ai";
  public static final String LLMD_VERSION = "v1alpha2";
  /** A DNS-1123 subdomain, as Kubernetes requires for object names. */
  public static final String NAME_PATTERN = "^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$";
  /** Go-style durations such as {@code 2s}, {@code 500ms}, {@code 1m30s}. */
  public static final String DURATION_PATTERN = "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$";

  private CrdNames() {}
}
