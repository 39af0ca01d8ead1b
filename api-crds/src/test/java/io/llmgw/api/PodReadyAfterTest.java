package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 52: a pod's creation-to-Ready time is its pool's load time when the pool declares none. */
class PodReadyAfterTest {
  static final String POD = """
      apiVersion: v1
      kind: Pod
      metadata: {name: p0, labels: {app: sim}, creationTimestamp: "2026-11-29T01:00:00Z"}
      status:
        podIP: 127.0.0.11
        phase: Running
        conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-11-29T01:01:30Z"}]
      """;

  private static PodInfo pod(String yaml) throws ConfigException {
    return ConfigFileLoader.parse("f.yaml", ConfigFileLoaderTest.docs(ConfigFileLoaderTest.POOL, yaml)).pods()
        .getFirst();
  }

  @Test
  void fromCreationToTheReadyCondition() throws Exception {
    assertThat(pod(POD).readyAfter()).isEqualTo(Duration.ofSeconds(90));
    assertThat(pod(ConfigFileLoaderTest.POD).readyAfter()).as("no timestamps").isNull();
    assertThat(pod(POD.replace("status: \"True\"", "status: \"False\"")).readyAfter()).as("not ready").isNull();
  }

  @Test
  void spansThatSayNothingAboutLoadingAreDropped() {
    assertThat(PodInfo.readyAfter("2026-11-29T01:00:00Z", "2026-11-28T23:00:00Z")).as("negative").isNull();
    assertThat(PodInfo.readyAfter("2026-11-20T01:00:00Z", "2026-11-29T01:00:00Z")).as("days later").isNull();
    assertThat(PodInfo.readyAfter("not a time", "2026-11-29T01:00:00Z")).isNull();
  }

  @Test
  void aTimestampThatIsNotOneIsRefusedByName() {
    assertThatThrownBy(() -> pod(POD.replace("2026-11-29T01:01:30Z", "yesterday")))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.getMessage())
            .contains("status.conditions[0].lastTransitionTime", "'yesterday'", "RFC 3339"));
    assertThatThrownBy(() -> pod(POD.replace("2026-11-29T01:00:00Z", "2026-13-40")))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.getMessage())
            .contains("metadata.creationTimestamp", "'2026-13-40'"));
  }
}
