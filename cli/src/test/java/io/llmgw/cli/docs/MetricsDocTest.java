package io.llmgw.cli.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.batch.dispatch.BatchMetrics;
import io.llmgw.extproc.flow.metrics.FlowMetrics;
import io.llmgw.extproc.observe.EppMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/metrics.md names every metric family the gateway registers, and nothing it does not: read from the sources
 * (every family, those registered only in cluster mode included) and from live registries.
 */
class MetricsDocTest {
  static final Path ROOT = Path.of("..");
  static final Pattern FAMILY = Pattern.compile("\\.name\\(\"(llmgw_[a-z_]+)\"\\)");
  static final Pattern DOCUMENTED = Pattern.compile("^\\| `(llmgw_[a-z_]+)` \\|", Pattern.MULTILINE);

  static Set<String> inSources() throws IOException {
    Set<String> out = new TreeSet<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("src/main/java"))
          .toList()) {
        Matcher m = FAMILY.matcher(Files.readString(f));
        while (m.find()) {
          out.add(m.group(1));
        }
      }
    }
    return out;
  }

  static Set<String> documented() throws IOException {
    Set<String> out = new TreeSet<>();
    Matcher m = DOCUMENTED.matcher(Files.readString(ROOT.resolve("docs/metrics.md")));
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  void everyFamilyInTheSourcesIsDocumentedAndNothingElseIs() throws IOException {
    Set<String> code = inSources();
    assertThat(code).as("families found in the sources").hasSizeGreaterThan(40);
    assertThat(documented()).isEqualTo(code);
  }

  @Test
  void everyFamilyALiveRegistryServesIsDocumented() throws IOException {
    PrometheusRegistry epp = new EppMetrics().registry();
    new FlowMetrics(epp);
    Set<String> docs = documented();
    for (PrometheusRegistry r : new PrometheusRegistry[] {epp, new BatchMetrics().registry()}) {
      for (MetricSnapshot s : r.scrape()) {
        String name = s.getMetadata().getPrometheusName() + (s instanceof CounterSnapshot ? "_total" : "");
        assertThat(docs).as("docs/metrics.md").contains(name);
      }
    }
  }
}
