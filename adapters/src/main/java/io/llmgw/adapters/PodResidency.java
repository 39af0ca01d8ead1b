package io.llmgw.adapters;

import java.util.List;
import java.util.Map;

/**
 * One pod in the residency registry: what it holds (as it reports, corrected by our last seconds of actions), which of
 * those its batch is using (the GPU tier: running or queued adapters), what is loading there, and the adapters that
 * failed to load there while their records last.
 */
public record PodResidency(String address, int capacity, List<String> resident, List<String> active,
    List<String> loading, Map<String, String> failed) {}
