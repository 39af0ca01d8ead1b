package io.llmgw.batch;

import io.llmgw.api.SettingException;
import io.llmgw.api.TokenFile;
import io.llmgw.api.cli.Converters;
import io.llmgw.api.cli.SettingFlags;
import io.llmgw.batch.shared.BatchSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code llmgw batch}: the OpenAI Batch API and the dispatcher that feeds batches into the pools' spare capacity. */
@Command(name = "batch", mixinStandardHelpOptions = true,
    description = "Serve OpenAI's Files and Batches API and send queued batch requests through the gateway, only "
        + "as fast as the pools' spare capacity allows (budget D = 1 - (F_sys + F_epp + B)).")
public final class BatchCommand implements Callable<Integer> {
  @Option(names = "--bind", defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String bind;

  @Option(names = "--port", defaultValue = "8090", description = "API and /metrics port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--epp", defaultValue = "127.0.0.1:9090",
      description = "The EPP's metrics/admin address, read for each pool's load: host:port, or https://host:port when "
          + "it serves --metrics-tls, verified against the JVM's trust store (default: ${DEFAULT-VALUE}).")
  String epp;

  @Option(names = "--gateway", defaultValue = "http://127.0.0.1:8080",
      description = "The gateway's front door the requests go through (default: ${DEFAULT-VALUE}).")
  String gateway;

  @Option(names = "--store", defaultValue = "sqlite:llmgw-batch.db",
      description = "sqlite:FILE (one dispatcher) or redis://host:port (several) (default: ${DEFAULT-VALUE}).")
  String store;

  @Option(names = "--objective", defaultValue = "batch",
      description = "InferenceObjective named on every request (a negative priority makes it sheddable); empty for "
          + "none (default: ${DEFAULT-VALUE}).")
  String objective;

  @Option(names = "--baseline", defaultValue = "0.05",
      description = "B: capacity kept for bursts of interactive traffic (default: ${DEFAULT-VALUE}).")
  double baseline;

  @Option(names = "--gate", defaultValue = "0.95",
      description = "u: send only while F_sys + F_epp + B <= u (default: ${DEFAULT-VALUE}).")
  double gate;

  @Option(names = "--slots-per-pod", defaultValue = "64",
      description = "A pod's capacity in requests (its --max-num-seqs) (default: ${DEFAULT-VALUE}).")
  int slotsPerPod;

  @Option(names = "--capacity", split = ",", description = "max_sys per pool, NAMESPACE/POOL=N, overriding pods x "
      + "--slots-per-pod.")
  Map<String, Integer> capacity = new LinkedHashMap<>();

  @Option(names = "--poll-interval", defaultValue = "50ms", converter = Converters.PositiveDuration.class,
      description = "How often the load is read; the EPP scrapes pods every 50ms, so faster gains nothing (default: "
          + "${DEFAULT-VALUE}).")
  Duration pollInterval;

  @Option(names = "--visibility-timeout", defaultValue = "60s", converter = Converters.PositiveDuration.class,
      description = "How long a dead dispatcher's claim holds a line before another takes it (default: "
          + "${DEFAULT-VALUE}).")
  Duration visibility;

  @Option(names = "--request-timeout", defaultValue = "10m", converter = Converters.PositiveDuration.class,
      description = "Longest one request may take (default: ${DEFAULT-VALUE}).")
  Duration requestTimeout;

  @Option(names = "--pod-priority", description = "vLLM's request priority to write into each line's body that has "
      + "none (higher runs later): pods run with --scheduling-policy priority then preempt batch for interactive "
      + "requests (default: bodies unchanged).")
  Integer podPriority;

  @Option(names = "--epp-token-file", description = "File holding the token the EPP's metrics port wants for reads "
      + "(its --read-token-file) (default: none).")
  Path eppTokenFile;

  @Option(names = "--api-keys-file", paramLabel = "FILE", description = "The gateway's API keys file (the EPP's "
      + "--api-keys-file): a caller's key names the tenant its files and batches belong to; no other tenant sees them "
      + "(default: none, one tenant).")
  Path apiKeysFile;

  @Option(names = "--tenant-header", paramLabel = "NAME", description = "Trust this header, set by the proxy's own "
      + "authentication, to name the tenant (the EPP's --tenant-header) (default: none).")
  String tenantHeader;

  @Option(names = "--gateway-key-file", paramLabel = "FILE", description = "File holding this service's own API key "
      + "(one the keys file marks actsForOthers): each line goes to the gateway with it, for its batch's owner "
      + "(default: none).")
  Path gatewayKeyFile;

  @Option(names = "--read-token-file", paramLabel = "FILE", description = "File holding the token /metrics and "
      + "/admin/batch/status want (the EPP's --read-token-file) (default: none, open).")
  Path readTokenFile;

  @Option(names = "--retention", defaultValue = "720h", converter = Converters.PositiveDuration.class,
      description = "How long finished batches, their output and error files, and uploaded files are kept "
          + "(default: ${DEFAULT-VALUE}, 30 days).")
  Duration retention;

  @Option(names = "--max-file-bytes", defaultValue = "209715200",
      description = "Largest upload (default: ${DEFAULT-VALUE}).")
  long maxFileBytes;

  @Option(names = "--max-line-bytes", defaultValue = "8388608",
      description = "Largest request line (default: ${DEFAULT-VALUE}).")
  int maxLineBytes;

  @Option(names = "--header-deadline", defaultValue = "10s", converter = Converters.PositiveDuration.class,
      description = "A connection that has not sent a request's headers by then is closed (default: ${DEFAULT-VALUE}).")
  Duration headerDeadline;

  @Option(names = "--idle-deadline", defaultValue = "30s", converter = Converters.PositiveDuration.class,
      description = "A request whose body sends nothing for this long is answered 408 and closed "
          + "(default: ${DEFAULT-VALUE}).")
  Duration idleDeadline;

  @Option(names = "--upload-deadline", defaultValue = "15m", converter = Converters.PositiveDuration.class,
      description = "The longest one upload may take (default: ${DEFAULT-VALUE}).")
  Duration uploadDeadline;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** Runs the batch service alone, as {@code ./llmgw batch} does (the crash tests start it so, in a JVM of its own). */
  public static void main(String[] args) {
    System.exit(new CommandLine(new BatchCommand()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    BatchSettings s = settings();
    BatchService started;
    try {
      started = BatchService.start(s, Clock.systemUTC());
    } catch (SettingException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), FLAGS.explain(e));
    }
    try (BatchService service = started) {
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
      stop.await();
    }
    return 0;
  }

  /** The settings' names for the flags that set them: a refused setting is told as the flag the user gave. */
  private static final SettingFlags FLAGS = new SettingFlags(
      Map.of("budget.baseline", "--baseline", "budget.gate", "--gate",
          "budget.slotsPerPod", "--slots-per-pod", "limits.maxLineBytes", "--max-line-bytes", "limits.maxFileBytes",
          "--max-file-bytes", "limits.headerDeadline", "--header-deadline", "limits.idleDeadline", "--idle-deadline",
          "limits.uploadDeadline", "--upload-deadline", "store", "--store"));

  private BatchSettings settings() throws IOException {
    try {
      return build();
    } catch (SettingException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), FLAGS.explain(e));
    }
  }

  private BatchSettings build() throws IOException {
    if (apiKeysFile != null && gatewayKeyFile == null) {
      // a gateway that checks keys answers every keyless line 401, and the batch would "complete" with all failed
      throw new CommandLine.ParameterException(spec.commandLine(), "--api-keys-file needs --gateway-key-file: the "
          + "gateway checks the same keys, and this service must send each line with its own key (one the keys file "
          + "marks actsForOthers), or every line fails 401");
    }
    BatchSettings d = BatchSettings.defaults();
    return new BatchSettings(
        new BatchSettings.Endpoints(bind, port, epp, gateway, TokenFile.read(eppTokenFile)), store,
        new BatchSettings.Budget(baseline, gate, slotsPerPod, capacity, pollInterval, d.budget().maxInFlight()),
        new BatchSettings.Delivery(objective, visibility, requestTimeout, d.delivery().maxAttempts(), podPriority),
        new BatchSettings.InputLimits(maxFileBytes, maxLineBytes, d.limits().maxLines(), headerDeadline, idleDeadline,
            uploadDeadline),
        retention,
        new BatchSettings.Access(apiKeysFile, tenantHeader, TokenFile.read(gatewayKeyFile), TokenFile.read(
            readTokenFile)));
  }

}
