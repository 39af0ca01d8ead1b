package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Issue 52: a pool's price, load time and replica bounds come from its annotations; garbage is named. */
class PoolAnnotationsTest {
  private static String pool(String annotations) {
    return ConfigFileLoaderTest.POOL.replace("metadata: {name: pool-a}",
        "metadata: {name: pool-a, annotations: {" + annotations + "}}");
  }

  private static PoolCapacity capacity(String annotations) throws ConfigException {
    return ConfigFileLoader.parse("f.yaml", pool(annotations)).pools().getFirst().capacity();
  }

  @Test
  void readsPriceLoadTimeAndBounds() throws Exception {
    PoolCapacity c = capacity("llmgw.io/cost-per-pod-hour: \"3.5\", llmgw.io/pod-load-time: 90s, "
        + "llmgw.io/min-replicas: \"0\", llmgw.io/max-replicas: \"12\", llmgw.io/scale-target: Deployment/vllm-small, "
        + "llmgw.io/max-batch: \"48\"");
    assertThat(c).isEqualTo(new PoolCapacity(3.5, Duration.ofSeconds(90), 0, 12, "Deployment/vllm-small", 48));
    assertThat(c.priced()).isTrue();
  }

  @Test
  void aPoolThatSaysNothingIsUnpricedWithItsLoadTimeMeasuredAndOnePodAtLeast() throws Exception {
    PoolCapacity c = ConfigFileLoader.parse("f.yaml", ConfigFileLoaderTest.POOL).pools().getFirst().capacity();
    assertThat(c).isEqualTo(PoolCapacity.UNDECLARED);
    assertThat(c.price()).isEqualTo(1);
    assertThat(c.loadTime()).isNull();
    assertThat(c.minReplicas()).isEqualTo(1);
    assertThat(c.maxBatch()).as("learned, not declared").isZero();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "llmgw.io/cost-per-pod-hour: \"-1\"|cost-per-pod-hour]|'-1'",
      "llmgw.io/cost-per-pod-hour: NaN|cost-per-pod-hour]|'NaN'",
      "llmgw.io/cost-per-pod-hour: \"1e12\"|cost-per-pod-hour]|'1e12'",
      "llmgw.io/cost-per-pod-hour: cheap|cost-per-pod-hour]|'cheap'",
      "llmgw.io/pod-load-time: \"0s\"|pod-load-time]|'0s'",
      "llmgw.io/pod-load-time: 3h|pod-load-time]|'3h'",
      "llmgw.io/pod-load-time: soon|pod-load-time]|'soon'",
      "llmgw.io/min-replicas: \"-1\"|min-replicas]|'-1'",
      "llmgw.io/max-replicas: \"1.5\"|max-replicas]|'1.5'",
      "llmgw.io/max-replicas: \"99999999999\"|max-replicas]|'99999999999'",
      "llmgw.io/min-replicas: \"5\", llmgw.io/max-replicas: \"2\"|max-replicas]|below",
      "llmgw.io/max-replicas: \"0\"|max-replicas]|below",
      "llmgw.io/scale-target: vllm-small|scale-target]|'vllm-small'",
      "llmgw.io/scale-target: Pod/vllm|scale-target]|'Pod/vllm'",
      "llmgw.io/scale-target: Deployment/Not_A_Name|scale-target]|Not_A_Name",
      "llmgw.io/max-batch: \"0\"|max-batch]|'0'",
      "llmgw.io/max-batch: \"1e6\"|max-batch]|'1e6'",
      "llmgw.io/max-batch: \"100000\"|max-batch]|'100000'",
      "llmgw.io/max-batch: lots|max-batch]|--max-num-seqs"})
  void absurdValuesAreRefusedByName(String annotations, String field, String quoted) {
    assertThatThrownBy(() -> capacity(annotations)).isInstanceOfSatisfying(ConfigException.class,
        e -> assertThat(e.getMessage()).contains("metadata.annotations[llmgw.io/" + field, quoted));
  }
}
