package io.llmgw.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class EngineTest {
  private final ManualScheduler clock = new ManualScheduler();

  /** prefill 10 ms + 0.1 ms/token, decode 10 ms + 0.3 ms per running sequence, swaps 20 ms, disk 200 ms. */
  private static SimConfig.Builder builder() {
    return SimConfig.builder().adapters(List.of("a", "b", "c")).loras(1, 2);
  }

  private static SimConfig config() {
    return builder().build();
  }

  private static SimRequest base(int promptTokens, int maxTokens) {
    return new SimRequest("m", null, promptTokens, new long[0], maxTokens, true);
  }

  private static SimRequest adapter(String name, int maxTokens) {
    return new SimRequest(name, name, 100, new long[0], maxTokens, true);
  }

  private Recorder submit(Engine engine, SimRequest r) {
    Recorder rec = new Recorder(clock);
    assertThat(engine.submit(r, rec)).isInstanceOf(Sequence.class);
    return rec;
  }

  @Test
  void firstTokenCostsPrefillAndLaterTokensCostOneDecodeStep() {
    Engine engine = new Engine(config(), clock);
    Recorder r = submit(engine, base(1000, 3));
    clock.runUntilIdle();
    // step 1: decode 10 + 0.3×0 (batch empty when planned) + prefill 10 + 0.1×1000
    assertThat(r.firstTokenMs()).isCloseTo(120, within(0.01));
    assertThat(r.tokenTimesMs.get(1) - r.tokenTimesMs.get(0)).isCloseTo(10.3, within(0.01));
    assertThat(r.usage).isEqualTo(new SequenceListener.Usage(1000, 3, 0));
    assertThat(r.finishReason).isEqualTo("length");
  }

  @Test
  void interTokenLatencyGrowsWithTheBatch() {
    Engine engine = new Engine(config(), clock);
    Recorder alone = submit(engine, base(10, 5));
    clock.runUntilIdle();
    Recorder[] batch = new Recorder[20];
    for (int i = 0; i < batch.length; i++) {
      batch[i] = submit(engine, base(10, 5));
    }
    clock.runUntilIdle();
    double itlAlone = alone.tokenTimesMs.get(2) - alone.tokenTimesMs.get(1);
    double itlBatch = batch[0].tokenTimesMs.get(2) - batch[0].tokenTimesMs.get(1);
    assertThat(itlAlone).isCloseTo(10.3, within(0.01));
    assertThat(itlBatch).isCloseTo(10 + 0.3 * 20, within(0.01));
  }

  @Test
  void requestForAnAdapterOutsideTheBatchWaitsForASlotWhileOthersPassIt() {
    Engine engine = new Engine(config(), clock);
    Recorder a1 = submit(engine, adapter("a", 50));
    clock.advance(1);
    Recorder b = submit(engine, adapter("b", 5));
    Recorder a2 = submit(engine, adapter("a", 5));
    clock.advance(400); // "a" comes from disk (220 ms), a1 runs ~530 ms more, a2 only five steps
    assertThat(engine.waitingAdapters()).containsExactly("b");
    assertThat(engine.runningAdapters()).containsExactly("a");
    assertThat(a2.finished()).as("a second 'a' request joins the batch past the waiting 'b'").isTrue();
    assertThat(b.tokenTimesMs).isEmpty();
    clock.runUntilIdle();
    assertThat(b.firstTokenMs()).isGreaterThan(a1.tokenTimesMs.getLast());
  }

  @Test
  void adapterSwapCostsDependOnTheTierItComesFrom() {
    // max-loras 1, max-cpu-loras 2: "a" and "b" start in host memory, "c" was pushed out to disk
    Engine engine = new Engine(config(), clock);
    Recorder fromCpu = submit(engine, adapter("b", 1));
    clock.runUntilIdle();
    double t0 = clock.nowMs();
    Recorder onGpu = submit(engine, adapter("b", 1));
    clock.runUntilIdle();
    double t1 = clock.nowMs();
    Recorder fromDisk = submit(engine, adapter("a", 1));
    clock.runUntilIdle();
    double step = 10 + 10 + 0.1 * 100;
    assertThat(fromCpu.firstTokenMs()).isCloseTo(step + 20, within(0.01));
    assertThat(onGpu.firstTokenMs() - t0).isCloseTo(step, within(0.01));
    assertThat(fromDisk.firstTokenMs() - t1).as("'a' was evicted from host memory when 'c' registered")
        .isCloseTo(step + 200 + 20, within(0.01));
    assertThat(engine.metrics().adapterActivations().get("b")).containsExactly(2, 1);
  }

  @Test
  void sharedPromptPrefixSkipsPrefillOfCachedBlocks() {
    Engine engine = new Engine(config(), clock);
    long[] chain = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    Recorder cold = submit(engine, new SimRequest("m", null, 200, chain, 1, true));
    clock.runUntilIdle();
    double t0 = clock.nowMs();
    Recorder warm = submit(engine, new SimRequest("m", null, 200, chain, 1, true));
    clock.runUntilIdle();
    assertThat(cold.usage.cachedTokens()).isZero();
    assertThat(warm.usage.cachedTokens()).isEqualTo(160);
    assertThat(warm.firstTokenMs() - t0).isCloseTo(cold.firstTokenMs() - 16, within(0.01));
  }

  @Test
  void fullWaitingQueueRefusesAndTooLongPromptIsRefused() {
    SimConfig small = builder().capacity(1, 2, 4096).build();
    Engine engine = new Engine(small, clock);
    submit(engine, base(10, 100)); // admitted at once
    submit(engine, base(10, 100));
    submit(engine, base(10, 100));
    assertThat(engine.waitingCount()).isEqualTo(2);
    assertThat(engine.submit(base(10, 100), new Recorder(clock))).isEqualTo(Engine.Refusal.QUEUE_FULL);
    assertThat(engine.submit(base(8000, 500), new Recorder(clock))).isEqualTo(Engine.Refusal.TOO_LONG);
    assertThat(engine.submit(adapter("nope", 1), new Recorder(clock))).isEqualTo(Engine.Refusal.UNKNOWN_MODEL);
  }

  @Test
  void kvBudgetHoldsBackSequencesUntilBlocksAreFreedAndUsageReportsIt() {
    SimConfig tight = builder().capacity(64, 100, 20).build(); // 20 blocks of 16 tokens
    Engine engine = new Engine(tight, clock);
    submit(engine, base(160, 80)); // 15 blocks
    Recorder second = submit(engine, base(100, 28)); // 8 blocks: does not fit beside the first
    clock.advance(50);
    assertThat(engine.kvCacheUsage()).isCloseTo(15 / 20.0, within(1e-9));
    assertThat(engine.waitingCount()).isEqualTo(1);
    assertThat(second.tokenTimesMs).isEmpty();
    clock.runUntilIdle();
    assertThat(second.finished()).isTrue();
    assertThat(engine.kvCacheUsage()).isZero();
  }

  @Test
  void underPrioritySchedulingAHigherPriorityPreemptsALowerOneWhichResumesWithoutRepeatingTokens() {
    Engine engine = new Engine(builder().capacity(2, 10, 4096).priorityScheduling(true).asyncScheduling(false).build(),
        clock);
    SimRequest batch = new SimRequest("m", null, 100, new long[0], 50, true, 10);
    Recorder low1 = submit(engine, batch);
    Recorder low2 = submit(engine, batch);
    clock.advance(200);
    int before = low2.tokenTimesMs.size();
    assertThat(before).isGreaterThan(3);
    Recorder high = submit(engine, new SimRequest("m", null, 100, new long[0], 5, true, 0));
    clock.advance(40); // the next step starts: the latest low-priority sequence makes room
    assertThat(engine.runningCount()).isEqualTo(2);
    assertThat(engine.waitingCount()).isEqualTo(1);
    assertThat(engine.metrics().preemptions()).isEqualTo(1);
    clock.runUntilIdle();
    assertThat(high.firstTokenMs() - 200).as("started in the step after it arrived").isLessThan(50);
    for (Recorder r : List.of(low1, low2)) {
      assertThat(r.tokenTimesMs).hasSize(50); // every token once, the preempted one's too
      assertThat(r.usage.completionTokens()).isEqualTo(50);
    }
    assertThat(low2.tokenTimesMs.getLast()).isGreaterThan(low1.tokenTimesMs.getLast());
  }

  @Test
  void withAsyncSchedulingARequestArrivingDuringAStepJoinsTheStepAfterTheNext() {
    for (boolean async : new boolean[] {false, true}) {
      ManualScheduler time = new ManualScheduler();
      Engine engine = new Engine(builder().decode(10, 0).prefill(0, 0).asyncScheduling(async).build(), time);
      Recorder first = new Recorder(time);
      engine.submit(base(10, 100), first);
      time.advance(5); // mid-step: with async scheduling the next step is already chosen
      Recorder late = new Recorder(time);
      engine.submit(base(10, 100), late);
      time.runUntilIdle();
      assertThat(first.firstTokenMs()).as("an idle engine starts at once").isEqualTo(10);
      assertThat(late.firstTokenMs()).as("async " + async).isEqualTo(async ? 30 : 20);
    }
  }

  @Test
  void firstComeFirstServedNeverPreemptsWhateverTheBodySays() {
    Engine engine = new Engine(builder().capacity(1, 10, 4096).build(), clock);
    Recorder low = submit(engine, new SimRequest("m", null, 100, new long[0], 20, true, 10));
    clock.advance(50);
    Recorder high = submit(engine, new SimRequest("m", null, 100, new long[0], 5, true, 0));
    clock.runUntilIdle();
    assertThat(engine.metrics().preemptions()).isZero();
    assertThat(high.firstTokenMs()).isGreaterThan(low.tokenTimesMs.getLast());
  }

  @Test
  void cancelledSequencesLeaveTheQueueAndTheBatch() {
    Engine engine = new Engine(builder().capacity(1, 10, 4096).build(), clock);
    Recorder runningRec = new Recorder(clock);
    Sequence running = (Sequence) engine.submit(base(10, 1000), runningRec);
    Sequence waiting = (Sequence) engine.submit(base(10, 1000), new Recorder(clock));
    clock.advance(100);
    engine.cancel(waiting);
    assertThat(engine.waitingCount()).isZero();
    engine.cancel(running);
    clock.advance(100);
    assertThat(engine.runningCount()).isZero();
    assertThat(engine.kvCacheUsage()).isZero();
    assertThat(runningRec.finished()).isFalse();
  }

  @Test
  void loadApiHonoursLatencyDuplicatesAndFailingPaths() {
    Engine engine = new Engine(config(), clock);
    LoadResult[] got = new LoadResult[4];
    engine.load("d", "/adapters/d", r -> got[0] = r);
    engine.load("d", "/adapters/d", r -> got[1] = r);
    engine.load("e", "/adapters/missing/e", r -> got[2] = r);
    engine.load("f", "s3://bucket/fail-me", r -> got[3] = r);
    assertThat(got[1].status()).as("a load already under way is a duplicate").isEqualTo(400);
    clock.advance(199);
    assertThat(got[0]).as("load latency 200 ms").isNull();
    clock.advance(1);
    assertThat(got[0].status()).isEqualTo(200);
    assertThat(got[2].status()).isEqualTo(404);
    assertThat(got[3].status()).isEqualTo(500);
    assertThat(engine.adapters()).containsKeys("a", "b", "c", "d").doesNotContainKeys("e", "f");
    assertThat(engine.unload("d").status()).isEqualTo(200);
    assertThat(engine.unload("d").status()).isEqualTo(404);
  }
}
