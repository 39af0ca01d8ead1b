package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.BatchService;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.extproc.observe.AdminAccess;
import io.llmgw.loadgen.Rig;
import io.llmgw.picker.config.PolicyShorthand;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, item 2: the status page in a real browser (Debian's Chromium, headless, which .ci/run installs): its
 * script fills pools, pods, routes and adapters from the EPP, and its figures move as requests are served.
 */
class StatusPageTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @org.junit.jupiter.api.io.TempDir
  Path batchDir;
  private static final Pattern SERVED = Pattern.compile("id=\"requests-served\">(\\d+)<");

  /** The page's DOM after its script ran for {@code millis} of the browser's virtual time (refreshes every 2 s). */
  static String dom(String url, int millis) throws Exception {
    Process p = new ProcessBuilder("chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
        "--virtual-time-budget=" + millis, "--dump-dom", url).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out;
  }

  private static int served(String dom) {
    Matcher m = SERVED.matcher(dom);
    assertThat(m.find()).as("the requests-served figure is filled in:\n" + dom).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static void chat(int port, String model, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"));
    if (headers.length > 0) {
      b.headers(headers);
    }
    HttpResponse<String> r = HTTP.send(b.timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model + "\",\"max_tokens\":4,\"messages\":"
            + "[{\"role\":\"user\",\"content\":\"hello\"}]}"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  @Test
  void thePageShowsPoolsPodsRoutesAndAdaptersAndItsFiguresMove() throws Exception {
    assumeTrue(Gateways.onPath("chromium"), "chromium is not installed (.ci/run installs it)");
    int batchPort = LoopbackPorts.free();
    try (Rig rig = Gateways.start("127.0.0.231", 2, true,
        s -> s.withListen(s.listen().withBatchStatus("127.0.0.1:" + batchPort)
            .withFrontDoor("http://127.0.0.1:8080")));
        BatchService batch = BatchService.start(BatchSettings.defaults().withListener("127.0.0.1", batchPort)
            .withGateway("127.0.0.1:" + rig.epp().metricsPort(), "http://127.0.0.1:" + rig.proxyPort())
            .withStore("sqlite:" + batchDir.resolve("batch.db")), Clock.systemUTC())) {
      String url = "http://127.0.0.1:" + rig.epp().metricsPort() + "/status";
      // the batch service lists a pool once it has read the EPP's load
      await().atMost(Duration.ofSeconds(20)).until(() -> HTTP.send(HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + batchPort + "/admin/batch/status")).build(), HttpResponse.BodyHandlers.ofString())
          .body().contains("sim-pool"));
      for (int i = 0; i < 6; i++) {
        chat(rig.proxyPort(), i % 2 == 0 ? "sql-lora" : Gateways.BASE);
      }
      chat(rig.proxyPort(), "sql-lora", "x-request-id", "page-trace-32", "x-llmgw-explain", "1");
      HttpResponse<String> unknown = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + rig.proxyPort() + "/v1/chat/completions")).header("content-type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"no-such-model\",\"messages\":[{\"role\":\"user\","
              + "\"content\":\"hi\"}]}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(unknown.statusCode()).isEqualTo(404);
      // the history is sampled every 2 s, and a chart needs two readings: on a quick start there was only one yet
      await().atMost(Duration.ofSeconds(10)).until(() -> historySamples(rig.epp().metricsPort()) >= 2);
      assertThat(dom(url, 1000)).as("issue 53: a page that just opened (one read of its own) draws the minutes "
          + "before it from the EPP's history").containsPattern("<svg id=\"rate-chart\"[^>]*>(<line[^>]*></line>){2}"
              + "<text[^>]*>[0-9.]+ /s</text><text[^>]*>0</text><text[^>]*>\\d+ s ago</text><text[^>]*>now</text><polyline");
      String first = dom(url, 2500);
      assertThat(first).as("issue 53: the front door's address, as --front-door declares it")
          .contains("<div id=\"front-door\" class=\"muted\">Clients send to http://127.0.0.1:8080/v1");
      assertThat(first).as("issue 53: a pod's adapters in GPU slots (of its max_lora), then the ones only registered")
          .containsPattern("<td class=\"list\">sql-lora \\(1 of 2\\)</td><td class=\"list\">chat-lora</td>");
      assertThat(first).as("issue 53: errors and refusals by route, status and reason")
          .containsPattern("(?s)<table id=\"failures\">.*<td>\\(no route\\)</td><td class=\"num\">404</td>"
              + "<td>model_not_found</td><td class=\"num bad\">1</td>");
      assertThat(first).as("issue 32: the decision the request asked to be explained").contains("page-trace-32")
          .containsPattern("<td[^>]*>page-trace-32</td>(<td[^>]*>[^<]*</td>){3}<td class=\"ok\">routed</td>")
          .contains("fresh-metrics-filter kept ");
      assertThat(dom(url + "?decision=no-such-request", 2500)).doesNotContain("page-trace-32");
      assertThat(first).contains("LLM Instance Gateway", "default/sim-pool", "127.0.0.231:", "127.0.0.232:",
          "sql-lora", "chat-lora", Gateways.BASE, "fresh, ")
          .as("no error shown").contains("<div id=\"error\" class=\"bad\"></div>");
      assertThat(first).as("issue 32, item 6: the batch section, read through the EPP")
          .contains("From the batch service at 127.0.0.1:" + batchPort)
          .containsPattern("(?s)<table id=\"batches\">.*<td>default/sim-pool</td><td class=\"num\">0</td>");
      assertThat(first).as("issue 50: the seed policy tracks no prefixes, so nothing is compared")
          .contains("id=\"cache-note\">Nothing compared yet");
      assertThat(first).as("issue 32, item 3: the configuration the EPP started with")
          .containsPattern("(?s)<table id=\"changes\">.*applied: pools \\+default/sim-pool");
      assertThat(first).as("issue 52: the capacity plan, each pool's pods and why")
          .containsPattern("(?s)<table id=\"capacity\">.*<td>default/sim-pool</td><td class=\"num\">2</td>"
              + "<td class=\"num\">2</td><td class=\"num\">[0-9.]+ req/s</td><td class=\"num\">2.00</td>"
              + "<td class=\"list\">2 pods")
          .contains("id=\"capacity-cost\">Pods cost 2.00 / h now");
      int before = served(first);
      assertThat(before).isGreaterThanOrEqualTo(6);

      for (int i = 0; i < 5; i++) {
        chat(rig.proxyPort(), "chat-lora");
      }
      String second = dom(url, 4500);
      assertThat(served(second)).as("requests served, read again").isEqualTo(before + 5);
      assertThat(second).as("the request-rate chart drew its line, with its scale and span")
          .containsPattern("<svg id=\"rate-chart\"[^>]*>(<line[^>]*></line>){2}<text[^>]*>[0-9.]+ /s</text>"
              + "<text[^>]*>0</text><text[^>]*>\\d+ s ago</text><text[^>]*>now</text><polyline");
    }
  }

  /**
   * With a read token the page still loads (it holds no data), asks for the token, and shows nothing until it has it;
   * given the token in the address's fragment, which the browser never sends, it fills in as before.
   */
  @Test
  void withAReadTokenThePageAsksForItAndShowsTheDataOnlyWithIt() throws Exception {
    assumeTrue(Gateways.onPath("chromium"), "chromium is not installed (.ci/run installs it)");
    AdminAccess access = AdminAccess.of("admin-s3cret", "read-s3cret");
    try (Rig rig = Gateways.start("127.0.0.235", 2, true, s -> s.withListen(s.listen().withAdmin(access)))) {
      chat(rig.proxyPort(), "sql-lora");
      String url = "http://127.0.0.1:" + rig.epp().metricsPort() + "/status";
      HttpResponse<String> data = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + rig.epp().metricsPort() + "/admin/pods")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(data.statusCode()).as("the data still needs the token").isEqualTo(401);

      String anonymous = dom(url, 2500);
      assertThat(anonymous).contains("this EPP needs its read token", "<form id=\"login\">")
          .doesNotContain("127.0.0.235:", "default/sim-pool");

      String wrong = dom(url + "#token=guess", 2500);
      assertThat(wrong).contains("the read token was refused").doesNotContain("127.0.0.235:");
      assertThat(dom(url + "#token=%E0%A4%A", 2500)).as("a malformed escape in the fragment")
          .contains("the read token was refused").doesNotContain("127.0.0.235:");

      String given = dom(url + "#token=read-s3cret", 2500);
      assertThat(given).contains("default/sim-pool", "127.0.0.235:", "sql-lora", "<form id=\"login\" hidden=\"\">")
          .as("no error shown").contains("<div id=\"error\" class=\"bad\"></div>");
      assertThat(served(given)).isGreaterThanOrEqualTo(1);
    }
  }

  /**
   * Issue 50, item 4: with a prefix-tracking scorer and pods that report their cache, the page shows per pool what
   * was predicted cached against what the engines reported, and an explained decision says it for its request.
   */
  @Test
  void thePageComparesThePredictedCacheWithTheEnginesReports() throws Exception {
    assumeTrue(Gateways.onPath("chromium"), "chromium is not installed (.ci/run installs it)");
    try (Rig rig = Gateways.start("127.0.0.237", 2, true,
        s -> s.withScheduling(PolicyShorthand.SCORERS.config(50)))) {
      String document = "A document every question below repeats, long enough to fill many blocks. ".repeat(40);
      for (int i = 0; i < 6; i++) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + rig.proxyPort()
            + "/v1/chat/completions")).timeout(Duration.ofSeconds(30)).header("content-type", "application/json");
        if (i == 5) {
          b.headers("x-request-id", "cached-question", "x-llmgw-explain", "1");
        }
        HttpResponse<String> r = HTTP.send(b.POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"sql-lora\","
            + "\"max_tokens\":2,\"messages\":[{\"role\":\"system\",\"content\":\"" + document + "\"},{\"role\":"
            + "\"user\",\"content\":\"question " + i + "\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      }
      String page = dom("http://127.0.0.1:" + rig.epp().metricsPort() + "/status", 2500);
      assertThat(page).contains("<p class=\"muted\" id=\"cache-note\"></p>")
          .containsPattern("(?s)<table id=\"cache\">.*<td>default/sim-pool</td><td class=\"num\">\\d+</td>"
              + "<td class=\"num\">\\d+</td><td class=\"num\">\\d+</td><td class=\"num\">\\d+ %</td>")
          .containsPattern("cached-question.*predicted [0-9,]+ cached; engine reported [0-9,]+");
    }
  }

  /** How many readings the EPP's traffic history holds ({@code /admin/history}, one every 2 s). */
  private static long historySamples(int metricsPort) throws Exception {
    String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/admin/history"))
        .build(), HttpResponse.BodyHandlers.ofString()).body();
    return Pattern.compile("\"t\":").matcher(body).results().count();
  }
}
