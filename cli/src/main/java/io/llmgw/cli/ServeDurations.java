package io.llmgw.cli;

import io.llmgw.api.Durations;
import java.time.Duration;
import picocli.CommandLine;

/** Go-style durations on the command line (0s allowed): 0s, 90s, 5m. */
final class ServeDurations implements CommandLine.ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    Duration d = Durations.parse(value);
    if (d == null) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not a duration such as 0s, 90s or 5m");
    }
    return d;
  }
}
