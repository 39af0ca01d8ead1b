package io.llmgw.bench;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProtocolConfiguration;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.picker.config.PolicyShorthand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Load run of the whole EPP over gRPC: C concurrent clients each drive complete ext_proc exchanges (request headers,
 * a ~2 KiB chat body, the routing answer and re-emitted body, response headers and body) against 16 pods. Reports
 * throughput, the latency from the last body frame to the routing answer, and what is left in flight afterwards, next
 * to the same run against {@link NullExtProc} (the protocol's own cost, measured in the same run: these machines are
 * noisy, so the ratio is the figure to compare). Usage: [clients] [requests] [policy] [body bytes] [chunk bytes]: the
 * body is a chat request padded to the given size (default ~1.7 KiB), sent in chunks of the given size (default 16 KiB,
 * what Envoy forwards per read); a sixth argument {@code async} keeps that many streams in flight from callbacks
 * ({@link AsyncExchanges}) instead of one blocking thread per client, so the client's own cost stays small. Client and
 * server share the machine's cores.
 */
public final class ExtProcLoadRun {
  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 32;
    int requests = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
    PolicyShorthand policy = PolicyShorthand.parse(args.length > 2 ? args[2] : "seed");
    int bodyBytes = args.length > 3 ? Integer.parseInt(args[3]) : 0;
    int chunkBytes = args.length > 4 ? Integer.parseInt(args[4]) : 16 * 1024;
    boolean async = args.length > 5 && args[5].equals("async");
    int podCount = 16;
    try (StaticPods pods = new StaticPods(podCount, 0, ScrapeLoadRun.metricsPage(),
        "{\"data\":[{\"id\":\"base\"},{\"id\":\"adapter-1\",\"parent\":\"base\"},{\"id\":\"adapter-2\",\"parent\":\"base\"}]}")) {
      Path config = Files.createTempFile("load", ".yaml");
      Files.writeString(config, yaml(pods));
      EppSettings settings = EppSettings.defaults(config).onLoopbackEphemeralPorts().withPolicy(policy, 50);
      try (Epp epp = Epp.start(settings, Clock.systemUTC());
          NullExtProc nullEpp = new NullExtProc(pods.address(0))) {
        Thread.sleep(1_000); // first scrapes of a load run; not a test synchronisation
        List<ByteString> body = chunks(bodyBytes > 0 ? chatBody(bodyBytes) : chatBody(), chunkBytes);
        Row baseline = measure(nullEpp.port(), clients, requests, body, async);
        Row row = measure(epp.grpcPort(), clients, requests, body, async);
        long leftInFlight = epp.datastore().inFlight().all().values().stream().mapToLong(l -> l.total()).sum();
        int size = body.stream().mapToInt(ByteString::size).sum();
        System.out
            .printf("%n| policy | body | clients | requests | req/s | null EPP req/s | EPP / null | routing answer "
                + "p50 / p99 / max (µs) | null EPP p50 / p99 (µs) | errors | in flight after |%n");
        System.out.printf("|---|---|---|---|---|---|---|---|---|---|---|%n");
        System.out.printf("| %s | %,d B in %d | %d | %d | %.0f | %.0f | %.2f | %d / %d / %d | %d / %d | %d | %d |%n",
            policy.cliName() + (async ? " (async)" : ""), size, body.size(), clients, row.done, row.rate(),
            baseline.rate(),
            row.rate() / baseline.rate(), row.answer.getValueAtPercentile(50), row.answer.getValueAtPercentile(99),
            row.answer.getMaxValue(), baseline.answer.getValueAtPercentile(50),
            baseline.answer.getValueAtPercentile(99), row.errors + baseline.errors, leftInFlight);
      } finally {
        Files.deleteIfExists(config);
      }
    }
  }

  /** Requests per second through one ext_proc server, after a tenth of the requests as warm-up. */
  private record Row(long done, long errors, double seconds, Histogram answer) {
    double rate() {
      return done / seconds;
    }
  }

  private static Row measure(int port, int clients, int requests, List<ByteString> body, boolean async)
      throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      var stub = ExternalProcessorGrpc.newStub(channel);
      AtomicLong errors = new AtomicLong();
      Histogram answer = new ConcurrentHistogram(10_000_000, 3);
      AtomicLong done = new AtomicLong();
      drive(async, clients, requests / 10, stub, body, new ConcurrentHistogram(10_000_000, 3), new AtomicLong(),
          errors);
      long t0 = System.nanoTime();
      drive(async, clients, requests, stub, body, answer, done, errors);
      return new Row(done.get(), errors.get(), (System.nanoTime() - t0) / 1e9, answer);
    } finally {
      channel.shutdownNow();
    }
  }

  private static void drive(boolean async, int clients, int requests, ExternalProcessorGrpc.ExternalProcessorStub stub,
      List<ByteString> body, Histogram answer, AtomicLong done, AtomicLong errors) throws Exception {
    if (async) {
      AsyncExchanges.run(stub, clients, requests, body, answer, done, errors);
    } else {
      runClients(clients, requests, stub, body, answer, done, errors);
    }
  }

  private static void runClients(int clients, int requests, ExternalProcessorGrpc.ExternalProcessorStub stub,
      List<ByteString> body,
      Histogram decision, AtomicLong done, AtomicLong errors) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    AtomicLong remaining = new AtomicLong(requests);
    List<Future<?>> futures = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      futures.add(pool.submit(() -> {
        while (remaining.getAndDecrement() > 0) {
          try {
            decision.recordValue(exchange(stub, body));
            done.incrementAndGet();
          } catch (Exception e) {
            errors.incrementAndGet();
          }
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get(10, TimeUnit.MINUTES);
    }
    pool.shutdown();
  }

  /** One full exchange; returns microseconds from the last request-body frame to the routing answer. */
  private static long exchange(ExternalProcessorGrpc.ExternalProcessorStub stub, List<ByteString> body)
      throws Exception {
    BlockingQueue<ProcessingResponse> answers = new LinkedBlockingQueue<>();
    StreamObserver<ProcessingRequest> out = stub.process(new StreamObserver<>() {
      @Override
      public void onNext(ProcessingResponse value) {
        answers.add(value);
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {}
    });
    out.onNext(postHeaders());
    for (int i = 0; i < body.size() - 1; i++) {
      out.onNext(requestBody(body.get(i), false));
    }
    long t0 = System.nanoTime();
    out.onNext(requestBody(body.getLast(), true));
    ProcessingResponse routed;
    do { // the null EPP echoes chunks as they come, before its routing answer; the EPP answers first
      routed = take(answers);
    } while (routed.hasRequestBody() && !routed.getRequestBody().getResponse().getBodyMutation()
        .getStreamedResponse().getEndOfStream());
    long micros = (System.nanoTime() - t0) / 1_000;
    if (!routed.hasRequestHeaders()) {
      out.onCompleted();
      throw new IllegalStateException("not routed: " + routed);
    }
    ProcessingResponse echoed;
    do {
      echoed = take(answers);
    } while (!echoed.getRequestBody().getResponse().getBodyMutation().getStreamedResponse().getEndOfStream());
    out.onNext(
        ProcessingRequest.newBuilder().setResponseHeaders(HttpHeaders.newBuilder().setHeaders(HeaderMap.newBuilder()
            .addHeaders(header(":status", "200")).addHeaders(header("content-type", "application/json")))).build());
    take(answers);
    out.onNext(ProcessingRequest.newBuilder().setResponseBody(HttpBody.newBuilder()
        .setBody(ByteString.copyFromUtf8("{\"usage\":{\"prompt_tokens\":500,\"completion_tokens\":20}}"))
        .setEndOfStream(true)).build());
    take(answers);
    out.onCompleted();
    return micros;
  }

  private static ProcessingResponse take(BlockingQueue<ProcessingResponse> q) throws InterruptedException {
    ProcessingResponse r = q.poll(10, TimeUnit.SECONDS);
    if (r == null) {
      throw new IllegalStateException("no answer within 10 s");
    }
    return r;
  }

  /** A chat completion's request headers, as Envoy sends them in FULL_DUPLEX_STREAMED mode. */
  static ProcessingRequest postHeaders() {
    return ProcessingRequest.newBuilder()
        .setRequestHeaders(HttpHeaders.newBuilder().setHeaders(HeaderMap.newBuilder()
            .addHeaders(header(":method", "POST")).addHeaders(header(":path", "/v1/chat/completions"))))
        .setProtocolConfig(ProtocolConfiguration.newBuilder()
            .setRequestBodyMode(BodySendMode.FULL_DUPLEX_STREAMED)
            .setResponseBodyMode(BodySendMode.FULL_DUPLEX_STREAMED))
        .build();
  }

  static ProcessingRequest requestBody(ByteString bytes, boolean endOfStream) {
    return ProcessingRequest.newBuilder()
        .setRequestBody(HttpBody.newBuilder().setBody(bytes).setEndOfStream(endOfStream)).build();
  }

  private static HeaderValue header(String k, String v) {
    return HeaderValue.newBuilder().setKey(k).setRawValue(ByteString.copyFromUtf8(v)).build();
  }

  /** A chat request of about {@code bytes}, its user message a long document (a 220 KB prompt, say). */
  static byte[] chatBody(int bytes) {
    String head = "{\"model\":\"adapter-1\",\"messages\":[{\"role\":\"system\",\"content\":\"You are a helpful "
        + "assistant.\"},{\"role\":\"user\",\"content\":\"";
    String tail = "\"}],\"max_tokens\":64}";
    StringBuilder doc = new StringBuilder(bytes);
    while (doc.length() < bytes - head.length() - tail.length()) {
      doc.append("The quarterly report shows revenue growth in every region. ");
    }
    doc.setLength(Math.max(0, bytes - head.length() - tail.length()));
    return (head + doc + tail).getBytes(StandardCharsets.UTF_8);
  }

  static List<ByteString> chunks(byte[] body, int chunk) {
    List<ByteString> out = new ArrayList<>();
    for (int off = 0; off < body.length; off += chunk) {
      out.add(ByteString.copyFrom(body, off, Math.min(chunk, body.length - off)));
    }
    return out;
  }

  static byte[] chatBody() {
    return ("{\"model\":\"adapter-1\",\"messages\":[{\"role\":\"system\",\"content\":\""
        + "You are a helpful assistant. ".repeat(60)
        + "\"},{\"role\":\"user\",\"content\":\"Hello\"}],\"max_tokens\":64}")
        .getBytes(StandardCharsets.UTF_8);
  }

  static String yaml(StaticPods pods) {
    StringBuilder sb = new StringBuilder(
        FileModeYaml.pool("pool", "sim", Integer.parseInt(pods.address(0).split(":")[1])))
        .append(FileModeYaml.SEPARATOR).append("""
            apiVersion: inference.x-k8s.io/v1alpha1
            kind: LLMRoute
            metadata: {name: a1}
            spec: {backendRefs: [{name: pool}], adapter: {name: adapter-1}}
            """);
    for (int i = 0; i < pods.size(); i++) {
      sb.append(FileModeYaml.SEPARATOR).append(FileModeYaml.pod("pod-" + i, "sim", StaticPods.ip(i)));
    }
    return sb.toString();
  }
}
