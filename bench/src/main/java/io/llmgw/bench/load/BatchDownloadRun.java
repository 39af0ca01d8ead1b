package io.llmgw.bench.load;

import io.llmgw.api.LoopbackPorts;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Big downloads and big validations next to everything else (issue 27, items 4 and 6): the batch service in a JVM of
 * its own with a heap limit, an input file of about {@code megabytes} MB (lines of ~3.8 KB) uploaded with 4 batches on
 * it, and 200 batches on a 100-line file, all validating while the fake EPP refuses its load reading. Then, in turn: 8
 * downloads of the big file as fast as the client reads (each checked byte for byte), 16 clients reading it slowly
 * (2 MiB/s each for 15 s), and validation of all 204 batches once the EPP answers (a pool of no pods, so nothing is
 * sent). Meanwhile {@code GET /v1/batches} is called every 100 ms and the service's RSS is sampled from {@code /proc}.
 * Usage: [megabytes] [heap, e.g. 512m] [service classpath, default this one's].
 */
public final class BatchDownloadRun {
  private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");

  public static void main(String[] args) throws Exception {
    int megabytes = args.length > 0 ? Integer.parseInt(args[0]) : 190;
    String heap = args.length > 1 ? args[1] : "512m";
    String classpath = args.length > 2 ? args[2] : System.getProperty("java.class.path");
    Path dir = Files.createTempDirectory("llmgw-batch-download");
    int port = LoopbackPorts.free();
    AtomicBoolean loadOn = new AtomicBoolean();
    com.sun.net.httpserver.HttpServer epp = fakeEpp(loadOn);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx" + heap));
    String extra = System.getProperty("service.jvm", ""); // e.g. -Xlog:gc:file=gc.log, to see where pauses come from
    if (!extra.isBlank()) {
      command.addAll(List.of(extra.trim().split("\\s+")));
    }
    command.addAll(List.of("-cp", classpath, "io.llmgw.batch.BatchCommand", "--port", Integer.toString(port),
        "--store", "sqlite:" + dir.resolve("batch.db"), "--epp", "127.0.0.1:" + epp.getAddress().getPort(),
        "--gateway", "http://127.0.0.1:1"));
    Process service = new ProcessBuilder(command)
        .redirectErrorStream(true).redirectOutput(dir.resolve("service.log").toFile()).start();
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      String base = "http://127.0.0.1:" + port;
      awaitUp(http, base);
      Path input = inputFile(dir, megabytes);
      long bytes = Files.size(input);
      long crc = crc(input);
      String fileId = upload(http, base, dir, input);
      Files.delete(input);
      for (int i = 0; i < 4; i++) {
        createBatch(http, base, fileId);
      }
      Path small = inputFile(dir, 0);
      String smallId = upload(http, base, dir, small);
      for (int i = 0; i < 200; i++) {
        createBatch(http, base, smallId);
      }
      System.out.printf(Locale.ROOT, "service pid %d, heap -Xmx%s, file %s of %.1f MB; log in %s%n", service.pid(),
          heap,
          fileId, bytes / 1e6, dir);
      StringBuilder table = new StringBuilder(
          "| phase | downloads whole and intact | MB/s (all) | GET /v1/batches p50 / p99 / max "
              + "ms (n, over 1 s) | service RSS peak MB | service CPU s (ms per MB sent) |\n|---|---:|---:|---|---:|---:|\n");
      table.append(phase("idle (no download)", http, base, service.pid(), () -> sleep(3_000), bytes));
      table.append(phase("8 downloads, read as fast as the client can", http, base, service.pid(),
          () -> readers(port, fileId, 8, 0, 120_000, bytes, crc), bytes));
      table.append(phase("16 slow readers (2 MiB/s each, 15 s)", http, base, service.pid(),
          () -> readers(port, fileId, 16, 2 << 20, 15_000, bytes, crc), bytes));
      table.append(phase("validation of 204 batches (4 on the big file, 200 on a 100-line one)", http, base,
          service.pid(), () -> {
            loadOn.set(true);
            long t0 = System.nanoTime();
            int left;
            while ((left = validating(http, base)) > 0 && System.nanoTime() - t0 < 600_000_000_000L) {
              sleep(200);
            }
            System.out.printf(Locale.ROOT, "validation: %d batches left validating after %.1f s%n", left,
                (System.nanoTime() - t0) / 1e9);
            return new long[0];
          }, bytes));
      System.out.println();
      System.out.print(table);
    } finally {
      epp.stop(0);
      service.destroy();
      service.waitFor(10, TimeUnit.SECONDS);
    }
    System.exit(0);
  }

  private interface Load {
    long[] run() throws Exception;
  }

  /** Runs the load while the list is probed and RSS sampled; one table row. */
  private static String phase(String name, HttpClient http, String base, long pid, Load load, long fileBytes)
      throws Exception {
    AtomicBoolean done = new AtomicBoolean();
    List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
    AtomicLong slow = new AtomicLong();
    AtomicLong rssPeak = new AtomicLong();
    Thread probe = Thread.ofPlatform().start(() -> {
      while (!done.get()) {
        long t0 = System.nanoTime();
        try {
          HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/batches?limit=20"))
              .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
          long ms = (System.nanoTime() - t0) / 1_000_000;
          latencies.add(r.statusCode() == 200 ? ms : Long.MAX_VALUE);
          if (ms > 1000) {
            slow.incrementAndGet();
          }
        } catch (Exception e) {
          latencies.add(Long.MAX_VALUE);
        }
        sleep(100);
      }
    });
    Thread rss = Thread.ofPlatform().start(() -> {
      while (!done.get()) {
        rssPeak.accumulateAndGet(rssKb(pid), Math::max);
        sleep(50);
      }
    });
    long cpu0 = cpuTicks(pid);
    long t0 = System.nanoTime();
    long[] read = load.run();
    double cpuSeconds = (cpuTicks(pid) - cpu0) / 100.0; // USER_HZ
    double seconds = (System.nanoTime() - t0) / 1e9;
    done.set(true);
    probe.join();
    rss.join();
    List<Long> sorted = new ArrayList<>(latencies);
    Collections.sort(sorted);
    String lat = sorted.isEmpty() ? "–" : String.format(Locale.ROOT, "%s / %s / %s (%d, %d)", ms(sorted, 0.5),
        ms(sorted, 0.99), ms(sorted, 1.0), sorted.size(), slow.get());
    long complete = 0;
    long total = 0;
    for (long b : read) {
      total += b;
      if (b == fileBytes) {
        complete++;
      }
    }
    String cpu = total > 0 ? String.format(Locale.ROOT, "%.1f (%.1f)", cpuSeconds, cpuSeconds * 1000 / (total / 1e6))
        : String.format(Locale.ROOT, "%.1f", cpuSeconds);
    return String.format(Locale.ROOT, "| %s | %s | %s | %s | %d | %s |%n", name,
        read.length == 0 ? "–" : complete + " of "
            + read.length,
        read.length == 0 ? "–" : String.format(Locale.ROOT, "%.0f", total / 1e6 / seconds), lat,
        rssPeak.get() / 1024, cpu);
  }

  private static String ms(List<Long> sorted, double q) {
    long v = sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
    return v == Long.MAX_VALUE ? "failed" : Long.toString(v);
  }

  /**
   * {@code n} raw HTTP clients reading the file (at {@code bytesPerSecond} each, 0: as fast as they can); what each
   * read, or -1 for a whole file whose bytes differ from the upload's.
   */
  private static long[] readers(int port, String fileId, int n, long bytesPerSecond, long maxMillis, long fileBytes,
      long crc) throws InterruptedException {
    long[] read = new long[n];
    CountDownLatch finished = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      int k = i;
      Thread.ofPlatform().start(() -> {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
          s.setSoTimeout(60_000);
          s.setReceiveBufferSize(64 << 10);
          OutputStream out = s.getOutputStream();
          out.write(("GET /v1/files/" + fileId + "/content HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
          out.flush();
          InputStream in = s.getInputStream();
          byte[] buf = new byte[64 << 10];
          long start = System.nanoTime();
          long body = -headerBytes(in);
          java.util.zip.CRC32 sum = new java.util.zip.CRC32();
          int got;
          while ((got = in.read(buf)) > 0 && (System.nanoTime() - start) / 1_000_000 < maxMillis) {
            sum.update(buf, 0, got);
            body += got;
            read[k] = Math.max(0, body);
            if (bytesPerSecond > 0) {
              long due = start + (long) (Math.max(0, body) * 1e9 / bytesPerSecond);
              long wait = due - System.nanoTime();
              if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
              }
            }
          }
          if (body == fileBytes && sum.getValue() != crc) {
            read[k] = -1;
            System.out.println("reader " + k + ": the file's bytes differ from the upload's");
          }
        } catch (Exception e) {
          System.out.println("reader " + k + ": " + e);
        } finally {
          finished.countDown();
        }
      });
    }
    finished.await(maxMillis + 60_000, TimeUnit.MILLISECONDS);
    return read;
  }

  /** Reads the response head; returns 0 (the body's bytes start after it). */
  private static long headerBytes(InputStream in) throws Exception {
    int state = 0;
    while (state < 4) {
      int c = in.read();
      if (c < 0) {
        throw new IllegalStateException("the connection closed before the body");
      }
      state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
    }
    return 0;
  }

  private static long crc(Path file) throws Exception {
    java.util.zip.CRC32 sum = new java.util.zip.CRC32();
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[1 << 20];
      int n;
      while ((n = in.read(buf)) > 0) {
        sum.update(buf, 0, n);
      }
    }
    return sum.getValue();
  }

  private static Path inputFile(Path dir, int megabytes) throws Exception {
    Path file = dir.resolve("input.jsonl");
    String pad = "x".repeat(3_700); // ~3.8 KB a line: 190 MB stays under the 50,000 lines a batch may have
    try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      long written = 0;
      for (int i = 0; megabytes > 0 ? written < megabytes * 1_000_000L : i < 100; i++) {
        byte[] line = ("{\"custom_id\":\"r" + i + "\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":"
            + "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + pad + "\"}]}}\n")
            .getBytes(StandardCharsets.UTF_8);
        out.write(line);
        written += line.length;
      }
    }
    return file;
  }

  private static String upload(HttpClient http, String base, Path dir, Path input) throws Exception {
    String boundary = "llmgw-bench-boundary";
    Path body = dir.resolve("upload.body");
    try (OutputStream out = Files.newOutputStream(body)) {
      out.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--" + boundary
          + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.jsonl\"\r\nContent-Type: "
          + "application/jsonl\r\n\r\n").getBytes(StandardCharsets.UTF_8));
      Files.copy(input, out);
      out.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    }
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/files"))
        .header("content-type", "multipart/form-data; boundary=" + boundary)
        .POST(HttpRequest.BodyPublishers.ofFile(body)).build(), HttpResponse.BodyHandlers.ofString());
    Files.delete(body);
    Matcher m = ID.matcher(r.body());
    if (r.statusCode() != 200 || !m.find()) {
      throw new IllegalStateException("upload refused: " + r.statusCode() + " " + r.body());
    }
    return m.group(1);
  }

  private static void createBatch(HttpClient http, String base, String fileId) throws Exception {
    post(http, base + "/v1/batches", "{\"input_file_id\":\"" + fileId + "\",\"endpoint\":\"/v1/chat/completions\","
        + "\"completion_window\":\"24h\"}");
  }

  /** How many batches are still validating (the list, in pages of 100). */
  private static int validating(HttpClient http, String base) throws Exception {
    int n = 0;
    String after = null;
    while (true) {
      String body = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/batches?limit=100"
          + (after == null ? "" : "&after=" + after))).build(), HttpResponse.BodyHandlers.ofString()).body();
      Matcher status = Pattern.compile("\"status\"\\s*:\\s*\"validating\"").matcher(body);
      while (status.find()) {
        n++;
      }
      Matcher last = Pattern.compile("\"last_id\"\\s*:\\s*\"([^\"]+)\"").matcher(body);
      if (!body.contains("\"has_more\":true") || !last.find()) {
        return n;
      }
      after = last.group(1);
    }
  }

  /**
   * The EPP's /admin/load as the batch service reads it: refused until {@code on}, then a pool of no pods (so nothing is
   * sent) that serves the model {@code m} (so validation can map lines to it).
   */
  private static com.sun.net.httpserver.HttpServer fakeEpp(AtomicBoolean on) throws Exception {
    var server = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.createContext("/admin/load", exchange -> {
      byte[] body = ("{\"pools\":[{\"pool\":\"ns/pool\",\"pods\":0,\"running\":0,\"waiting\":0,"
          + "\"sentSinceReport\":0,\"flowWaiting\":0}],\"models\":{\"m\":\"ns/pool\"}}")
          .getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(on.get() ? 200 : 503, on.get() ? body.length : -1);
      if (on.get()) {
        exchange.getResponseBody().write(body);
      }
      exchange.close();
    });
    server.start();
    return server;
  }

  private static void post(HttpClient http, String url, String json) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("content-type",
        "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers
            .ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(url + ": " + r.statusCode() + " " + r.body());
    }
  }

  private static void awaitUp(HttpClient http, String base) throws Exception {
    long until = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < until) {
      try {
        if (http.send(HttpRequest.newBuilder(URI.create(base + "/v1/batches")).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (java.io.IOException notYet) {
        // still starting
      }
      sleep(200);
    }
    throw new IllegalStateException("the batch service did not answer within 60 s");
  }

  /** The process's user and system time in clock ticks ({@code /proc/<pid>/stat} fields 14 and 15). */
  private static long cpuTicks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (Exception e) {
      return 0;
    }
  }

  private static long rssKb(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D", ""));
        }
      }
    } catch (Exception e) {
      // the process ended
    }
    return 0;
  }

  private static long[] sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new long[0];
  }
}
