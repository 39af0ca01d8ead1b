package io.llmgw.batch.dispatch;

import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/** Any answer to {@code /admin/load} — cut anywhere, counts of any type, garbage — is read or unreadable, never else. */
class LoadAnswerProperties {
  @Property(seed = "1415")
  void anyLoadAnswerIsReadOrUnreadable(@ForAll("loads") String body) {
    assertThatCode(() -> {
      try {
        LoadReader.parse(body.getBytes(StandardCharsets.UTF_8));
        Statistics.collect("read");
      } catch (LoadReader.Unreadable e) {
        Statistics.collect("unreadable");
      }
    }).doesNotThrowAnyException();
  }

  @Provide
  Arbitrary<String> loads() {
    Arbitrary<String> pool = Arbitraries.of("\"ns/p\"", "null", "1", "\"\"")
        .flatMap(name -> Arbitraries.of("0", "-1", "1.5", "\"x\"", "null", "2147483648", "7").list().ofSize(5)
            .map(v -> "{\"pool\":" + name + ",\"pods\":" + v.get(0) + ",\"running\":" + v.get(1) + ",\"waiting\":"
                + v.get(2)
                + ",\"sentSinceReport\":" + v.get(3) + ",\"flowWaiting\":" + v.get(4) + "}"));
    Arbitrary<String> whole = pool.list().ofMaxSize(4).flatMap(ps -> Arbitraries.of("{}", "{\"m\":\"ns/p\"}",
        "{\"m\":3}", "[]").map(models -> "{\"pools\":[" + String.join(",", ps) + "],\"models\":" + models + "}"));
    Arbitrary<String> cut = whole
        .flatMap(w -> Arbitraries.integers().between(0, w.length()).map(i -> w.substring(0, i)));
    return Arbitraries.oneOf(whole, cut, Arbitraries.strings().ofMaxLength(80));
  }
}
