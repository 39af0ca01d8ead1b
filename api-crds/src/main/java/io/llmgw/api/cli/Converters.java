package io.llmgw.api.cli;

import io.llmgw.api.Durations;
import java.time.Duration;
import picocli.CommandLine;

/** The command-line converters every command uses: Go-style durations, as in the YAML (50ms, 2s, 1m30s). */
public final class Converters {
  private Converters() {}

  /** A duration above zero: 50ms, 2s, 10m. */
  public static final class PositiveDuration implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Duration d = Durations.parse(value);
      if (d == null || d.isZero()) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a positive duration such as 50ms, 2s or "
            + "10m");
      }
      return d;
    }
  }

  /** A duration, zero allowed (for "none"): 0s, 90s, 5m. */
  public static final class AnyDuration implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Duration d = Durations.parse(value);
      if (d == null) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a duration such as 0s, 90s or 5m");
      }
      return d;
    }
  }
}
