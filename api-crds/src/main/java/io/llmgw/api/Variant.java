package io.llmgw.api;

/**
 * One way to serve a model-less route (INFaaS's variant): a concrete model or adapter in one pool, with its declared
 * quality and price.
 *
 * @param name the model or adapter the pod serves; the body's {@code model} is rewritten to it
 * @param pool one of the route's backendRefs
 * @param accuracy declared quality, 0–1
 * @param costPer1kTokens declared price per 1,000 tokens (prompt and completion)
 * @param source where the adapter's weights live when it may be loaded on demand, or null
 */
public record Variant(String name, String pool, double accuracy, double costPer1kTokens, String source) {}
