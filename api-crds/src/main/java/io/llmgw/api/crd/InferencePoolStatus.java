package io.llmgw.api.crd;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** {@code status} of an InferencePool, as upstream v1: one entry per parent Gateway, written by that Gateway's controller. */
public record InferencePoolStatus(List<Parent> parents) {
  public record Parent(ObjectRef parentRef, String controllerName, List<Condition> conditions) {}
}
