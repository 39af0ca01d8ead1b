package io.llmgw.picker;

/** Keeps or drops one endpoint for one request. */
@FunctionalInterface
public interface Filter {
  boolean keep(PickRequest request, EndpointState endpoint);
}
