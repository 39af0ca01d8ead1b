package io.llmgw.api;

/** One concrete adapter version behind a route, its traffic weight, and where its weights live ({@code source}, may be null). */
public record AdapterTarget(String name, int weight, String source) {}
