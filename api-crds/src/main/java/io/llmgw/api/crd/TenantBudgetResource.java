package io.llmgw.api.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** The {@code TenantBudget} custom resource: one tenant's token budget; its CRD is generated from this class. */
@Group(CrdNames.ROUTE_GROUP)
@Version(CrdNames.ROUTE_VERSION)
@Kind("TenantBudget")
@Plural("tenantbudgets")
@AdditionalPrinterColumn(name = "Tokens/min", jsonPath = ".spec.tokensPerMinute",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Over budget", jsonPath = ".spec.overBudget")
public class TenantBudgetResource extends CustomResource<TenantBudgetSpec, Void> implements Namespaced {}
