package io.llmgw.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.api.SettingException;
import io.llmgw.batch.shared.BatchSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Issue 49: the settings name what they refuse as settings, and the command tells it as the flag the user gave; a
 * setting no flag sets is named as a setting, never as a flag that does not exist.
 */
class BatchCommandTest {
  static String refused(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cmd = new CommandLine(new BatchCommand()).setErr(new PrintWriter(err));
    assertThat(cmd.execute(args)).isEqualTo(2);
    return err.toString();
  }

  @Test
  void aRefusedSettingIsToldAsItsFlag() {
    assertThat(refused("--baseline", "1.5")).contains("--baseline must be within [0, 1), got 1.5");
    assertThat(refused("--gate", "0")).contains("--gate must be within (0, 1], got 0.0");
    assertThat(refused("--max-line-bytes", "0")).contains("--max-line-bytes must be positive, got 0");
    assertThat(refused("--poll-interval", "0s")).contains("is not a positive duration");
    // refused when the service starts, before it listens or opens anything
    assertThat(refused("--store", "mongodb://127.0.0.1:1", "--port", "0"))
        .contains("--store must be sqlite:FILE or redis://host:port, not 'mongodb://127.0.0.1:1'");
  }

  /** Issue 53, item 2: a configuration that cannot work is refused at start, not left to fail every line. */
  @Test
  void keysCheckedWithoutTheServicesOwnKeyAreRefused() {
    assertThat(refused("--api-keys-file", "keys.yaml", "--port", "0"))
        .contains("--api-keys-file needs --gateway-key-file").contains("every line fails 401");
  }

  @Test
  void aSettingWithoutAFlagIsNamedAsASetting() {
    assertThatThrownBy(() -> new BatchSettings.Budget(0.05, 0.95, 64, Map.of(), Duration.ofMillis(50), 0))
        .isInstanceOf(SettingException.class).hasMessage("setting budget.maxInFlight must be positive, got 0");
    assertThatThrownBy(() -> new BatchSettings.Delivery("batch", Duration.ofSeconds(1), Duration.ofSeconds(1), 0,
        null)).hasMessage("setting delivery.maxAttempts must be positive, got 0");
  }
}
