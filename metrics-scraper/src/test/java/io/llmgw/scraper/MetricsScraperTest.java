package io.llmgw.scraper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MetricsScraperTest {
  final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  final AtomicInteger failures = new AtomicInteger();
  final AtomicInteger skipped = new AtomicInteger();
  final ScrapeListener listener = new ScrapeListener() {
    @Override
    public void scraped(String address, int skippedLines) {
      skipped.addAndGet(skippedLines);
    }

    @Override
    public void failed(String address, String what, String error) {
      failures.incrementAndGet();
    }
  };
  final MetricsScraper scraper = new MetricsScraper(
      ScrapeSettings.defaults().withInterval(Duration.ofMillis(20)), scheduler, Clock.systemUTC(), listener);

  @AfterEach
  void stop() {
    scraper.close();
    scheduler.shutdownNow();
  }

  @Test
  void scrapesMetricsAndResidencyFromRealHttpPods() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.21", 0)) {
      pod.setVllm(7, 2, 0.5, 4, List.of("a"), List.of());
      pod.setModels("base-model", List.of("a", "resident-only"));
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
      scraper.start();

      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
        ScrapeState s = scraper.state(pod.address());
        assertThat(s.healthy()).isTrue();
        assertThat(s.metrics().waitingQueue()).isEqualTo(7);
        assertThat(s.metrics().listedAdapters()).contains("resident-only");
        assertThat(s.metrics().recentAdapters()).as("running now").containsExactly("a");
        assertThat(s.metrics().baseModels()).containsExactly("base-model");
      });
    }
  }

  @Test
  void aPodWhoseScrapesFailIsUnhealthyUntilItAnswersAgain() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.22", 0)) {
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
      scraper.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> scraper.state(pod.address()).healthy());

      pod.setStatus(500);
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
        assertThat(scraper.state(pod.address()).healthy()).isFalse();
        assertThat(scraper.state(pod.address()).lastError()).contains("500");
      });

      pod.setStatus(200);
      await().atMost(Duration.ofSeconds(5)).until(() -> scraper.state(pod.address()).healthy());
      assertThat(failures.get()).isPositive();
    }
  }

  @Test
  void garbageMetricsKeepTheScraperAliveAndAreCounted() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.23", 0)) {
      pod.setMetricsText("vllm:num_requests_waiting{oops 1\nvllm:num_requests_waiting 3\n\u00ff\u00fe garbage\n");
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
      scraper.start();
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
        assertThat(scraper.state(pod.address()).metrics().waitingQueue()).isEqualTo(3);
        assertThat(skipped.get()).isGreaterThanOrEqualTo(2);
      });
    }
  }

  /** Issue 13, item 6: a page of garbage read as zero load made a broken pod the idlest one, and it drew traffic. */
  @Test
  void item6APageWithoutLoadMetricsIsAFailedScrapeNotAnIdlePod() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.27", 0)) {
      pod.setMetricsText("\u0000\u00ff\u00fe\u0001 binary garbage\nprocess_cpu_seconds_total 12\n");
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
      scraper.start();
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
        ScrapeState s = scraper.state(pod.address());
        assertThat(s.consecutiveFailures()).isPositive();
        assertThat(s.healthy()).isFalse();
        assertThat(s.lastError()).contains("vllm:num_requests_waiting");
        assertThat(failures.get()).isPositive();
      });
    }
  }

  @Test
  void aVllmPodIsAskedOnlyTheSeriesTheGatewayReads() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.38", 0)) {
      pod.setVllm(3, 1, 0.2, 4, List.of(), List.of());
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
      scraper.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> scraper.state(pod.address()).healthy());
      assertThat(pod.askedPaths().stream().filter(p -> !p.equals(Engine.VLLM.cacheConfigPath())))
          .as("the load series, and the cache size apart")
          .containsExactly("/metrics/?name%5B%5D=vllm%3Agpu_cache_usage_perc"
              + "&name%5B%5D=vllm%3Akv_cache_usage_perc&name%5B%5D=vllm%3Alora_requests_info"
              + "&name%5B%5D=vllm%3Anum_requests_running&name%5B%5D=vllm%3Anum_requests_waiting");
    }
  }

  @Test
  void aPodThatDoesNotServeTheFilteredPageIsReadWholeWithoutAFailure() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.39", 0)) {
      pod.setVllm(5, 2, 0.3, 4, List.of(), List.of());
      pod.answerOnlyTheWholePage();
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
      scraper.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> pod.metricsHits() >= 5);
      assertThat(scraper.state(pod.address()).healthy()).isTrue();
      assertThat(scraper.state(pod.address()).metrics().waitingQueue()).isEqualTo(5);
      assertThat(failures.get()).as("a filter refused is no failed scrape").isZero();
      assertThat(pod.askedPaths()).contains("/metrics");
      assertThat(pod.askedPaths().stream()
          .filter(p -> p.startsWith("/metrics/") && !p.equals(Engine.VLLM.cacheConfigPath())).count())
          .as("asked filtered once, then whole until the retry window ends").isEqualTo(1);
    }
  }

  @Test
  void aFilteredPageThatWorkedAndThenFailsIsAFailedScrapeNotAFallback() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.41", 0)) {
      pod.setVllm(1, 1, 0.1, 4, List.of(), List.of());
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
      scraper.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> scraper.state(pod.address()).healthy());
      pod.setStatus(500);
      await().atMost(Duration.ofSeconds(5)).until(() -> !scraper.state(pod.address()).healthy());
      assertThat(scraper.state(pod.address()).lastError()).contains("HTTP 500");
      assertThat(failures.get()).isPositive();
      assertThat(pod.askedPaths()).as("still asked filtered: the pod's filter once worked").doesNotContain("/metrics");
    }
  }

  @Test
  void aSglangPodIsReadWhole() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.40", 0)) {
      pod.setMetricsText("sglang:num_queue_reqs 2\nsglang:num_running_reqs 1\nsglang:token_usage 0.1\n");
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.SGLANG)));
      scraper.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> scraper.state(pod.address()).healthy());
      assertThat(pod.askedPaths()).containsExactly("/metrics");
    }
  }

  @Test
  void anOversizedMetricsPageFailsTheScrapeInsteadOfFillingTheHeap() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.29", 0)) {
      pod.setMetricsText("# padding\n".repeat(MetricsScraper.MAX_BODY_BYTES / 10 + 10));
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
      scraper.start();
      await().atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(scraper.state(pod.address()).lastError()).contains("exceeds"));
      assertThat(scraper.state(pod.address()).healthy()).isFalse();
    }
  }

  @Test
  void aPodThatTakesTheRequestAndNeverAnswersFailsWithinTheTimeoutAndIsScrapedAgain() throws Exception {
    var quick = new MetricsScraper(new ScrapeSettings(Duration.ofMillis(50), Duration.ofSeconds(1),
        Duration.ofMillis(300), 8), scheduler, Clock.systemUTC(), listener);
    try (ServerSocket pod = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.30"))) {
      pod.setSoTimeout(5_000);
      String address = "127.0.0.30:" + pod.getLocalPort();
      quick.setTargets(List.of(new ScrapeTarget(address, Engine.VLLM)));
      quick.start();
      try (Socket silent = pod.accept()) {
        await().atMost(Duration.ofSeconds(5))
            .untilAsserted(() -> assertThat(quick.state(address).lastError()).contains("within 300 ms"));
        assertThat(quick.state(address).healthy()).isFalse();
        try (Socket next = pod.accept()) {
          assertThat(next.isConnected()).as("the timed-out connection is dropped and the pod asked again").isTrue();
        }
      }
    } finally {
      quick.close();
    }
  }

  @Test
  void aPodThatAnswersWithSomethingOtherThanHttpFailsItsScrapeAndIsAskedAgain() throws Exception {
    try (ServerSocket pod = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.32"))) {
      pod.setSoTimeout(5_000);
      String address = "127.0.0.32:" + pod.getLocalPort();
      scraper.setTargets(List.of(new ScrapeTarget(address, Engine.VLLM)));
      scraper.start();
      try (Socket garbage = pod.accept()) {
        garbage.getOutputStream().write("\u0000\u0001 not http at all\r\n\r\n".getBytes(StandardCharsets.UTF_8));
        garbage.getOutputStream().flush();
        await().atMost(Duration.ofSeconds(5))
            .untilAsserted(() -> assertThat(scraper.state(address).consecutiveFailures()).isPositive());
      }
      assertThat(scraper.state(address).healthy()).isFalse();
      assertThat(scraper.state(address).lastError()).isNotBlank();
      try (Socket next = pod.accept()) {
        assertThat(next.isConnected()).as("the next tick asks again, on a new connection").isTrue();
      }
    }
  }

  @Test
  void scrapesReuseTheirConnection() throws Exception {
    try (FakeModelServer pod = new FakeModelServer("127.0.0.31", 0)) {
      pod.setVllm(1, 1, 0.1, 4, List.of(), List.of());
      scraper.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
      scraper.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> pod.metricsHits() >= 20);
      assertThat(pod.connections()).as("20 scrapes, kept-alive connections").isLessThanOrEqualTo(3);
    }
  }

  @Test
  void withMorePodsThanPermitsEveryPodStillGetsItsTurn() throws Exception {
    var oneAtATime = new MetricsScraper(new ScrapeSettings(Duration.ofMillis(50), Duration.ofSeconds(1),
        Duration.ofSeconds(1), 1), scheduler, Clock.systemUTC(), listener);
    try (var a = new FakeModelServer("127.0.0.26", 0);
        var b = new FakeModelServer("127.0.0.27", 0);
        var c = new FakeModelServer("127.0.0.28", 0)) {
      List<FakeModelServer> pods = List.of(a, b, c);
      oneAtATime.setTargets(pods.stream().map(p -> new ScrapeTarget(p.address(), Engine.VLLM)).toList());
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        oneAtATime.tick();
        return pods.stream().allMatch(p -> oneAtATime.state(p.address()).healthy());
      });
    } finally {
      oneAtATime.close();
    }
  }

  @Test
  void anUnreachablePodFailsWithoutBlockingTheOthers() throws Exception {
    try (FakeModelServer good = new FakeModelServer("127.0.0.24", 0)) {
      good.setVllm(1, 0, 0, 1, List.of(), List.of());
      String dead = "127.0.0.25:1";
      scraper.setTargets(List.of(new ScrapeTarget(dead, Engine.VLLM), new ScrapeTarget(good.address(), Engine.VLLM)));
      scraper.start();
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
        assertThat(scraper.state(good.address()).healthy()).isTrue();
        assertThat(scraper.state(dead).consecutiveFailures()).isPositive();
      });
      int hits = good.metricsHits();
      await().atMost(Duration.ofSeconds(5)).until(() -> good.metricsHits() > hits + 5);

      scraper.setTargets(List.of(new ScrapeTarget(good.address(), Engine.VLLM)));
      assertThat(scraper.state(dead).lastError()).isEqualTo("not scraped yet");
    }
  }

  /** A pod that answers a 500 when told to: the scrape is in flight until then. */
  private static void answer500(Socket held) throws IOException {
    held.getOutputStream().write("HTTP/1.1 500 Oops\r\ncontent-length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    held.getOutputStream().flush();
  }

  @Test
  void aScrapeInFlightWhenItsPodLeavesTellsNoListenerSoTheEppsSeriesForItStayGone() throws Exception {
    try (ServerSocket pod = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.26"))) {
      pod.setSoTimeout(5_000);
      String address = "127.0.0.26:" + pod.getLocalPort();
      scraper.setTargets(List.of(new ScrapeTarget(address, Engine.VLLM)));
      scraper.start();
      try (Socket staying = pod.accept()) {
        answer500(staying);
        await().atMost(Duration.ofSeconds(5)).until(() -> failures.get() > 0); // the set-up reports failures
      }
      try (Socket leaving = pod.accept()) {
        int before = failures.get();
        scraper.setTargets(List.of());
        answer500(leaving);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> failures.get() == before);
      }
    }
  }

  /**
   * Issue 47: what a pod's KV cache holds, as vLLM's cache_config_info says, bounds what its events may claim; issue 52:
   * and how many requests of a size its pods can run.
   */
  @Test
  void theKvCacheSizeIsReadFromCacheConfigInfoAndNonsenseIsNothing() {
    Function<String, KvCacheSize> size = page -> {
      byte[] b = page.getBytes(StandardCharsets.UTF_8);
      return Engine.VLLM.kvCacheSize(b, 0, b.length);
    };
    assertThat(size.apply("vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"4096\"} 1.0\n"))
        .isEqualTo(new KvCacheSize(4096, 16));
    assertThat(size.apply("vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"4096\"} 1.0\n").tokens())
        .isEqualTo(65_536);
    assertThat(size.apply("vllm:cache_config_info{block_size=\"sixteen\",num_gpu_blocks=\"4096\"} 1.0\n"))
        .as("blocks without a size").isEqualTo(new KvCacheSize(4096, 0));
    assertThat(size.apply("vllm:cache_config_info{num_gpu_blocks=\"4096\"} 1.0\n").tokens()).isZero();
    assertThat(size.apply("vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"None\"} 1.0\n")).isNull();
    assertThat(size.apply("vllm:cache_config_info{num_gpu_blocks=\"-5\"} 1.0\n")).isNull();
    assertThat(size.apply("vllm:cache_config_info{num_gpu_blocks=\"\u0664\u0660\u0669\u0666\"} 1\n"))
        .as("digits of another script").isNull();
    assertThat(size.apply("vllm:cache_config_info{num_gpu_blocks=\"99999999999999999999999\"} 1\n")).isNull();
    assertThat(size.apply("vllm:num_requests_waiting 1\n")).isNull();
    assertThat(size.apply("garbage {{{\n\u0000\n")).isNull();
    assertThat(Engine.SGLANG.cacheConfigPath()).isNull();
  }

  /** The cache size is asked at the model list's pace, apart from the load scrape, with KV events off as well. */
  @Test
  void theCacheSizeIsAskedApartWithTheModelList() throws Exception {
    ConcurrentHashMap<String, KvCacheSize> sizes = new ConcurrentHashMap<>();
    ScrapeListener sizesHeard = new ScrapeListener() {
      @Override
      public void kvCacheSize(String address, KvCacheSize size) {
        sizes.put(address, size);
      }
    };
    try (FakeModelServer pod = new FakeModelServer("127.0.0.42", 0)) {
      pod.setMetricsText(FakeModelServer.vllmText(1, 1, 0.1, 4, List.of(), List.of())
          + "vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"2048\"} 1.0\n");
      pod.setModels("base-model", List.of());
      MetricsScraper noEvents = new MetricsScraper(ScrapeSettings.defaults().withInterval(Duration.ofMillis(20)),
          scheduler, Clock.systemUTC(), sizesHeard);
      try {
        noEvents.setTargets(List.of(new ScrapeTarget(pod.address(), Engine.VLLM)));
        noEvents.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> sizes.containsKey(pod.address()));
        assertThat(sizes).containsEntry(pod.address(), new KvCacheSize(2048, 16));
        assertThat(pod.askedPaths()).contains(Engine.VLLM.cacheConfigPath(), Engine.VLLM.metricsPath());
      } finally {
        noEvents.close();
      }
    }
  }
}
