package io.llmgw.bench.load;

import io.llmgw.extproc.Epp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads an EPP's own Prometheus page, as load runs and end-to-end tests check what it counted. */
public final class EppMetricsText {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private EppMetricsText() {}

  public static String scrape(Epp epp) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + epp.metricsPort() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** The value of one series written exactly as exposed (name and labels), 0 when absent. */
  public static double value(String text, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }
}
