package io.llmgw.bench.load;

import io.llmgw.api.FileModeYaml;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.request.prepare.PromptTokensProducer;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.Rig;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.scorers.LoraPackingScorer;
import io.llmgw.scraper.kvevents.KvEventSettings;
import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Issue 47's flood: two EPP replicas on the {@code precise} policy over five simulated pods, four publishing their
 * KV-cache events as vLLM does and the fifth's event port held by a process that publishes ~315 KB {@code BlockStored}
 * batches as fast as it can. Both replicas run in this JVM, so its heap is theirs together: run it with {@code -Xmx768m}
 * for two replicas of 384 MB, {@code -Xmx2g} for two of 1 GB. One quiet run, one run under the flood (which starts with
 * it and lasts its length; the attacker is a process of its own), then the flood stops and the run waits until both
 * replicas follow the flooded pod's events again. Prints TTFT p50/p99 and errors of each run, this process's CPU per
 * request, what the replicas counted, the heap at its peak, and how long the flooded pod took to be followed again. The
 * load generator shares the process and the machine: this compares latencies at one offered load, not rates. Usage:
 * [seconds a run] [requests a second].
 */
public final class KvFloodRun {
  static final String MODEL = SimConfig.DEFAULT_MODEL;
  static final int BATCH_BYTES = 315_000;

  private KvFloodRun() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 4 && args[0].equals("flood")) {
      flood(args[1], Integer.parseInt(args[2]), Double.parseDouble(args[3]));
      return;
    }
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 30;
    double rate = args.length > 1 ? Double.parseDouble(args[1]) : 10;
    Path dir = Files.createTempDirectory("llmgw-kvflood");
    KvEventsConfig events = KvEventsConfig.DEFAULT_ON;
    SimConfig.Builder base = SimConfig.builder().capacity(16, 1024, 4096).seed(1);
    SimPods publishing = SimPods.start(base.kvEvents(events).build(), 4, "127.0.0.11", 8000);
    String floodedHost = "127.0.0.15";
    SimPods flooded = SimPods.start(base.kvEvents(KvEventsConfig.OFF).build(), 1, floodedHost, 8000);
    Path config = dir.resolve("pool.yaml");
    List<String> addresses = new ArrayList<>(publishing.podAddresses());
    addresses.addAll(flooded.podAddresses());
    Files.writeString(config, FileModeYaml.pool("pool", "sim", 8000) + FileModeYaml.SEPARATOR
        + FileModeYaml.route("base", "pool", MODEL, 0) + FileModeYaml.pods("sim", "sim", addresses));
    SchedulingConfig precise = PolicyShorthand.PRECISE.config(LoraPackingScorer.DEFAULT_PENDING_THRESHOLD)
        .withPlugin(PluginSpec.of(PromptTokensProducer.TYPE, Map.of(PromptTokensProducer.TOKENIZER, "sim")));
    EppSettings d = EppSettings.defaults(config).onLoopbackEphemeralPorts();
    EppSettings s = d.withScheduling(precise).withScrape(d.scrape().withKvEvents(new KvEventSettings(events.port(),
        events.replayPort(), events.topic(), Duration.ofSeconds(1))), d.staleAfter());
    Workload w = Workload.chat(MODEL);
    AtomicLong peakHeap = new AtomicLong();
    Thread heapWatch = Thread.ofPlatform().daemon().start(() -> {
      Runtime rt = Runtime.getRuntime();
      while (!Thread.currentThread().isInterrupted()) {
        peakHeap.accumulateAndGet(rt.totalMemory() - rt.freeMemory(), Math::max);
        try {
          Thread.sleep(50); // a sampling period, not synchronisation
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    System.out.printf(Locale.ROOT, "2 EPP replicas (precise) in one JVM of %d MB, 5 pods, chat at %.0f/s, %.0f s a run;"
        + " the flood: ~%d KB batches on %s:%d%n", Runtime.getRuntime().maxMemory() >> 20, rate, seconds,
        BATCH_BYTES / 1000, floodedHost, events.port());
    try (flooded;
        ZContext zmq = new ZContext();
        Rig rig = Rig.start(publishing, s, ProxySettings.defaults().withListener("127.0.0.1", 0), 2)) {
      for (Epp epp : rig.epps()) {
        Rig.awaitScraped(epp, flooded);
      }
      new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, Math.min(10, seconds), ~1L, 4096, 120).run(n -> {});
      StringBuilder rows = new StringBuilder("| run | TTFT p50 ms | TTFT p99 ms | ok / sent | process CPU ms per "
          + "request | flood losses | batches applied | MB of events read | heap peak MB |\n"
          + "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      peakHeap.set(0);
      double[] counts = counted(rig);
      counts = row(rows, "quiet", rig, new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, seconds, 1, 4096, 120)
          .run(n -> {}), peakHeap, counts);
      // the attacker is a process of its own, so that this one's CPU is the replicas', the pods', the proxy's and the
      // client's, not the flood's sending
      Process flood = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-cp", System.getProperty("java.class.path"), KvFloodRun.class.getName(), "flood", floodedHost,
          Integer.toString(events.port()), Double.toString(seconds)).inheritIO().start();
      peakHeap.set(0);
      RunResult under = new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, seconds, 2, 4096, 120).run(n -> {});
      if (!flood.waitFor((long) seconds + 30, java.util.concurrent.TimeUnit.SECONDS)) {
        flood.destroyForcibly().waitFor();
      }
      row(rows, "flood", rig, under, peakHeap, counts);
      ZMQ.Socket pub = zmq.createSocket(SocketType.PUB);
      pub.setLinger(0);
      pub.bind("tcp://" + floodedHost + ":" + events.port());
      // the flood has stopped: the pod publishes what a pod does, and both replicas must come to follow it again
      long stopped = System.nanoTime();
      byte[] calm = calmBatch();
      long deadline = stopped + Duration.ofSeconds(180).toNanos();
      long seq = 200_000_000L;
      boolean followed = false;
      while (!followed && System.nanoTime() < deadline) {
        pub.sendMore("kv-events");
        pub.sendMore(ByteBuffer.allocate(8).putLong(seq++).array());
        pub.send(calm, ZMQ.DONTWAIT);
        followed = rig.epps().stream().allMatch(e -> e.engineBlocks().view(floodedHost + ":8000") != null);
        Thread.sleep(100); // a publishing period: the condition is polled with a deadline
      }
      System.out.println();
      System.out.print(rows);
      System.out.printf(Locale.ROOT, "%nboth replicas up; the flooded pod followed again by both: %s%n",
          followed ? String.format(Locale.ROOT, "%.1f s after the flood stopped", (System.nanoTime() - stopped) / 1e9)
              : "NOT within 180 s");
    } finally {
      heapWatch.interrupt();
      io.llmgw.api.TempTree.delete(dir);
    }
    System.exit(0);
  }

  /**
   * The replicas' KV-event counters together (flood losses, batches applied, bytes read) and this process's CPU so far
   * in milliseconds: the replicas', the pods', the proxy's and the client's together.
   */
  private static double[] counted(Rig rig) throws Exception {
    double[] c = new double[4];
    c[3] = io.llmgw.bench.ProcessCpu.selfMillis();
    for (Epp epp : rig.epps()) {
      String m = EppMetricsText.scrape(epp);
      c[0] += EppMetricsText.value(m, "llmgw_kv_event_losses_total{reason=\"flood\"}");
      c[1] += EppMetricsText.value(m, "llmgw_kv_event_batches_total");
      c[2] += EppMetricsText.value(m, "llmgw_kv_event_bytes_total");
    }
    return c;
  }

  /** One run's row: its latencies, and what the replicas counted during it (since {@code before}). */
  private static double[] row(StringBuilder rows, String name, Rig rig, RunResult r, AtomicLong peakHeap,
      double[] before) throws Exception {
    double[] now = counted(rig);
    rows.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %d / %d | %.1f | %.0f | %.0f | %.0f | %d |%n",
        name, r.ttftMs(50), r.ttftMs(99), r.ok(), r.sent(), (now[3] - before[3]) / Math.max(1, r.ok()),
        now[0] - before[0], now[1] - before[1], (now[2] - before[2]) / (1 << 20), peakHeap.get() >> 20));
    return now;
  }

  /** The attacker: publishes ~315 KB batches on the pod's event port as fast as its PUB socket lets it, then ends. */
  private static void flood(String host, int port, double seconds) {
    try (ZContext zmq = new ZContext()) {
      ZMQ.Socket pub = zmq.createSocket(SocketType.PUB);
      pub.setLinger(0);
      pub.setSndHWM(8);
      pub.bind("tcp://" + host + ":" + port);
      byte[] batch = bigBatch();
      long end = System.nanoTime() + (long) (seconds * 1e9);
      // for the run's length; the count only bounds it (a PUB socket drops what its peers cannot take)
      for (long seq = 0; System.nanoTime() < end && seq < 10_000_000_000L; seq++) {
        pub.sendMore("kv-events");
        pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
        pub.send(batch, ZMQ.DONTWAIT);
      }
    }
  }

  /** One block of a long run of token ids: a batch the index takes, of about {@link #BATCH_BYTES}. */
  private static byte[] bigBatch() {
    int[] tokens = new int[BATCH_BYTES / 5];
    java.util.Arrays.fill(tokens, 1_000_000);
    return stored(new long[] {7}, tokens, tokens.length);
  }

  private static byte[] calmBatch() {
    return stored(new long[] {1, 2}, new int[] {1, 2, 3, 4, 5, 6, 7, 8}, 4);
  }

  /** A {@code KVEventBatch} of one {@code BlockStored} with no parent, in vLLM's array-like msgpack. */
  private static byte[] stored(long[] hashes, int[] tokens, int blockSize) {
    try (org.msgpack.core.MessageBufferPacker p = org.msgpack.core.MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2).packDouble(1.5).packArrayHeader(1);
      p.packArrayHeader(7).packString("BlockStored").packArrayHeader(hashes.length);
      for (long h : hashes) {
        p.packLong(h);
      }
      p.packNil().packArrayHeader(tokens.length);
      for (int t : tokens) {
        p.packInt(t);
      }
      p.packInt(blockSize).packNil().packString("GPU");
      return p.toByteArray();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
