package io.llmgw.batch.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.api.LoadReport;
import io.llmgw.api.PoolLoad;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LoadReaderTest {
  @Test
  void readsPoolsAndModels() throws Exception {
    LoadReport r = LoadReader.parse(("{\"pools\":[{\"pool\":\"ns/p\",\"pods\":2,\"running\":3,\"waiting\":1,"
        + "\"sentSinceReport\":2,\"flowWaiting\":0}],\"models\":{\"m\":\"ns/p\"}}").getBytes(StandardCharsets.UTF_8));
    assertThat(r.pools()).containsExactly(new PoolLoad("ns/p", 2, 3, 1, 2, 0));
    assertThat(r.models()).containsEntry("m", "ns/p");
    assertThat(r.pools().getFirst().headroom()).as("an older EPP: unknown").isEqualTo(PoolLoad.UNKNOWN_HEADROOM);
    LoadReport withRoom = LoadReader.parse(("{\"pools\":[{\"pool\":\"ns/p\",\"pods\":2,\"running\":3,"
        + "\"waiting\":1,\"sentSinceReport\":2,\"flowWaiting\":0,\"headroom\":7}],\"models\":{}}")
        .getBytes(StandardCharsets.UTF_8));
    assertThat(withRoom.pools().getFirst().headroom()).isEqualTo(7);
    assertThat(withRoom.pools().getFirst().atZero()).as("an EPP that does not say").isFalse();
    LoadReport cold = LoadReader.parse(("{\"pools\":[{\"pool\":\"ns/p\",\"pods\":0,\"running\":0,"
        + "\"waiting\":0,\"sentSinceReport\":0,\"flowWaiting\":0,\"headroom\":0,\"atZero\":true}],\"models\":{}}")
        .getBytes(StandardCharsets.UTF_8));
    assertThat(cold.pools().getFirst().atZero()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "null", "[]", "<html>", "{\"pools\":{}}", "{\"pools\":[],\"models\":[]}",
      "{\"pools\":[{\"pool\":\"p\",\"pods\":-1,\"running\":0,\"waiting\":0,\"sentSinceReport\":0,\"flowWaiting\":0}],\"models\":{}}",
      "{\"pools\":[{\"pool\":\"p\",\"pods\":1,\"running\":\"many\",\"waiting\":0,\"sentSinceReport\":0,\"flowWaiting\":0}],\"models\":{}}",
      "{\"pools\":[{\"pool\":\"p\",\"pods\":1.5,\"running\":0,\"waiting\":0,\"sentSinceReport\":0,\"flowWaiting\":0}],\"models\":{}}",
      "{\"pools\":[{\"pods\":1,\"running\":0,\"waiting\":0,\"sentSinceReport\":0,\"flowWaiting\":0}],\"models\":{}}",
      "{\"pools\":[],\"models\":{\"m\":7}}",
      "{\"pools\":[{\"pool\":\"p\",\"pods\":1,\"running\":0,\"waiting\":0,\"sentSinceReport\":0,\"flowWaiting\":0,"
          + "\"headroom\":-3}],\"models\":{}}",
      "{\"pools\":[{\"pool\":\"p\",\"pods\":1,\"running\":0,\"waiting\":0,\"sentSinceReport\":0,\"flowWaiting\":0,"
          + "\"headroom\":\"lots\"}],\"models\":{}}",
      "{\"pools\":[{\"pool\":\"p\",\"pods\":0,\"running\":0,\"waiting\":0,\"sentSinceReport\":0,\"flowWaiting\":0,"
          + "\"atZero\":\"yes\"}],\"models\":{}}"})
  void garbageIsUnreadableNeverAGuess(String body) {
    assertThatThrownBy(() -> LoadReader.parse(body.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(LoadReader.Unreadable.class).hasMessageContaining("load");
  }
}
