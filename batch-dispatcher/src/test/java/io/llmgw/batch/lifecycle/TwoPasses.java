package io.llmgw.batch.lifecycle;

import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.LineError;
import io.llmgw.batch.store.LineResult;
import io.llmgw.batch.store.QueuedLine;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Both of the validator's passes as the lifecycle runs them, over a file held in memory, for tests. */
record TwoPasses(List<LineError> errors, int total, List<QueuedLine> lines, List<LineResult> known, int chunks) {
  static TwoPasses run(InputValidator v, Batch b, byte[] content, Map<String, String> models) throws IOException {
    InputValidator.Outcome o = v.check(b, new ByteArrayInputStream(content));
    if (!o.errors().isEmpty()) {
      return new TwoPasses(o.errors(), o.total(), List.of(), List.of(), 0);
    }
    List<QueuedLine> lines = new ArrayList<>();
    int[] chunks = {0};
    List<LineResult> known = v.queue(b, new ByteArrayInputStream(content), models, chunk -> {
      lines.addAll(chunk);
      chunks[0]++;
    });
    return new TwoPasses(List.of(), o.total(), lines, known, chunks[0]);
  }
}
