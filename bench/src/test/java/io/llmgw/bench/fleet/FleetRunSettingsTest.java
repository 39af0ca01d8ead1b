package io.llmgw.bench.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FleetRunSettingsTest {
  @Test
  void replicasStartFromTheAotCacheUnlessAskedToStartCold() {
    assertThat(FleetRun.Settings.parse(new String[] {"replicas=1,8"}).aot()).isTrue();
    assertThat(FleetRun.Settings.parse(new String[] {"aot=off"}).aot()).isFalse();
  }

  @Test
  void garbageIsRefusedNamingTheArgumentAndWhatItTakes() {
    assertThatThrownBy(() -> FleetRun.Settings.parse(new String[] {"aot=maybe"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("aot takes on or off, not 'maybe'");
    assertThatThrownBy(() -> FleetRun.Settings.parse(new String[] {"aot"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown argument 'aot'")
        .hasMessageContaining("aot");
  }
}
