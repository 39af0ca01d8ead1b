package io.llmgw.extproc;

import io.llmgw.api.ConfigException;
import io.llmgw.picker.Policies;
import io.llmgw.scraper.ScrapeSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Run the Endpoint Picker over the pools, routes and pods of a YAML file (file mode).")
final class ServeCommand implements Callable<Integer> {
  @Option(names = "--config", required = true, description = "Multi-document YAML with InferencePool, LLMRoute and Pod objects; watched for edits.")
  Path config;

  @Option(names = "--bind", defaultValue = "0.0.0.0", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String bind;

  @Option(names = "--grpc-port", defaultValue = "9002", description = "ext_proc port (default: ${DEFAULT-VALUE}).")
  int grpcPort;

  @Option(names = "--health-port", defaultValue = "9003", description = "gRPC health port (default: ${DEFAULT-VALUE}).")
  int healthPort;

  @Option(names = "--metrics-port", defaultValue = "9090", description = "Prometheus metrics port (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(names = "--policy", defaultValue = "seed", description = "seed (pack adapters, default) or scorers (GIE queue/kv/prefix/lora-affinity).")
  String policy;

  @Option(names = "--adapter-pending-threshold", description = "Seed policy: pending requests per adapter per pod before the next pod takes over (default: "
      + Policies.DEFAULT_ADAPTER_PENDING_THRESHOLD + ").")
  int threshold = Policies.DEFAULT_ADAPTER_PENDING_THRESHOLD;

  @Option(names = "--scrape-interval", defaultValue = "50ms", description = "How often each pod's /metrics is polled (default: ${DEFAULT-VALUE}).")
  String scrapeInterval;

  @Option(names = "--stale-after", defaultValue = "2s", description = "Pods whose metrics are older are not picked (default: ${DEFAULT-VALUE}).")
  String staleAfter;

  @Option(names = "--max-body-bytes", defaultValue = "8388608", description = "Larger request bodies get 413 (default: ${DEFAULT-VALUE}).")
  int maxBodyBytes;

  @Option(names = "--header-fallbacks", description = "Also list the fallbacks in the destination header (for proxies that walk it; "
      + "Envoy's ORIGINAL_DST needs a single address there). The envoy.lb metadata always carries the ordered list.")
  boolean headerFallbacks;

  @Override
  public Integer call() throws Exception {
    EppSettings.PolicyName p = switch (policy.toLowerCase()) {
      case "seed" -> EppSettings.PolicyName.SEED;
      case "scorers" -> EppSettings.PolicyName.SCORERS;
      default -> throw new IllegalArgumentException("--policy must be seed or scorers, not '" + policy + "'");
    };
    ScrapeSettings scrape = ScrapeSettings.defaults().withInterval(duration("--scrape-interval", scrapeInterval));
    EppSettings settings = new EppSettings(config, bind, grpcPort, healthPort, metricsPort, p, threshold, maxBodyBytes,
        duration("--stale-after", staleAfter), Duration.ofSeconds(1), headerFallbacks, scrape);
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

  private static Duration duration(String option, String text) {
    Duration d = io.llmgw.api.Durations.parse(text);
    if (d == null || d.isZero()) {
      throw new IllegalArgumentException(option + ": '" + text + "' is not a duration such as 50ms or 2s");
    }
    return d;
  }

}
