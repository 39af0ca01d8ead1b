package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.batch.dispatch.Budget;
import io.llmgw.batch.dispatch.PoolBatchStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What `./llmgw status` prints for a closed budget (no reading: its parts unknown) after the JSON round trip. */
class StatusBatchesTest {
  @Test
  void aClosedBudgetShowsUnknownPartsAndSaysClosed() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String wire = json.writeValueAsString(List.of(
        new PoolBatchStatus("ns/a", 12, 3.5, Budget.closed(0.05), 0, false),
        new PoolBatchStatus("ns/b", 0, 0, Budget.closed(0.05), 2, true)));
    List<PoolBatchStatus> read = json.readValue(wire, new TypeReference<>() {});
    StringWriter out = new StringWriter();
    StatusCommand.printBatches(read, "127.0.0.1:8090", new PrintWriter(out, true));
    assertThat(out.toString()).containsPattern("ns/a +12 +4s +0 +0\\.00 +- +- +0\\.05 +0 closed")
        .containsPattern("ns/b +0 +0s +2 .* throttled \\(429/503\\)");
  }
}
