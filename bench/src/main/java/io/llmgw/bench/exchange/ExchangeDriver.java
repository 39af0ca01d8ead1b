package io.llmgw.bench.exchange;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc.ExternalProcessorStub;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.stub.StreamObserver;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Keeps {@code streams} exchanges in flight against one server, spread over the given connections as Envoy's workers
 * spread theirs, driven from the gRPC callbacks (no thread per stream, nothing built per frame): when one exchange
 * ends the next starts on the same connection. A warm-up, then a fixed window in which completions, latencies and
 * both processes' CPU are counted.
 */
final class ExchangeDriver {
  private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
      .getOperatingSystemMXBean();

  /** What one window measured. Latencies in microseconds; CPU in milliseconds over the window. */
  record Window(String server, long exchanges, long errors, double seconds, Histogram answer, Histogram whole,
      long serverCpuMillis, long serverJitMillis, long clientCpuMillis, double machineBusy) {
    double rate() {
      return exchanges / seconds;
    }

    double serverCpuPerExchange() {
      return exchanges == 0 ? Double.NaN : (double) serverCpuMillis / exchanges;
    }

    /** Of the server's CPU per exchange, what its JIT compiler spent in the window (a lower bound). */
    double serverJitPerExchange() {
      return exchanges == 0 ? Double.NaN : (double) serverJitMillis / exchanges;
    }

    double clientCpuPerExchange() {
      return exchanges == 0 ? Double.NaN : (double) clientCpuMillis / exchanges;
    }
  }

  private final List<ExternalProcessorStub> connections;
  private final ExchangeShape shape;
  private final int streams;
  private final Recorder answer = new Recorder(3);
  private final Recorder whole = new Recorder(3);
  private final LongAdder completed = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final AtomicInteger open = new AtomicInteger();
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private volatile boolean stopping;

  private ExchangeDriver(List<ExternalProcessorStub> connections, ExchangeShape shape, int streams) {
    this.connections = connections;
    this.shape = shape;
    this.streams = streams;
  }

  /** One measured window against {@code server}: warm-up, window, then the open streams finish (30 s at most). */
  static Window measure(ServerProcess server, List<ExternalProcessorStub> connections, ExchangeShape shape,
      int streams, Duration warmup, Duration window) throws Exception {
    ExchangeDriver d = new ExchangeDriver(connections, shape, streams);
    for (int i = 0; i < streams; i++) {
      d.next(i);
    }
    Thread.sleep(warmup.toMillis()); // a load run's warm-up, not a test synchronisation
    server.requireAlive();
    d.answer.reset();
    d.whole.reset();
    long done0 = d.completed.sum();
    long failed0 = d.failed.sum();
    long server0 = server.cpuMillis();
    long jit0 = server.compilerCpuMillis();
    long client0 = OS.getProcessCpuTime();
    MachineCpu machine0 = MachineCpu.now();
    long t0 = System.nanoTime();
    Thread.sleep(window.toMillis()); // the measured window
    long exchanges = d.completed.sum() - done0;
    long errors = d.failed.sum() - failed0;
    double seconds = (System.nanoTime() - t0) / 1e9;
    long serverCpu = server.cpuMillis() - server0;
    long jit = Math.max(0, server.compilerCpuMillis() - jit0);
    long clientCpu = (OS.getProcessCpuTime() - client0) / 1_000_000;
    double busy = MachineCpu.now().busySince(machine0);
    Histogram answers = d.answer.getIntervalHistogram();
    Histogram wholes = d.whole.getIntervalHistogram();
    d.stopping = true;
    if (d.open.get() == 0) {
      d.drained.complete(null);
    }
    d.drained.get(30, TimeUnit.SECONDS);
    server.requireAlive();
    return new Window(server.name(), exchanges, errors, seconds, answers, wholes, serverCpu, jit, clientCpu, busy);
  }

  private void next(int slot) {
    if (stopping) {
      if (open.get() == 0) {
        drained.complete(null);
      }
      return;
    }
    open.incrementAndGet();
    new Exchange(slot).start();
  }

  private void ended(int slot, boolean ok) {
    (ok ? completed : failed).increment();
    open.decrementAndGet();
    next(slot);
  }

  /** One exchange: the request frames at once, the response frames once routed and the body came back. */
  private final class Exchange implements StreamObserver<ProcessingResponse> {
    private final int slot;
    private final long startNanos = System.nanoTime();
    private StreamObserver<ProcessingRequest> out;
    private long lastRequestFrameNanos;
    private boolean routed;
    private boolean bodyEchoed;
    private boolean responseSent;
    private int responseAnswers;
    private boolean over;

    Exchange(int slot) {
      this.slot = slot;
    }

    void start() {
      out = connections.get(slot % connections.size()).process(this);
      List<ProcessingRequest> frames = shape.request();
      for (int i = 0; i < frames.size(); i++) {
        if (i == frames.size() - 1) {
          lastRequestFrameNanos = System.nanoTime();
        }
        out.onNext(frames.get(i));
      }
    }

    @Override
    public synchronized void onNext(ProcessingResponse r) {
      switch (r.getResponseCase()) {
        case REQUEST_HEADERS -> {
          routed = true;
          answer.recordValue(Math.max(1, (System.nanoTime() - lastRequestFrameNanos) / 1_000));
        }
        case REQUEST_BODY -> bodyEchoed |= r.getRequestBody().getResponse().getBodyMutation().getStreamedResponse()
            .getEndOfStream();
        case RESPONSE_BODY -> {
          if (++responseAnswers == shape.response().size() - 1) {
            whole.recordValue(Math.max(1, (System.nanoTime() - startNanos) / 1_000));
            end(true);
          }
        }
        case RESPONSE_HEADERS -> {}
        default -> end(false); // an immediate response or anything unexpected: not the exchange measured
      }
      if (routed && bodyEchoed && !responseSent && !over) {
        responseSent = true;
        for (ProcessingRequest f : shape.response()) {
          out.onNext(f);
        }
      }
    }

    private void end(boolean ok) {
      if (!over) {
        over = true;
        out.onCompleted();
        ended(slot, ok);
      }
    }

    @Override
    public synchronized void onError(Throwable t) {
      end(false);
    }

    @Override
    public void onCompleted() {}
  }
}
