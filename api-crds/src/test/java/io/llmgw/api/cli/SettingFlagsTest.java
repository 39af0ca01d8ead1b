package io.llmgw.api.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.SettingException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 49: a library names the setting, the command its flag. */
class SettingFlagsTest {
  static final SettingFlags FLAGS = new SettingFlags(Map.of("listen.peers", "--peers", "listen.peersInsecure",
      "--peers-insecure", "requests.maxBodyBytes", "--max-body-bytes", "requests.maxBufferedBytes",
      "--max-buffered-bytes"));

  @Test
  void theSettingAndEverySettingTheProblemNamesBecomeTheirFlags() {
    assertThat(FLAGS.explain(new SettingException("requests.maxBufferedBytes", "must be at least "
        + "requests.maxBodyBytes"))).isEqualTo("--max-buffered-bytes must be at least --max-body-bytes");
    assertThat(FLAGS.explain(new SettingException("listen.peers", "need a secret or listen.peersInsecure")))
        .isEqualTo("--peers need a secret or --peers-insecure");
  }

  @Test
  void aSettingWithoutAFlagKeepsItsNameAndOtherFailuresTheirMessage() {
    SettingException e = new SettingException("flow.ttl", "must be positive");
    assertThat(e.getMessage()).isEqualTo("setting flow.ttl must be positive");
    assertThat(FLAGS.explain(e)).isEqualTo("setting flow.ttl must be positive");
    assertThat(FLAGS.explain(new IllegalStateException("closed"))).isEqualTo("closed");
  }
}
