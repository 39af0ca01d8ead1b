package io.llmgw.extproc.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.ConfigFileLoader;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.testing.FakeScrapes;
import io.llmgw.picker.AdapterChanges;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Ticker;
import io.llmgw.testing.ManualClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The single source of truth: the topology swapped whole, scrape state, in-flight counts, own adapter changes. */
class DatastoreTest {
  final ManualClock clock = new ManualClock(Instant.parse("2026-11-23T00:00:00Z"));
  final FakeScrapes scrapes = new FakeScrapes(clock);
  /** The gateway loaded "fresh" on 127.0.0.2 a moment ago. */
  final AdapterChanges changes = new AdapterChanges() {
    @Override
    public Boolean lately(String address, String adapter) {
      return address.equals("127.0.0.2:8000") && adapter.equals("fresh") ? Boolean.TRUE : null;
    }

    @Override
    public Set<String> loadedLately(String address) {
      return address.equals("127.0.0.2:8000") ? Set.of("fresh") : Set.of();
    }
  };
  final Datastore datastore = new Datastore(scrapes, changes, Ticker.system(), java.time.Clock.systemUTC());

  private void apply(String yaml) throws Exception {
    datastore.apply(ConfigFileLoader.parse("d.yaml", yaml));
  }

  private static String pool(String name, String... ips) {
    StringBuilder sb = new StringBuilder(FileModeYaml.pool(name, name, 8000));
    for (String ip : ips) {
      sb.append(FileModeYaml.SEPARATOR).append(FileModeYaml.pod(name + ip.replace('.', '-'), name, ip));
    }
    return sb.toString();
  }

  @Test
  void aConfigurationReplacesTheTopologyWholeAndTellsItsListenersAndTheScraper() throws Exception {
    List<Topology> seen = new ArrayList<>();
    datastore.onChange(seen::add);
    assertThat(datastore.loaded()).isFalse();
    apply(pool("a", "127.0.0.1"));
    apply(pool("a", "127.0.0.1", "127.0.0.2"));
    assertThat(datastore.loaded()).isTrue();
    assertThat(seen).hasSize(2).last().isSameAs(datastore.topology());
    assertThat(scrapes.targets()).extracting(t -> t.address()).containsExactly("127.0.0.1:8000", "127.0.0.2:8000");
  }

  @Test
  void statesCarryTheScrapesTheInFlightCountsAndWhatTheGatewayLoadedLately() throws Exception {
    apply(pool("a", "127.0.0.1", "127.0.0.2"));
    scrapes.report("127.0.0.1:8000", 3, 1, 0.4, Set.of("old"));
    datastore.inFlight().acquire("127.0.0.1:8000", "old");
    List<EndpointState> states = datastore.allStates();
    assertThat(states).hasSize(2);
    assertThat(states.get(0).metrics().waitingQueue()).isEqualTo(3);
    assertThat(states.get(0).inFlight().forModel("old")).isEqualTo(1);
    assertThat(states.get(0).holdsAdapter("old")).isTrue();
    assertThat(states.get(1).scrapeHealthy()).as("not scraped yet").isFalse();
    assertThat(states.get(1).holdsAdapter("fresh")).as("loaded lately, not reported yet").isTrue();
  }

  @Test
  void theSubsetHintKeepsOnlyTheEndpointsItListsAndAPodInTwoPoolsCountsOnce() throws Exception {
    apply(pool("a", "127.0.0.1", "127.0.0.2") + FileModeYaml.SEPARATOR + FileModeYaml.pool("b", "a", 8000));
    List<PoolView> both = List.copyOf(datastore.topology().poolsByKey().values());
    assertThat(datastore.states(both)).hasSize(2);
    assertThat(datastore.states(both, Set.of("127.0.0.2:8000"))).extracting(EndpointState::address)
        .containsExactly("127.0.0.2:8000");
    assertThat(datastore.states(both, null)).hasSize(2);
  }

  @Test
  void everyLoadableTargetAndVariantIsListedOnceWithItsPools() throws Exception {
    apply(pool("a", "127.0.0.1") + FileModeYaml.SEPARATOR
        + FileModeYaml.loadableRoute("one", "a", "m1", "lora", "hf://lora") + FileModeYaml.SEPARATOR
        + FileModeYaml.loadableRoute("two", "a", "m2", "lora", "hf://lora") + FileModeYaml.SEPARATOR
        + FileModeYaml.route("base", "a", "base", 0));
    assertThat(datastore.loadableAdapters()).singleElement().satisfies(l -> {
      assertThat(l.name()).isEqualTo("lora");
      assertThat(l.source()).isEqualTo("hf://lora");
      assertThat(l.endpoints().get()).hasSize(1);
    });
  }
}
