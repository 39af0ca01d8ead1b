package io.llmgw.api.crd;

import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** A reference by name to an object in the same namespace, with optional group and kind as Gateway API writes them. */
public record ObjectRef(
    @Required @Pattern(CrdNames.NAME_PATTERN) String name,
    String group,
    String kind) {}
// @formatter:on
