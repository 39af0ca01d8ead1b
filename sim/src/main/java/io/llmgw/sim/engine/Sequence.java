package io.llmgw.sim.engine;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/** A request inside the engine: its progress and timings. Engine-thread only. */
public final class Sequence implements Engine.Submission {
  final SimRequest request;
  final SequenceListener listener;
  final SplittableRandom words;
  final long arrivedNanos;
  /** When it joined the waiting queue (after the API server's overhead, or again after a preemption). */
  long queuedNanos;
  long lastTokenNanos;
  int generated;
  int blocks;
  int cachedTokens;
  /** Prompt tokens still to prefill in later steps (chunked prefill); the first token comes when this reaches 0. */
  int prefillLeft;
  boolean cancelled;
  /** Preempted at least once: readmission recomputes the prompt and the tokens generated so far. */
  boolean preempted;

  Sequence(SimRequest request, SequenceListener listener, SplittableRandom words, long arrivedNanos) {
    this.request = request;
    this.listener = listener;
    this.words = words;
    this.arrivedNanos = arrivedNanos;
  }

  String adapter() {
    return request.adapter();
  }

  /** The adapters of these sequences, each once, in their order. */
  static Set<String> adaptersOf(List<Sequence> sequences) {
    Set<String> out = new LinkedHashSet<>();
    for (Sequence s : sequences) {
      if (s.adapter() != null) {
        out.add(s.adapter());
      }
    }
    return out;
  }
}
