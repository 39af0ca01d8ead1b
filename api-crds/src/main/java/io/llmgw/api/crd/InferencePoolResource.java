package io.llmgw.api.crd;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The upstream {@code InferencePool} (gateway-api-inference-extension v1). Its schema follows upstream's, so pools
 * written for GIE's picker work unchanged; where upstream's CRD is installed already, keep it — ours adds nothing.
 */
@Group(CrdNames.POOL_GROUP)
@Version(CrdNames.POOL_VERSION)
@Kind("InferencePool")
@Plural("inferencepools")
public class InferencePoolResource extends CustomResource<InferencePoolSpec, InferencePoolStatus>
    implements Namespaced {}
