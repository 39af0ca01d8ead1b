package io.llmgw.extproc.state;

import io.llmgw.api.LogSampler;
import io.llmgw.api.PodInfo;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of its pool's target ports a pod serves on now, from llm-d's {@code llm-d.ai/active-ports} annotation: each
 * data-parallel rank listens on its own port and is an endpoint of its own, and a rank not listed takes no traffic. A pod
 * without the annotation serves on every target port. An entry that is not a target port is left out and named in a
 * warning (llm-d drops it silently).
 */
final class ActivePorts {
  private static final Logger LOG = LoggerFactory.getLogger(ActivePorts.class);
  private static final LogSampler SAMPLER = LogSampler.everyTenSeconds();
  /** More entries than any pool has ports is garbage, not a configuration: read no further. */
  private static final int MAX_ENTRIES = 256;

  private ActivePorts() {}

  static List<Integer> of(PodInfo pod, List<Integer> targetPorts) {
    String value = pod.activePorts();
    if (value == null) {
      return targetPorts;
    }
    List<Integer> out = new ArrayList<>(targetPorts.size());
    List<String> ignored = new ArrayList<>();
    String[] entries = value.split(",", MAX_ENTRIES + 1);
    for (int i = 0; i < Math.min(entries.length, MAX_ENTRIES); i++) {
      String entry = entries[i].strip();
      Integer port = parse(entry);
      if (port != null && targetPorts.contains(port)) {
        if (!out.contains(port)) {
          out.add(port);
        }
      } else if (!entry.isEmpty()) {
        ignored.add(entry.length() > 16 ? entry.substring(0, 16) + "…" : entry);
      }
    }
    if (!ignored.isEmpty() || entries.length > MAX_ENTRIES) {
      long skipped = SAMPLER.admit("active-ports");
      if (skipped >= 0) {
        LOG.warn("pod {}/{}: annotation {} names {} that {} not among its pool's target ports {}; it serves on {}{}",
            pod.namespace(), pod.name(), PodInfo.ACTIVE_PORTS_ANNOTATION, ignored.size() > 8
                ? ignored.subList(0, 8) + " and more" : ignored,
            ignored.size() == 1 ? "is" : "are", targetPorts,
            out.isEmpty() ? "no port (no traffic)" : out, skipped > 0 ? " (" + skipped + " such lines left out)" : "");
      }
    }
    return out;
  }

  private static Integer parse(String entry) {
    // ASCII digits only: Character.isDigit and parseInt take other scripts' digits too ("３０００" would be 3000)
    if (entry.isEmpty() || entry.length() > 5 || !entry.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return null;
    }
    return Integer.parseInt(entry);
  }
}
