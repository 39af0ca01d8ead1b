package io.llmgw.cli;

import io.llmgw.api.Causes;
import io.llmgw.api.ConfigException;
import io.llmgw.api.ConfigFileLoader;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.api.TempTree;
import io.llmgw.api.cli.Converters;
import io.llmgw.batch.BatchService;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.observe.GatewayStatus;
import io.llmgw.extproc.tenancy.controller.TenancySettings;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.PoolStats;
import io.llmgw.loadgen.Rig;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.scorers.LoraPackingScorer;
import io.llmgw.sim.http.SimPods;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "quickstart", mixinStandardHelpOptions = true,
    description = "Start simulated pods, the EPP and a front proxy on this machine, run a short demonstration "
        + "workload, print what happened, and keep serving until Ctrl-C (or --duration).")
final class QuickstartCommand implements Callable<Integer> {
  @Option(names = "--config", description = "File-mode YAML (default: examples/quickstart.yaml of this checkout).")
  Path config;

  @Option(names = "--listen", defaultValue = "127.0.0.1:8080",
      description = "Where the proxy listens (default: ${DEFAULT-VALUE}; port 0 picks a free one).")
  String listen;

  @Option(names = "--requests", defaultValue = "200",
      description = "Demonstration requests (default: ${DEFAULT-VALUE}).")
  int requests;

  @Option(names = "--rate", defaultValue = "20",
      description = "Demonstration requests per second (default: ${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--duration", converter = Converters.AnyDuration.class,
      description = "Stop this long after the demonstration (e.g. 0s, 5m); default: serve until Ctrl-C.")
  Duration duration;

  @Option(names = "--policy", defaultValue = "seed", description = "Picking policy (see serve --help).")
  String policy;

  @Option(names = "--max-loras", defaultValue = "2", description = "Adapters per batch on each simulated pod.")
  int maxLoras;

  @Option(names = "--ephemeral-ports",
      description = "Run the EPP, the batch service and the simulated pods on free ports instead of 9002/9003/9090, "
          + "8090 and the file's pod port (for tests and busy machines).")
  boolean ephemeralPorts;

  @Option(names = "--first-ip", paramLabel = "127.0.0.N",
      description = "Simulate the pods at consecutive loopback addresses from this one instead of the file's "
          + "(default: the file's, 127.0.0.11 and on).")
  String firstIp;

  @Option(names = "--pod-port", description = "The simulated pods' port instead of the file's (default: the file's, "
      + "8000).")
  Integer podPort;

  @Option(names = "--no-envoy", description = "Use the dev proxy even when an envoy binary is on the PATH.")
  boolean noEnvoy;

  @Option(names = "--batch-lines", defaultValue = "40",
      description = "Requests in the batch submitted during the demonstration; 0 for none (default: ${DEFAULT-VALUE}).")
  int batchLines;

  @Option(names = "--tenants", description = "Two example tenants: API keys (printed once), a budget each, the "
      + "demonstration's routes shared between them, the batch service acting for them; the report shows what each "
      + "spent.")
  boolean tenants;

  private Path examplesDir;
  private QuickstartTenants tenantKeys;
  /** Where the configuration moved to other addresses lives (removed at exit); null when it did not move. */
  private Path movedDir;

  @Override
  public Integer call() throws Exception {
    try {
      return run();
    } finally {
      TempTree.delete(movedDir);
    }
  }

  private int run() throws Exception {
    PrintStream out = System.out;
    Path file = (config != null ? config : defaultConfig()).toAbsolutePath();
    examplesDir = file.getParent(); // envoy-config/ is its sibling, wherever the pods are moved
    QuickstartPlan plan;
    PolicyShorthand policyName;
    int listenPort;
    String listenHost;
    try {
      plan = QuickstartPlan.from(ConfigFileLoader.load(file), maxLoras);
      if (firstIp != null || podPort != null || ephemeralPorts) {
        List<String> ips = firstIp == null ? plan.podIps() : QuickstartAddresses.from(firstIp, plan.podIps().size());
        int port = podPort != null ? podPort : ephemeralPorts ? LoopbackPorts.free() : plan.port();
        if (port < 1 || port > 65535) {
          throw new IllegalArgumentException("--pod-port must be within 1..65535");
        }
        movedDir = Files.createTempDirectory("llmgw-quickstart");
        Path moved = movedDir.resolve(file.getFileName());
        file = QuickstartAddresses.relocate(file, moved, ips, port);
        plan = QuickstartPlan.from(ConfigFileLoader.load(file), maxLoras);
      }
      if (tenants) {
        if (movedDir == null) {
          movedDir = Files.createTempDirectory("llmgw-quickstart");
          file = Files.copy(file, movedDir.resolve(file.getFileName()));
        }
        tenantKeys = QuickstartTenants.create(movedDir, file);
        ConfigFileLoader.load(file); // the budgets beside the file's routes
      }
      policyName = PolicyShorthand.parse(policy);
      listenHost = listen.substring(0, listen.lastIndexOf(':'));
      listenPort = Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
      if (requests < 1 || rate <= 0) {
        throw new IllegalArgumentException("--requests and --rate must be positive");
      }
    } catch (ConfigException | IllegalArgumentException | StringIndexOutOfBoundsException | IOException e) {
      System.err.println("llmgw quickstart: " + e.getMessage());
      return 2;
    }
    try {
      return stoppable(out, file, plan, policyName, listenHost, listenPort);
    } catch (IllegalStateException | IOException e) {
      String message = e.getMessage();
      System.err.println("llmgw quickstart: cannot start: " + message + (message != null && message.contains("--")
          ? "" : " (another quickstart running? --listen and --ephemeral-ports choose other ports)"));
      return 1;
    }
  }

  private int stoppable(PrintStream out, Path file, QuickstartPlan plan, PolicyShorthand policyName,
      String listenHost, int listenPort) throws Exception {
    // Ctrl-C: the hook lets this thread close pods, EPP and proxy before the JVM halts
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop.countDown();
      try {
        closed.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "quickstart-stop"));
    try {
      return demonstrate(out, file, plan, policyName, listenHost, listenPort, stop);
    } finally {
      closed.countDown();
    }
  }

  private int demonstrate(PrintStream out, Path file, QuickstartPlan plan, PolicyShorthand policyName,
      String listenHost, int listenPort, CountDownLatch stop) throws Exception {
    Path envoy = noEnvoy || ephemeralPorts ? null : EnvoyProcess.onPath();
    out.printf("llmgw quickstart: %d simulated pods (%s) at %s, port %d, adapters %s%n", plan.podIps().size(),
        plan.sim().model(), plan.podIps(), plan.port(), plan.sim().adapters());
    SimPods pods;
    try {
      pods = SimPods.start(plan.sim(), plan.podIps(), plan.port());
    } catch (Exception e) {
      throw new IllegalStateException("the simulated pods cannot listen on " + plan.podIps() + " port " + plan.port()
          + " (" + Causes.rootMessage(e) + "); --first-ip and --pod-port move them, --ephemeral-ports picks free ports",
          e);
    }
    EppSettings settings = EppSettings.defaults(file).withPolicy(policyName,
        LoraPackingScorer.DEFAULT_PENDING_THRESHOLD);
    settings = ephemeralPorts ? settings.onLoopbackEphemeralPorts() : settings.onLoopback();
    int batchPort = ephemeralPorts ? LoopbackPorts.free() : BatchSettings.defaults().endpoints().port();
    // a free port chosen here, not by the proxy, so that the status page can name the front door
    int frontPort = envoy != null ? 8080 : listenPort == 0 ? LoopbackPorts.free() : listenPort;
    settings = settings.withListen(settings.listen().withBatchStatus("127.0.0.1:" + batchPort)
        .withFrontDoor("http://" + listenHost + ":" + frontPort));
    BatchSettings.Access batchAccess = BatchSettings.Access.OPEN;
    Workload workload = plan.workload();
    if (tenantKeys != null) {
      settings = settings.withTenancy(new TenancySettings(tenantKeys.keysFile(), null, Duration.ofSeconds(5)));
      batchAccess = new BatchSettings.Access(tenantKeys.keysFile(), null,
          tenantKeys.key(QuickstartTenants.BATCH_SERVICE), null);
      workload = tenantKeys.share(workload);
    }
    ProxySettings proxySettings = envoy != null ? null : ProxySettings.defaults().withListener(listenHost, frontPort)
        .withBatchService("127.0.0.1:" + batchPort);
    Path batchDir = Files.createTempDirectory("llmgw-quickstart-batch");
    try (Rig rig = Rig.start(pods, settings, proxySettings);
        EnvoyProcess envoyProcess = envoy == null ? null : EnvoyProcess.start(envoy, examplesDir);
        BatchService batches = BatchService.start(BatchSettings.defaults().withListener("127.0.0.1", batchPort)
            .withGateway("127.0.0.1:" + rig.epp().metricsPort(), "http://" + listenHost + ":"
                + (envoy != null ? 8080 : rig.proxyPort()))
            .withStore("sqlite:" + batchDir.resolve("batch.db")).withAccess(batchAccess), Clock.systemUTC())) {
      int port = envoyProcess != null ? 8080 : rig.proxyPort();
      out.printf("  EPP (policy %s): ext_proc 127.0.0.1:%d, health :%d, metrics http://127.0.0.1:%d/metrics%n",
          policyName.cliName(), rig.epp().grpcPort(), rig.epp().healthPort(), rig.epp().metricsPort());
      out.printf("  status page: http://127.0.0.1:%d/status%n", rig.epp().metricsPort());
      out.printf("  front proxy: %s on %s:%d%n", envoyProcess != null ? "envoy (" + envoy + ")" : "dev proxy",
          listenHost, port);
      out.printf("  batch service (OpenAI Files and Batches API): http://%s:%d/v1/batches, its own port %d%n",
          listenHost, port, batches.port());
      String bearer = tenantKeys == null ? null : tenantKeys.key(QuickstartTenants.HEAVY);
      if (tenantKeys != null) {
        tenantKeys.print(out, workload);
      }
      out.printf("%nDemonstration: %d streaming chat requests at %.0f/s over %s%n", requests, rate,
          workload.models());
      QuickstartBatch batch = new QuickstartBatch("http://" + listenHost + ":" + port, batchLines, bearer);
      if (batchLines > 0) {
        // the base model: a batch for adapters would compete with interactive traffic for the pods' LoRA slots
        batch.submit(out, List.of(plan.sim().model()));
      }
      ProgressBar bar = new ProgressBar(out, requests, System.console() != null);
      RunResult result = new OpenLoopRun(listenHost, port, workload, rate, requests / rate, 7, 1024, 60)
          .run(bar::update);
      QuickstartReport.print(out, result, PoolStats.of(rig.pods()), plan.sheddable());
      batch.report(out);
      out.printf("%nPools, routes and batch queues, as `./llmgw status --epp 127.0.0.1:%d --batch 127.0.0.1:%d` "
          + "shows them:%n", rig.epp().metricsPort(), batches.port());
      PrintWriter table = new PrintWriter(out);
      GatewayStatus.Report report = rig.epp().status();
      StatusCommand.print(report, table);
      table.flush();
      QuickstartVerdicts.explain(out, report);
      StatusCommand.printBatches(batches.dispatcher().status(), "127.0.0.1:" + batches.port(), table);
      table.flush();
      out.printf("%nTry it yourself:%n  curl -s http://%s:%d/v1/chat/completions -H 'content-type: application/json' "
          + "%s\\%n    -d '{\"model\":\"%s\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":"
          + "\"Hello\"}]}'%n", listenHost, port, bearer == null ? "" : "-H 'authorization: Bearer " + bearer + "' ",
          plan.exampleModel());
      out.printf("  curl -s http://%s:%d/v1/models %s  # the routes; pod metrics: curl -s http://%s:%d/metrics%n",
          listenHost, port, bearer == null ? "" : "-H 'authorization: Bearer " + bearer + "'", plan.podIps().getFirst(),
          plan.port());
      out.printf("%nEdit %s while this runs: valid changes apply live.%n", file);
      return serve(out, stop);
    } finally {
      TempTree.delete(batchDir);
    }
  }

  private int serve(PrintStream out, CountDownLatch stop) throws InterruptedException {
    if (duration == null) {
      out.println("Serving until Ctrl-C.");
      stop.await();
    } else {
      out.printf("Serving for %d s more.%n", duration.toSeconds());
      stop.await(duration.toMillis(), TimeUnit.MILLISECONDS);
    }
    out.println("llmgw quickstart: stopping.");
    return 0;
  }

  private static Path defaultConfig() {
    String home = System.getenv("LLMGW_HOME");
    Path base = home == null ? Path.of("") : Path.of(home);
    Path file = base.resolve("examples").resolve("quickstart.yaml");
    return Files.isRegularFile(file) ? file : Path.of("examples", "quickstart.yaml");
  }
}
