package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.api.ConfigFileLoader;
import io.llmgw.api.GatewayConfig;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --first-ip and --pod-port: garbage refused by name; the moved file is the same configuration at new addresses. */
class QuickstartAddressesTest {
  @TempDir
  Path dir;

  @Test
  void aFirstIpOffLoopbackOrWithoutRoomIsRefusedByName() {
    for (String bad : new String[] {"10.0.0.1", "127.0.0.0", "127.0.0.255", "127.0.0.x", "localhost", ""}) {
      assertThatThrownBy(() -> QuickstartAddresses.from(bad, 4)).as(bad).hasMessageContaining("--first-ip");
    }
    assertThatThrownBy(() -> QuickstartAddresses.from("127.0.0.252", 4)).hasMessageContaining("leaves no room");
    assertThat(QuickstartAddresses.from("127.0.0.251", 4)).containsExactly("127.0.0.251", "127.0.0.252",
        "127.0.0.253", "127.0.0.254");
  }

  @Test
  void theMovedFileIsTheSameConfigurationAtTheNewAddresses() throws Exception {
    Path source = Path.of("..", "examples", "quickstart.yaml");
    GatewayConfig before = ConfigFileLoader.load(source);
    List<String> ips = QuickstartAddresses.from("127.0.0.151", 4);
    GatewayConfig after = ConfigFileLoader.load(QuickstartAddresses.relocate(source, dir.resolve("q.yaml"), ips, 8123));
    assertThat(after.routes()).isEqualTo(before.routes());
    assertThat(after.pods()).extracting(p -> p.podIP()).containsExactlyElementsOf(ips);
    assertThat(after.pools().getFirst().targetPorts()).containsExactly(8123);
  }
}
