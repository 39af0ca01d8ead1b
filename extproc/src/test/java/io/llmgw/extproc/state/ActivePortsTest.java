package io.llmgw.extproc.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.PodInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 48: llm-d's active-ports annotation, and what garbage in it gets: left out, never a crash or a port added. */
class ActivePortsTest {
  static final List<Integer> TARGETS = List.of(3000, 3002, 3004);

  static List<Integer> of(String annotation) {
    return ActivePorts.of(new PodInfo("ns", "p", Map.of(), "10.0.0.1", "Running", true, annotation), TARGETS);
  }

  @Test
  void withoutTheAnnotationEveryTargetPortServesAndWithItOnlyThoseListed() {
    assertThat(of(null)).isEqualTo(TARGETS);
    assertThat(of("3004, 3000")).containsExactly(3004, 3000);
    assertThat(of("3000,3000")).as("listed twice, one endpoint").containsExactly(3000);
  }

  @Test
  void garbageIsLeftOut() {
    assertThat(of("")).as("an empty annotation lists no port").isEmpty();
    assertThat(of(" , ,")).isEmpty();
    assertThat(of("3001")).as("not a target port").isEmpty();
    assertThat(of("-3000,+3002,3004.0,0x0BB8,65536,99999999999999,３０００")).isEmpty();
    assertThat(of("3000," + "x,".repeat(10_000) + "3002")).as("read no further than 256 entries")
        .containsExactly(3000);
  }
}
