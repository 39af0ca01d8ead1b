package io.llmgw.batch.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.batch.BatchService;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.SqliteStore;
import io.llmgw.testing.ManualClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 47: a validation's starts are counted once per life of the service, so a store that fails for a while within
 * one life retries the batch without ever failing it, while three lives that each began it and died fail it (that
 * case: {@code BatchServiceTest.aBatchWhoseValidationKeepsStoppingTheServiceIsFailedNotRetriedForEver}).
 */
class ValidationStartsTest {
  @TempDir
  Path dir;

  @Test
  void aStoreThatFailsForAWhileIsRetriedWithoutCountingAgain() throws Exception {
    SqliteStore real = SqliteStore.open(dir.resolve("batch.db"));
    AtomicBoolean failing = new AtomicBoolean(true);
    BatchStore flaky = (BatchStore) Proxy.newProxyInstance(BatchStore.class.getClassLoader(),
        new Class<?>[] {BatchStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("enqueue") && failing.get()) {
            throw new IllegalStateException("batch store: [SQLITE_FULL] database or disk is full");
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    ManualClock clock = new ManualClock(Instant.parse("2026-11-24T12:00:00Z"));
    try (FakeGateway gateway = new FakeGateway()) {
      BatchSettings settings = BatchSettings.defaults().withListener("127.0.0.1", 0)
          .withGateway(gateway.admin(), gateway.frontDoor()).withCapacity(20, Map.of());
      try (BatchService service = BatchService.start(settings, flaky, clock, false);
          ApiClient api = new ApiClient(service.port())) {
        String file = api.upload("batch", BatchServiceTest.lines(3)).json().get("id").asText();
        String id = api.post("/v1/batches", "{\"input_file_id\":\"" + file + "\",\"endpoint\":\"/v1/chat/completions\","
            + "\"completion_window\":\"24h\"}").json().get("id").asText();
        service.dispatcher().tick(); // a load reading, so that models map to pools
        for (int i = 0; i < 5; i++) {
          service.lifecycle().tick();
        }
        assertThat(real.batch(id).orElseThrow().status().wire()).isEqualTo("validating");
        assertThat(real.batch(id).orElseThrow().validationStarts()).as("counted once in this life").isEqualTo(1);
        failing.set(false);
        service.lifecycle().tick();
        assertThat(api.get("/v1/batches/" + id).json().get("status").asText()).isEqualTo("in_progress");
      }
    }
  }
}
