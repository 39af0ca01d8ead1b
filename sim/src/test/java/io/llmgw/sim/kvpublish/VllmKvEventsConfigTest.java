package io.llmgw.sim.kvpublish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.sim.engine.KvEventsConfig;
import org.junit.jupiter.api.Test;

/** vLLM's --kv-events-config JSON as the simulator reads it, and what it says about JSON it cannot use. */
class VllmKvEventsConfigTest {
  @Test
  void vllmsJsonGivesThePortsTopicAndBuffer() {
    KvEventsConfig c = VllmKvEventsConfig.parse("{\"enable_kv_cache_events\": true, \"publisher\": \"zmq\", "
        + "\"endpoint\": \"tcp://*:5557\", \"replay_endpoint\": \"tcp://*:5558\", \"topic\": \"kv@pod\", "
        + "\"buffer_steps\": 500}");
    assertThat(c).isEqualTo(new KvEventsConfig(5557, 5558, "kv@pod", 500));
    assertThat(VllmKvEventsConfig.parse("{\"enable_kv_cache_events\": false}")).isEqualTo(KvEventsConfig.OFF);
    assertThat(VllmKvEventsConfig.parse("{\"enable_kv_cache_events\": true}").replayPort()).as("no replay").isZero();
  }

  @Test
  void whatCannotBeUsedIsNamed() {
    assertThatThrownBy(() -> VllmKvEventsConfig.parse("{not json")).hasMessageContaining("not JSON");
    assertThatThrownBy(() -> VllmKvEventsConfig.parse("[]")).hasMessageContaining("a JSON object");
    assertThatThrownBy(() -> VllmKvEventsConfig.parse("{\"enable_kv_cache_events\": true, \"publisher\": \"null\"}"))
        .hasMessageContaining("zmq only");
    assertThatThrownBy(() -> VllmKvEventsConfig.parse("{\"enable_kv_cache_events\": true, \"endpoint\": "
        + "\"ipc:///tmp/kv\"}")).hasMessageContaining("endpoint must be tcp://HOST:PORT");
    assertThatThrownBy(() -> VllmKvEventsConfig.parse("{\"enable_kv_cache_events\": true, \"endpoint\": "
        + "\"tcp://*:x\"}")).hasMessageContaining("has no port");
    assertThatThrownBy(() -> VllmKvEventsConfig.parse("{\"enable_kv_cache_events\": true, \"endpoint\": "
        + "\"tcp://*:5557\", \"replay_endpoint\": \"tcp://*:5557\"}")).hasMessageContaining("different ports");
  }
}
