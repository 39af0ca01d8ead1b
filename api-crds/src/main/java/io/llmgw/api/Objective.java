package io.llmgw.api;

import java.time.Duration;

/** A latency objective such as {@code OutputTokenLatency 2s at p99}. */
public record Objective(String type, Duration latency, int quantileNumerator) {}
