package io.llmgw.adapters;

import io.llmgw.picker.EndpointState;
import java.util.List;
import java.util.function.Supplier;

/** An adapter some route serves with a {@code source} to load it from, and the endpoints of that route's pools. */
public record LoadableAdapter(String name, String source, Supplier<List<EndpointState>> endpoints) {}
