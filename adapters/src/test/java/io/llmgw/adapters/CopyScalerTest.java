package io.llmgw.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Copies follow use, on real simulated pods, with the ticks and the clock driven by the test. */
class CopyScalerTest extends SimPodsTestBase {
  @Test
  void aRecentlyUsedAdapterGetsASecondCopyABusyOneAThirdAndAnIdleOneDropsBackToOne() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults());
    CopySettings settings = new CopySettings(2, Duration.ofMinutes(5), 4, 3, Duration.ofSeconds(10));
    CopyScaler scaler = new CopyScaler(m, () -> List.of(new LoadableAdapter("hot", "hf://org/hot", this::endpoints)),
        settings, clock);
    String first = m.loads().ensureLoaded("hot", "hf://org/hot", this::endpoints).get(5, TimeUnit.SECONDS);
    m.usage().used(first, "hot");
    m.usage().used(first, "hot");
    scaler.tick();
    assertThat(runtime.loads).as("loaded and used twice: 3 uses, not yet the 4 worth a second copy").hasSize(1);
    m.usage().used(first, "hot");
    clock.advance(Duration.ofSeconds(10));

    scaler.tick();
    await().atMost(Duration.ofSeconds(5)).until(() -> holders("hot").size() == 2);
    scaler.tick();
    assertThat(runtime.loads).as("two copies are enough while it is not busy").hasSize(2);

    inFlight.put(first + "/hot", 3);
    scaler.tick();
    assertThat(runtime.loads).as("busy on one tick only: wait").hasSize(2);
    scaler.tick();
    await().atMost(Duration.ofSeconds(5)).until(() -> holders("hot").size() == 3);

    inFlight.clear();
    clock.advance(Duration.ofMinutes(6));
    scaler.tick();
    await().atMost(Duration.ofSeconds(5)).until(() -> models(IPS.get(0)).size() + models(IPS.get(1)).size()
        + models(IPS.get(2)).size() == 1);
    assertThat(runtime.unloads).hasSize(2);
  }

  @Test
  void aRecentlyUsedAdapterThatWasPagedOutIsLoadedBackIntoFreeRoomBeforeAnyoneAsks() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults());
    CopyScaler scaler = new CopyScaler(m, () -> List.of(new LoadableAdapter("back", "hf://org/back", this::endpoints)),
        new CopySettings(1, Duration.ofMinutes(5), 2, 100, Duration.ofSeconds(10)), clock);
    String first = m.loads().ensureLoaded("back", "hf://org/back", this::endpoints).get(5, TimeUnit.SECONDS);
    m.usage().used(first, "back");
    m.eviction().unloadWhereIdle("back", endpoints());
    await().atMost(Duration.ofSeconds(5)).until(() -> models(first.split(":")[0]).isEmpty());
    clock.advance(Duration.ofSeconds(11)); // past our own unload's stand-in: only the pods' lists count
    scaler.tick();
    await().atMost(Duration.ofSeconds(5)).until(() -> holders("back").size() == 1);
    assertThat(runtime.loads).hasSize(2);
  }
}
