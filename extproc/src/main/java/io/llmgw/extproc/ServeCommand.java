package io.llmgw.extproc;

import io.llmgw.api.ConfigException;
import io.llmgw.api.Durations;
import io.llmgw.picker.Policies;
import io.llmgw.scraper.ScrapeSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Run the Endpoint Picker over the pools, routes and pods of a YAML file (file mode).")
public final class ServeCommand implements Callable<Integer> {
  @Option(names = "--config", required = true,
      description = "Multi-document YAML with InferencePool, LLMRoute and Pod objects; watched for edits.")
  Path config;

  @Option(names = "--bind", defaultValue = "0.0.0.0", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String bind;

  @Option(names = "--grpc-port", defaultValue = "9002", description = "ext_proc port (default: ${DEFAULT-VALUE}).")
  int grpcPort;

  @Option(names = "--health-port", defaultValue = "9003", description = "gRPC health port (default: ${DEFAULT-VALUE}).")
  int healthPort;

  @Option(names = "--metrics-port", defaultValue = "9090",
      description = "Prometheus metrics port (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(names = "--policy", defaultValue = "seed", converter = PolicyConverter.class,
      description = "seed (pack each adapter onto few pods; default), scorers (GIE queue/kv-cache/prefix/lora-affinity), "
          + "or a baseline for comparison: round-robin, random, least-request.")
  EppSettings.PolicyName policy;

  @Option(names = "--adapter-pending-threshold", defaultValue = "" + Policies.DEFAULT_ADAPTER_PENDING_THRESHOLD,
      description = "Seed policy: pending requests for an adapter on a pod before the next pod takes over (default: ${DEFAULT-VALUE}).")
  int threshold;

  @Option(names = "--scrape-interval", defaultValue = "50ms", converter = DurationConverter.class,
      description = "How often each pod's /metrics is polled (default: ${DEFAULT-VALUE}).")
  Duration scrapeInterval;

  @Option(names = "--stale-after", defaultValue = "2s", converter = DurationConverter.class,
      description = "Pods whose metrics are older are not picked (default: ${DEFAULT-VALUE}).")
  Duration staleAfter;

  @Option(names = "--max-body-bytes", defaultValue = "8388608",
      description = "Larger request bodies are answered 413 (default: ${DEFAULT-VALUE}).")
  int maxBodyBytes;

  @Option(names = "--header-fallbacks",
      description = "Also list the fallbacks in the destination header, for proxies that walk it (Envoy's ORIGINAL_DST "
          + "needs one address there). The envoy.lb metadata always carries the ordered list.")
  boolean headerFallbacks;

  @Override
  public Integer call() throws Exception {
    EppSettings settings;
    try {
      settings = new EppSettings(config, bind, grpcPort, healthPort, metricsPort, policy, threshold, maxBodyBytes,
          staleAfter, Duration.ofSeconds(1), headerFallbacks, ScrapeSettings.defaults().withInterval(scrapeInterval));
    } catch (IllegalArgumentException e) {
      System.err.println("llmgw: " + e.getMessage());
      return 2;
    }
    Epp epp;
    try {
      epp = Epp.start(settings, Clock.systemUTC());
    } catch (ConfigException e) {
      System.err.println("llmgw: cannot start: " + e.getMessage());
      return 2;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(epp::close, "epp-shutdown"));
    epp.awaitTermination();
    return 0;
  }

  static final class PolicyConverter implements CommandLine.ITypeConverter<EppSettings.PolicyName> {
    @Override
    public EppSettings.PolicyName convert(String value) {
      try {
        return EppSettings.PolicyName.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a policy: seed, scorers, round-robin, "
            + "random or least-request");
      }
    }
  }

  /** Go-style durations on the command line, as in the YAML: 50ms, 2s, 1m. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Duration d = Durations.parse(value);
      if (d == null || d.isZero()) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a positive duration such as 50ms or 2s");
      }
      return d;
    }
  }
}
