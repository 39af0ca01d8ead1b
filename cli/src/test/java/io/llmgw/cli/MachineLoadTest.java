package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 32, item 6: the quickstart says when the machine, not the gateway, made its latencies. */
class MachineLoadTest {
  @Test
  void aLoadPastOneAndAHalfRunnableThreadsPerProcessorIsSaidAndAQuietMachineIsNot() {
    assertThat(MachineLoad.note(5.2, 2)).contains("load 5.2 on 2 processors", "waiting for a CPU");
    assertThat(MachineLoad.note(2.9, 2)).isNull();
    assertThat(MachineLoad.note(Double.NaN, 2)).as("no /proc/loadavg: nothing said").isNull();
  }
}
