package io.llmgw.extproc.capacity.core;

import java.util.List;

/**
 * The capacity plan at one moment: per pool the pods it should have and why, the moves between a model-less route's
 * variants, and what the pools cost now against what the plan would cost.
 */
public record Plan(List<PoolPlan> pools, List<Move> moves, double costPerHourNow, double costPerHourPlanned) {
  public static final Plan EMPTY = new Plan(List.of(), List.of(), 0, 0);

  public Plan {
    pools = List.copyOf(pools);
    moves = List.copyOf(moves);
  }
}
