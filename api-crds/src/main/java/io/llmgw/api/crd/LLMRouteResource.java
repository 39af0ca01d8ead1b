package io.llmgw.api.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** The {@code LLMRoute} custom resource; its CRD in {@code deploy/crds} is generated from this class. */
@Group(CrdNames.ROUTE_GROUP)
@Version(CrdNames.ROUTE_VERSION)
@Kind("LLMRoute")
@Plural("llmroutes")
@ShortNames("llmr")
@AdditionalPrinterColumn(name = "Model", jsonPath = ".spec.adapter.name")
@AdditionalPrinterColumn(name = "Priority", jsonPath = ".spec.adapter.priority",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
public class LLMRouteResource extends CustomResource<LLMRouteSpec, RouteStatus> implements Namespaced {
  @Override
  protected RouteStatus initStatus() {
    return new RouteStatus(null);
  }
}
