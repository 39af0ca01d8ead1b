package io.llmgw.api.crd;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** The upstream {@code InferenceObjective} (v1alpha2): a priority a request selects with {@code x-gateway-inference-objective}. */
@Group(CrdNames.OBJECTIVE_GROUP)
@Version(CrdNames.OBJECTIVE_VERSION)
@Kind("InferenceObjective")
@Plural("inferenceobjectives")
public class InferenceObjectiveResource extends CustomResource<InferenceObjectiveSpec, Void> implements Namespaced {}
