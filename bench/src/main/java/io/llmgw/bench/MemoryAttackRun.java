package io.llmgw.bench;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory attack of issue 13 against a real EPP in this JVM: many concurrent unfinished large bodies, then many idle
 * streams, while a normal request must still be routed and health must still answer SERVING. Run it with a small heap
 * ({@code java -Xmx512m -XX:+ExitOnOutOfMemoryError -cp bench/target/benchmarks.jar io.llmgw.bench.MemoryAttackRun
 * [bodies] [bodyMiB] [idleStreams]}); it prints what each stream got, the heap's peak and the heap held per buffered
 * body byte. The attacking client sends each chunk only when its stream is ready, so its own memory stays small.
 */
public final class MemoryAttackRun {
  private static final int CHUNK = 64 << 10;

  public static void main(String[] args) throws Exception {
    int bodies = args.length > 0 ? Integer.parseInt(args[0]) : 60;
    int bodyMiB = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    int idle = args.length > 2 ? Integer.parseInt(args[2]) : 5_000;
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    AtomicLong peak = new AtomicLong();
    Thread sampler = Thread.ofPlatform().daemon().start(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
        try {
          Thread.sleep(5); // a sampling period, not a synchronisation
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    try (StaticPods pods = new StaticPods(4, 0, ScrapeLoadRun.metricsPage(),
        "{\"data\":[{\"id\":\"base\"},{\"id\":\"adapter-1\",\"parent\":\"base\"}]}")) {
      Path config = Files.createTempFile("attack", ".yaml");
      Files.writeString(config, ExtProcFrames.yaml(pods));
      EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts()
          .withMaxBodyBytes(16 << 20);
      s = s.withRequests(s.requests().withIdleTimeout(Duration.ofSeconds(5)));
      try (Epp epp = Epp.start(s, Clock.systemUTC())) {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", epp.grpcPort()).usePlaintext()
            .maxInboundMessageSize(32 << 20).build();
        ManagedChannel healthChannel = NettyChannelBuilder.forAddress("127.0.0.1", epp.healthPort()).usePlaintext()
            .build();
        var stub = ExternalProcessorGrpc.newStub(channel);
        Thread.sleep(1_000); // first scrapes; not a test synchronisation
        System.gc();
        long baseline = memory.getHeapMemoryUsage().getUsed();
        peak.set(baseline);

        Outcomes large = new Outcomes();
        List<ClientCallStreamObserver<ProcessingRequest>> held = new ArrayList<>();
        ByteString chunk = ByteString.copyFrom(new byte[CHUNK]);
        long t0 = System.nanoTime();
        for (int i = 0; i < bodies; i++) {
          var call = open(stub, large);
          call.onNext(ExtProcFrames.postHeaders());
          call.onNext(
              ExtProcFrames.requestBody(ByteString.copyFromUtf8("{\"model\":\"adapter-1\",\"prompt\":\""), false));
          for (int sent = 0; sent < bodyMiB << 20 && !large.answered(call); sent += CHUNK) {
            awaitReady(call);
            call.onNext(ExtProcFrames.requestBody(chunk, false));
          }
          held.add(call);
        }
        long buffered = awaitQuiet(epp);
        System.gc();
        long retained = memory.getHeapMemoryUsage().getUsed() - baseline;
        String healthDuringBodies = health(healthChannel);
        String normalDuringBodies = normalRequest(stub);
        double bodySeconds = (System.nanoTime() - t0) / 1e9;

        Outcomes quiet = new Outcomes();
        List<ClientCallStreamObserver<ProcessingRequest>> idleCalls = new ArrayList<>();
        for (int i = 0; i < idle; i++) {
          idleCalls.add(open(stub, quiet));
        }
        int openWhileIdle = awaitOpen(epp, bodies + idle);
        String healthDuringIdle = health(healthChannel);
        String normalDuringIdle = normalRequest(stub);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (quiet.total() < idle && System.nanoTime() < deadline) {
          Thread.sleep(50); // waiting for the idle timeout to end them, bounded
        }

        held.forEach(c -> c.cancel("done", null));
        idleCalls.forEach(c -> c.cancel("done", null));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((openStreams(epp) > 0 || epp.datastore().inFlight().all().values().stream().anyMatch(l -> l.total() > 0))
            && System.nanoTime() < end) {
          Thread.sleep(20);
        }
        long inFlight = epp.datastore().inFlight().all().values().stream().mapToLong(l -> l.total()).sum();
        System.out.printf("%n| attack | streams | answers | buffered at once | heap held per buffered byte | health | "
            + "a normal request meanwhile |%n|---|---|---|---|---|---|---|%n");
        System.out.printf("| %d unfinished bodies of %d MiB | %d | %s | %d MiB | %.2f | %s | %s |%n", bodies, bodyMiB,
            bodies, large, buffered >> 20, buffered == 0 ? 0 : (double) retained / buffered, healthDuringBodies,
            normalDuringBodies);
        System.out.printf("| %d idle streams (no headers) | %d | %s | %d streams open at once | – | %s | %s |%n",
            idle, idle, quiet, openWhileIdle, healthDuringIdle, normalDuringIdle);
        System.out.printf("%nmax heap %d MiB; heap after start %d MiB; peak %d MiB; bodies sent in %.1f s; "
            + "left in flight %d, open streams %d, buffered bytes %d%n", memory.getHeapMemoryUsage().getMax() >> 20,
            baseline >> 20, peak.get() >> 20, bodySeconds, inFlight, openStreams(epp), bufferedBytes(epp));
        channel.shutdownNow();
        healthChannel.shutdownNow();
      } finally {
        Files.deleteIfExists(config);
      }
    } finally {
      sampler.interrupt();
    }
  }

  /** What the streams of one attack got: status codes of immediate answers, gRPC codes of streams ended. */
  private static final class Outcomes {
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private final Map<Object, Boolean> answered = new ConcurrentHashMap<>();

    void count(Object call, String what) {
      if (answered.putIfAbsent(call, true) == null) {
        counts.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
      }
    }

    boolean answered(Object call) {
      return answered.containsKey(call);
    }

    long total() {
      return counts.values().stream().mapToLong(AtomicLong::get).sum();
    }

    @Override
    public String toString() {
      return counts.isEmpty() ? "none yet" : new java.util.TreeMap<>(counts).toString();
    }
  }

  private static ClientCallStreamObserver<ProcessingRequest> open(ExternalProcessorGrpc.ExternalProcessorStub stub,
      Outcomes outcomes) {
    @SuppressWarnings("unchecked")
    ClientCallStreamObserver<ProcessingRequest>[] self = new ClientCallStreamObserver[1];
    self[0] = (ClientCallStreamObserver<ProcessingRequest>) stub.process(new StreamObserver<>() {
      @Override
      public void onNext(ProcessingResponse r) {
        if (r.hasImmediateResponse()) {
          outcomes.count(self[0], r.getImmediateResponse().getStatus().getCodeValue() + " "
              + r.getImmediateResponse().getDetails());
        }
      }

      @Override
      public void onError(Throwable t) {
        Status.Code code = Status.fromThrowable(t).getCode();
        if (code != Status.Code.CANCELLED) {
          outcomes.count(self[0], "gRPC " + code);
        }
      }

      @Override
      public void onCompleted() {}
    });
    return self[0];
  }

  private static void awaitReady(ClientCallStreamObserver<ProcessingRequest> call) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!call.isReady() && System.nanoTime() < deadline) {
      Thread.sleep(1); // back-pressure from the transport, bounded
    }
  }

  /** Buffered body bytes once they stop changing (every chunk sent has arrived). */
  private static long awaitQuiet(Epp epp) throws InterruptedException {
    long last = -1;
    long now = bufferedBytes(epp);
    for (int i = 0; i < 100 && now != last; i++) {
      Thread.sleep(100);
      last = now;
      now = bufferedBytes(epp);
    }
    return now;
  }

  private static int awaitOpen(Epp epp, int want) throws InterruptedException {
    int best = 0;
    for (int i = 0; i < 100 && best < want; i++) {
      best = Math.max(best, openStreams(epp));
      Thread.sleep(20);
    }
    return best;
  }

  private static long bufferedBytes(Epp epp) {
    return epp.streamLimits().bufferedBytes();
  }

  private static int openStreams(Epp epp) {
    return epp.streamLimits().openStreams();
  }

  private static String health(ManagedChannel channel) {
    return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService("readiness").build()).getStatus().name();
  }

  /** A small complete request: "routed" when the EPP named a pod, else what it answered. */
  private static String normalRequest(ExternalProcessorGrpc.ExternalProcessorStub stub) throws InterruptedException {
    CountDownLatch first = new CountDownLatch(1);
    String[] result = {"no answer in 10 s"};
    var call = stub.process(new StreamObserver<>() {
      @Override
      public void onNext(ProcessingResponse r) {
        if (first.getCount() == 0) {
          return;
        }
        result[0] = r.hasImmediateResponse() ? "answered " + r.getImmediateResponse().getStatus().getCodeValue()
            : r.hasRequestHeaders() && r.getRequestHeaders().getResponse().getHeaderMutation().getSetHeadersCount() > 0
                ? "routed"
            : "other " + r.getResponseCase();
        first.countDown();
      }

      @Override
      public void onError(Throwable t) {
        if (first.getCount() == 0) {
          return; // our own cancel after the wait: the first outcome stands
        }
        result[0] = "gRPC " + Status.fromThrowable(t).getCode();
        first.countDown();
      }

      @Override
      public void onCompleted() {}
    });
    call.onNext(ExtProcFrames.postHeaders());
    call.onNext(ExtProcFrames.requestBody(ByteString.copyFrom(ExtProcFrames.chatBody()), true));
    if (!first.await(10, TimeUnit.SECONDS)) {
      first.countDown();
    }
    ((ClientCallStreamObserver<ProcessingRequest>) call).cancel("done", null);
    return result[0];
  }
}
