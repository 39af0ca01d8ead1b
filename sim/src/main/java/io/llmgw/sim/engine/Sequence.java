package io.llmgw.sim.engine;

import java.util.SplittableRandom;

/** A request inside the engine: its progress and timings. Engine-thread only. */
public final class Sequence {
  final long id;
  final SimRequest request;
  final SequenceListener listener;
  final SplittableRandom words;
  final long arrivedNanos;
  long lastTokenNanos;
  int generated;
  int blocks;
  int cachedTokens;
  boolean cancelled;

  Sequence(long id, SimRequest request, SequenceListener listener, SplittableRandom words, long arrivedNanos) {
    this.id = id;
    this.request = request;
    this.listener = listener;
    this.words = words;
    this.arrivedNanos = arrivedNanos;
  }

  public long id() {
    return id;
  }

  String adapter() {
    return request.adapter();
  }
}
