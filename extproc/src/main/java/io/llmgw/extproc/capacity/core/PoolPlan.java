package io.llmgw.extproc.capacity.core;

import io.llmgw.api.PoolKey;

/**
 * The planner's answer for one pool.
 *
 * @param demandPerSecond requests per second the pool should serve: its own, plus what model-less routes would send it
 *     with room, less what they would take away
 * @param wanted pods the demand needs now, before scale-down is held back
 * @param desired pods the plan asks for: {@code wanted}, or more while a scale-down waits out the load time and the
 *     hysteresis window
 * @param costPerHour {@code desired} × the pool's price
 * @param reason why, in words an operator reads ("+2 pods: 38.0 req/s at 9.7 req/s per pod within TTFT 1s")
 */
public record PoolPlan(PoolKey pool, int pods, int readyPods, double demandPerSecond, int wanted, int desired,
    double costPerHour, String reason) {}
