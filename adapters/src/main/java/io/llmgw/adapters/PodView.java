package io.llmgw.adapters;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * One pod as placement sees it: reachable or not, the adapters it holds (as it reports them, corrected by the loads and
 * unloads this gateway has made since), loads running on it, when each adapter was last used there, and how many
 * requests each adapter has in flight there, the adapters that must not be unloaded (a rollout's versions), and how
 * many adapters it holds at most.
 */
record PodView(String address, boolean healthy, Set<String> resident, int loading, Map<String, Instant> lastUse,
    Map<String, Integer> inFlight, Set<String> pinned, int capacity) {}
