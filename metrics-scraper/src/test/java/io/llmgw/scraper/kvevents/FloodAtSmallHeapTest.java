package io.llmgw.scraper.kvevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Issue 47, the probe that took every replica down: a process on a pod's event port publishing ~315 KB batches in a
 * loop. A subscriber in a JVM of its own with a 128 MB heap and the default limits stays up, distrusts the pod, and
 * follows it again once it calms down. (With the old intake, 10,000 queued messages per pod, it ran out of heap; the
 * same happens here with limits as loose as {@link #LOOSE}, which the closing note of issue 47 records.)
 */
class FloodAtSmallHeapTest {
  static final String POD = "127.0.0.126:8000";
  static final int PORT = 5557;
  static final Pattern STATUS = Pattern.compile("batches=(\\d+) flood=(\\d+) matched=(-?\\d+) heap=(\\d+)");
  static final String[] LOOSE = {"" + (8L << 30), "" + (8L << 30)};

  @Test
  void aFloodOf315KbBatchesLeavesA128MbSubscriberUpAndThePodFollowedAfterwards() throws Exception {
    run(new String[] {"" + KvEventSettings.DEFAULT_BUDGET_BYTES, "" + KvEventSettings.DEFAULT_POD_BYTES_PER_SECOND});
  }

  static void run(String[] limits) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(List.of(java, "-Xmx128m", "-XX:+ExitOnOutOfMemoryError", "-cp",
        System.getProperty("java.class.path"), FloodedSubscriber.class.getName(), POD, "" + PORT, limits[0],
        limits[1])).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    AtomicReference<Matcher> status = new AtomicReference<>();
    long[] peakHeap = {0};
    Thread reader = Thread.ofPlatform().daemon().start(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null;) {
          Matcher m = STATUS.matcher(line);
          if (m.matches()) {
            peakHeap[0] = Math.max(peakHeap[0], Long.parseLong(m.group(4)));
            status.set(m);
          }
        }
      } catch (java.io.IOException ended) {
        // the child ended: the assertions below say how
      }
    });
    try (ZContext context = new ZContext()) {
      ZMQ.Socket pub = context.createSocket(SocketType.PUB);
      pub.setLinger(0);
      pub.setSndHWM(8); // this process's own queue stays small: the flood is what the subscriber receives
      pub.bind("tcp://127.0.0.126:" + PORT);
      long[] seq = {0};
      await().atMost(Duration.ofSeconds(30)).pollInSameThread().pollInterval(Duration.ofMillis(20)).until(() -> {
        publish(pub, seq[0]++, HostilePodIntakeTest.twoBlocks(100));
        return status.get() != null && Integer.parseInt(status.get().group(3)) == 2;
      });
      byte[] big = HostilePodIntakeTest.bigBatch(7, 315_000);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      long batchesBefore = Long.parseLong(status.get().group(1));
      for (int i = 0; i < 100_000_000 && System.nanoTime() < end; i++) { // 10 s (and a count): PUB drops past 8
        publish(pub, seq[0]++, big);
      }
      assertThat(child.isAlive()).as("the subscriber outlived the flood").isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> Long.parseLong(status.get().group(2)) > 0);
      System.out.println("flood: " + (Long.parseLong(status.get().group(1)) - batchesBefore) + " batches applied, "
          + status.get().group(2) + " floods counted, heap peak " + (peakHeap[0] >> 20) + " MiB");
      await().atMost(Duration.ofSeconds(90)).pollInSameThread().pollInterval(Duration.ofMillis(50)).until(() -> {
        publish(pub, seq[0]++, HostilePodIntakeTest.twoBlocks(100));
        return Integer.parseInt(status.get().group(3)) == 2;
      });
      assertThat(child.isAlive()).isTrue();
      assertThat(peakHeap[0]).as("heap in use at its peak").isLessThan(128L << 20);
    } finally {
      child.getOutputStream().close();
      if (!child.waitFor(10, TimeUnit.SECONDS)) {
        child.destroyForcibly();
      }
      reader.join(5_000);
    }
  }

  static void publish(ZMQ.Socket pub, long seq, byte[] payload) {
    pub.sendMore("kv-events");
    pub.sendMore(FakeEventPod.seq(seq));
    pub.send(payload, ZMQ.DONTWAIT);
  }
}
