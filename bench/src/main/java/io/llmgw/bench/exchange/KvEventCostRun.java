package io.llmgw.bench.exchange;

import io.llmgw.api.FileModeYaml;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Issue 51, item 6: what one EPP replica pays per KV-cache event batch it follows. {@code llmgw serve} from its jar, in a
 * process of its own, on the {@code precise} policy over simulated pods whose events this process publishes as vLLM
 * does on each pod's port 5557: batches of one {@code BlockStored} (a prompt's blocks, a chain of its own) and, once a
 * pod holds enough chains, one {@code BlockRemoved} of its oldest (the engine evicting), so the index stays under its
 * caps. Two windows of the same length on the same process: the pods scraped with nothing published, then the events
 * at the rate asked. The difference of the server's CPU ({@code /proc/<pid>/stat}) over the batches it applied (its
 * {@code llmgw_kv_event_batches_total}) is its CPU per batch. Usage: JAR [pods] [batches/s] [blocks a batch] [seconds]
 * [server JVM flags].
 */
public final class KvEventCostRun {
  private static final int BLOCK_TOKENS = 16;
  /** Chains a pod keeps before each new one evicts its oldest. */
  private static final int CHAINS_KEPT = 256;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]);
    int pods = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    double rate = args.length > 2 ? Double.parseDouble(args[2]) : 400;
    int blocks = args.length > 3 ? Integer.parseInt(args[3]) : 16;
    double seconds = args.length > 4 ? Double.parseDouble(args[4]) : 20;
    // the server's own JVM flags, e.g. a profiler's; {name} in one becomes its log's name
    List<String> serverFlags = args.length > 5 ? List.of(args[5].split(" ")) : List.of();
    Path dir = Files.createTempDirectory("llmgw-kv-event-cost");
    try (SimPods sims = SimPods.start(SimConfig.defaults(), pods, "127.0.0.11", 8000);
        ZContext zmq = new ZContext()) {
      Path config = dir.resolve("pool.yaml");
      Files.writeString(config, FileModeYaml.pool("sim-pool", "sim", 8000) + FileModeYaml.SEPARATOR
          + FileModeYaml.route("base", "sim-pool", SimConfig.DEFAULT_MODEL, 10)
          + FileModeYaml.pods("sim", "sim", sims.podAddresses()));
      List<ZMQ.Socket> publishers = new ArrayList<>();
      for (String a : sims.podAddresses()) {
        ZMQ.Socket pub = zmq.createSocket(SocketType.PUB);
        pub.setLinger(0);
        pub.bind("tcp://" + a.substring(0, a.lastIndexOf(':')) + ":5557");
        publishers.add(pub);
      }
      try (ServerProcess epp = ServerProcess.epp(jar, config, List.of("--policy", "precise", "--kv-events-port",
          "5557"), dir, serverFlags)) {
        String metrics = "http://127.0.0.1:" + metricsPort(dir) + "/metrics";
        Publisher publisher = new Publisher(publishers, blocks);
        // subscriptions connect after the server starts: publish until every pod's first batches are applied
        long warmUntil = System.nanoTime() + 60_000_000_000L;
        while (counter(metrics, "llmgw_kv_event_batches_total") < 50L * pods && System.nanoTime() < warmUntil) {
          publisher.publishFor(rate, 1);
        }
        publisher.publishFor(rate, 10); // the server's code compiled for the path measured
        long idleCpu = epp.cpuMillis();
        idle(seconds);
        idleCpu = epp.cpuMillis() - idleCpu;
        double batchesBefore = counter(metrics, "llmgw_kv_event_batches_total");
        long busyCpu = epp.cpuMillis();
        long busySystem = epp.systemCpuMillis();
        long started = System.nanoTime();
        long sent = publisher.publishFor(rate, seconds);
        double busySeconds = (System.nanoTime() - started) / 1e9; // longer than asked when the publisher fell behind
        busyCpu = epp.cpuMillis() - busyCpu;
        busySystem = epp.systemCpuMillis() - busySystem;
        double applied = counter(metrics, "llmgw_kv_event_batches_total") - batchesBefore;
        epp.requireAlive();
        double eventsCpu = busyCpu - idleCpu * busySeconds / seconds;
        double perBatchMs = eventsCpu / Math.max(1, applied);
        System.out.printf(Locale.ROOT,
            "| %d | %.0f/s asked, %.0f/s sent | %d | %.0f of %d (%.1f %%) | %d ms idle, %d ms "
                + "with events (%d ms in the kernel) | %.3f ms (%.1f µs a block stored) | %.1f %% of a core |%n",
            pods, rate, sent / busySeconds, blocks, applied, sent, 100 * applied / Math.max(1, sent), idleCpu, busyCpu,
            busySystem, perBatchMs, 1000 * perBatchMs / blocks, 100 * eventsCpu / (busySeconds * 1000));
      }
    }
  }

  /** The idle window: nothing published, the server scraping its pods as always. */
  private static void idle(double seconds) {
    LockSupport.parkNanos((long) (seconds * 1e9)); // a measured window, not a synchronisation
  }

  /** vLLM's batches, one pod after another, paced to a rate. */
  static final class Publisher {
    private final List<ZMQ.Socket> pods;
    private final int blocks;
    private final long[] seq;
    private final long[] chains;
    private long nextHash = 1;
    private long batches;

    Publisher(List<ZMQ.Socket> pods, int blocks) {
      this.pods = pods;
      this.blocks = blocks;
      this.seq = new long[pods.size()];
      this.chains = new long[pods.size()];
    }

    /** Publishes at {@code rate} batches a second for {@code seconds}; how many were sent. */
    long publishFor(double rate, double seconds) {
      long start = System.nanoTime();
      long total = (long) (rate * seconds);
      for (long i = 0; i < total; i++) {
        LockSupport.parkNanos(start + (long) (i * 1e9 / rate) - System.nanoTime()); // pacing, not synchronisation
        int pod = (int) (batches++ % pods.size()); // round robin over every call, so evictions find their chains
        ZMQ.Socket pub = pods.get(pod);
        pub.sendMore("kv-events");
        pub.sendMore(ByteBuffer.allocate(8).putLong(seq[pod]++).array());
        pub.send(batch(pod), ZMQ.DONTWAIT);
      }
      return total;
    }

    /** One prompt's blocks as a new chain, and the eviction of the chain {@link #CHAINS_KEPT} before it. */
    private byte[] batch(int pod) {
      long first = nextHash;
      nextHash += blocks;
      boolean evict = ++chains[pod] > CHAINS_KEPT;
      long evicted = first - (long) CHAINS_KEPT * pods.size() * blocks;
      try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
        p.packArrayHeader(2).packDouble(System.currentTimeMillis() / 1000.0).packArrayHeader(evict ? 2 : 1);
        p.packArrayHeader(7).packString("BlockStored").packArrayHeader(blocks);
        for (int b = 0; b < blocks; b++) {
          p.packLong(first + b);
        }
        p.packNil().packArrayHeader(blocks * BLOCK_TOKENS);
        for (int t = 0; t < blocks * BLOCK_TOKENS; t++) {
          p.packInt((int) ((first * 31 + t) & 0xffff));
        }
        p.packInt(BLOCK_TOKENS).packNil().packString("GPU");
        if (evict) {
          p.packArrayHeader(3).packString("BlockRemoved").packArrayHeader(blocks);
          for (int b = 0; b < blocks; b++) {
            p.packLong(evicted + b);
          }
          p.packString("GPU");
        }
        return p.toByteArray();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** The metrics port the server's log names. */
  private static int metricsPort(Path dir) throws IOException {
    try (var logs = Files.list(dir)) {
      for (Path log : (Iterable<Path>) logs::iterator) {
        Matcher m = Pattern.compile("metrics on (\\d+)").matcher(Files.readString(log));
        if (log.getFileName().toString().startsWith("epp-") && m.find()) {
          return Integer.parseInt(m.group(1));
        }
      }
    }
    throw new IllegalStateException("the server's log names no metrics port");
  }

  private static double counter(String url, String name) throws Exception {
    String page = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    Matcher m = Pattern.compile("(?m)^" + name + " ([0-9.eE+-]+)$").matcher(page);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  private KvEventCostRun() {}
}
