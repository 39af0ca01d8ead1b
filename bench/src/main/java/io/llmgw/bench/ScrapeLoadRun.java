package io.llmgw.bench;

import io.llmgw.scraper.Engine;
import io.llmgw.scraper.MetricsScraper;
import io.llmgw.scraper.ScrapeListener;
import io.llmgw.scraper.ScrapeSettings;
import io.llmgw.scraper.ScrapeTarget;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * Load run: N pods on 127.0.x.y each serving a realistic vLLM /metrics page (~26 KiB with histograms), scraped at the
 * EPP's default interval for a bounded time. Prints the scraper's own CPU use (its HTTP client's event loop, where
 * pages are also parsed), the scrape rate achieved and how old the picker's metrics were; then, against the same pods,
 * the same for {@link BareScrapeLoop}, the floor any poller pays on this machine. Usage: [pods] [seconds] [warm-up seconds] [whole: pods that
 * ignore {@code name[]}, as engines other than vLLM].
 */
public final class ScrapeLoadRun {
  public static void main(String[] args) throws Exception {
    int podCount = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int seconds = Math.min(args.length > 1 ? Integer.parseInt(args[1]) : 10, 60);
    int warmup = Math.min(args.length > 2 ? Integer.parseInt(args[2]) : 2, 120);
    boolean filters = args.length <= 3 || !args[3].equals("whole");
    String models = "{\"data\":[{\"id\":\"base\"},{\"id\":\"a\",\"parent\":\"base\"}]}";
    StaticPods pods = new StaticPods(podCount, 0, metricsPage(), models, filters);
    List<ScrapeTarget> targets = new ArrayList<>();
    for (int i = 0; i < podCount; i++) {
      targets.add(new ScrapeTarget(pods.address(i), Engine.VLLM));
    }

    LongAdder ok = new LongAdder();
    LongAdder failed = new LongAdder();
    AtomicReference<String> firstFailure = new AtomicReference<>();
    ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(1);
    ScrapeSettings settings = ScrapeSettings.defaults();
    MetricsScraper scraper = new MetricsScraper(settings, scheduler, Clock.systemUTC(), new ScrapeListener() {
      @Override
      public void scraped(String address, int skippedLines) {
        ok.increment();
      }

      @Override
      public void failed(String address, String what, String error) {
        failed.increment();
        firstFailure.compareAndSet(null, what + " of " + address + ": " + error);
      }
    });
    scraper.setTargets(targets);
    scraper.start();
    Thread.sleep(warmup * 1_000L); // warm-up of a load run (connections, JIT); not a test synchronisation
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long cpu0 = scraperCpuNanos(mx, false);
    long user0 = scraperCpuNanos(mx, true);
    long ok0 = ok.sum();
    long t0 = System.nanoTime();
    Histogram age = new Histogram(60_000, 3);
    long end = t0 + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      long now = System.currentTimeMillis();
      for (ScrapeTarget t : targets) {
        long a = now - scraper.state(t.address()).metrics().updatedAt().toEpochMilli();
        age.recordValue(Math.max(0, Math.min(a, 60_000)));
      }
      Thread.sleep(100); // sampling period of the load run
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    double cores = (scraperCpuNanos(mx, false) - cpu0) / 1e9 / wall;
    double userCores = (scraperCpuNanos(mx, true) - user0) / 1e9 / wall;
    double rate = (ok.sum() - ok0) / wall;
    long failures = failed.sum();
    scraper.close();
    scheduler.shutdownNow();

    // the floor, against the same pods: the same GETs at the same cadence by a loop that does nothing else
    String path = filters ? Engine.VLLM.metricsPath() : "/metrics";
    BareScrapeLoop bare = new BareScrapeLoop(targets.stream().map(ScrapeTarget::address).toList(), path);
    Thread loop = new Thread(() -> {
      try {
        bare.run(settings.interval().toNanos());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, "bare-scrape-loop");
    loop.start();
    Thread.sleep(warmup * 1_000L); // warm-up of a load run, as above
    long bareCpu0 = mx.getThreadCpuTime(loop.threadId());
    long bareUser0 = mx.getThreadUserTime(loop.threadId());
    long bareAnswers0 = bare.answers();
    long b0 = System.nanoTime();
    Thread.sleep(seconds * 1_000L); // the window of a load run
    double bareWall = (System.nanoTime() - b0) / 1e9;
    double bareCores = (mx.getThreadCpuTime(loop.threadId()) - bareCpu0) / 1e9 / bareWall;
    double bareUserCores = (mx.getThreadUserTime(loop.threadId()) - bareUser0) / 1e9 / bareWall;
    double bareRate = (bare.answers() - bareAnswers0) / bareWall;
    bare.close();
    loop.join(10_000);
    bare.closeSockets();
    pods.close();

    System.out.printf(
        "%n| pods | interval | page read | poller | scrapes/s (all) | CPU (cores) | CPU per scrape (µs) | of which kernel (µs) | metrics age p50 / p99 / max (ms) | failures |%n");
    System.out.printf("|---|---|---|---|---|---|---|---|---|---|%n");
    double kib = (filters ? StaticPods.seriesNamed(metricsPage(), path.substring(path.indexOf('?') + 1)).length
        : metricsPage().length()) / 1024.0;
    System.out.printf("| %d | %d ms | %.1f KiB | scraper | %.0f | %.3f | %.1f | %.1f | %d / %d / %d | %d |%n", podCount,
        settings.interval().toMillis(), kib, rate, cores, cores * 1e6 / rate, (cores - userCores) * 1e6 / rate,
        age.getValueAtPercentile(50), age.getValueAtPercentile(99), age.getMaxValue(), failures);
    System.out.printf("| %d | %d ms | %.1f KiB | bare loop (the floor) | %.0f | %.3f | %.1f | %.1f | – | %d |%n",
        podCount, settings.interval().toMillis(), kib, bareRate, bareCores, bareCores * 1e6 / bareRate,
        (bareCores - bareUserCores) * 1e6 / bareRate, bare.failures());
    double asked = podCount * 1e9 / settings.interval().toNanos();
    if (Math.min(rate, bareRate) < 0.95 * asked) {
      System.out.printf(
          "asked %.0f scrapes/s: a row short of it was capped (the scraper by its %d in flight per round, "
              + "the bare loop by the pods or its one thread), and only its CPU per scrape compares%n",
          asked,
          settings.maxConcurrent());
    }
    if (firstFailure.get() != null) {
      System.out.println("first failure: " + firstFailure.get());
    }
  }

  private static long scraperCpuNanos(ThreadMXBean mx, boolean userOnly) {
    long total = 0;
    for (var info : mx.dumpAllThreads(false, false)) {
      String name = info.getThreadName();
      if (name.startsWith("llmgw-scraper")) { // the scraper's event loop, where pages are read and parsed
        long id = info.getThreadId();
        total += Math.max(0, userOnly ? mx.getThreadUserTime(id) : mx.getThreadCpuTime(id));
      }
    }
    return total;
  }

  /** A vLLM-like page: the gauges we read plus the histogram series a real server exports and we skip. */
  public static String metricsPage() {
    StringBuilder sb = new StringBuilder();
    sb.append("# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n")
        .append("# TYPE vllm:num_requests_waiting gauge\n")
        .append("vllm:num_requests_waiting{engine=\"0\",model_name=\"base\"} 3.0\n");
    sb.append("# HELP vllm:num_requests_running Number of requests in model execution batches.\n")
        .append("# TYPE vllm:num_requests_running gauge\n")
        .append("vllm:num_requests_running{engine=\"0\",model_name=\"base\"} 12.0\n");
    sb.append("# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n")
        .append("# TYPE vllm:kv_cache_usage_perc gauge\n")
        .append("vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"base\"} 0.42\n");
    sb.append("# HELP vllm:lora_requests_info Running stats on lora requests.\n# TYPE vllm:lora_requests_info gauge\n");
    sb.append(
        "vllm:lora_requests_info{max_lora=\"4\",running_lora_adapters=\"a,b\",waiting_lora_adapters=\"\"} 1.7e9\n");
    String[] hists = {"vllm:time_to_first_token_seconds", "vllm:time_per_output_token_seconds",
        "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds", "vllm:request_prompt_tokens",
        "vllm:request_generation_tokens", "vllm:request_inference_time_seconds", "vllm:request_prefill_time_seconds"};
    for (String h : hists) {
      sb.append("# HELP ").append(h).append(" Histogram.\n# TYPE ").append(h).append(" histogram\n");
      for (int b = 0; b < 40; b++) {
        sb.append(h).append("_bucket{le=\"").append(0.001 * (1 << (b % 20))).append("\",model_name=\"base\"} ")
            .append(b * 17).append(".0\n");
      }
      sb.append(h).append("_sum{model_name=\"base\"} 1234.5\n").append(h).append("_count{model_name=\"base\"} 999.0\n");
    }
    return sb.toString();
  }
}
