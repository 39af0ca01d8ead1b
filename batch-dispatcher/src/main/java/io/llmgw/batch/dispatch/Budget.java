package io.llmgw.batch.dispatch;

import io.llmgw.api.PoolLoad;
/**
 * The dispatch budget of one pool from one load reading (the Batch Dispatcher proposal's formula):
 * {@code F_sys = (running + waiting + sent since the pods' reports) / max_sys}, {@code F_epp = flow-control waiting /
 * max_sys}, the baseline {@code B} kept for bursts of interactive traffic, and {@code D = 1 − (F_sys + F_epp + B)}. The
 * proposal's gate ("dispatch while D is in [0, u]") is read as a gate on load: the budget is open only while
 * {@code F_sys + F_epp + B ≤ u}, and then allows {@code ⌊max_sys × D⌋} more requests in flight.
 *
 * <p>Two additions. A pool whose pods report requests waiting has no capacity to spare, whatever {@code max_sys} says
 * (their LoRA slots or KV cache ran out before their running slots did), so its budget is closed. And the allowance
 * never exceeds the EPP's headroom ({@link PoolLoad#headroom}): the EPP counts what was sent since the pods' last
 * reports as waiting until the next report shows where it went, so a burst of the whole allowance at once looks like a
 * queue to its saturation detector, which would shed most of it (issue 27: 73–85 % of dispatches refused on an idle
 * pool). The rest of the allowance goes out on the next readings, once the EPP's next scrapes show where the first went.
 *
 * <p>A pool at zero ({@link PoolLoad#atZero}) has no capacity, but one request wakes it: the EPP holds it while the
 * capacity plan asks for a pod, so its budget allows one while nothing of it waits in the EPP (an interactive request
 * waiting wakes it as well) — else a pool only batches use would stay at zero with their lines queued for ever.
 *
 * @param maxSys the pool's capacity in requests
 * @param allowance batch requests that may be sent on this reading
 * @param headroom what the EPP said the pool takes before it sheds ({@link PoolLoad#headroom}); {@link BudgetGate} also
 *     counts against it what may still be on its way to the EPP
 * @param seen the requests the EPP counted for the pool: at its pods, sent there since their reports, or held in flow
 *     control; a line of ours in flight beyond these has not reached the EPP yet ({@link BudgetGate})
 */
public record Budget(int maxSys, double fSys, double fEpp, double baseline, double d, boolean open, int allowance,
    int headroom, long seen) {

  /** Nothing may be sent: no reading, a pool without capacity, or a gateway that said it is full. */
  public static Budget closed(double baseline) {
    return new Budget(0, Double.NaN, Double.NaN, baseline, 0, false, 0, 0, 0);
  }

  public static Budget of(PoolLoad load, int maxSys, double baseline, double gate) {
    long seen = (long) load.running() + load.waiting() + load.sentSinceReport() + load.flowWaiting();
    if (load.atZero()) { // whatever --pool-capacity declares: its pods are not there yet
      return load.flowWaiting() == 0 && load.sentSinceReport() == 0
          ? new Budget(maxSys, Double.NaN, Double.NaN, baseline, 0, true, 1, 1, seen) : closed(baseline);
    }
    if (maxSys <= 0) {
      return closed(baseline);
    }
    double fSys = (double) (load.running() + load.waiting() + load.sentSinceReport()) / maxSys;
    double fEpp = (double) load.flowWaiting() / maxSys;
    double used = fSys + fEpp + baseline;
    double d = 1 - used;
    boolean open = used <= gate + 1e-9 && load.waiting() == 0;
    int allowance = open ? (int) Math.max(0, Math.min(load.headroom(), Math.floor(maxSys * d + 1e-9))) : 0;
    return new Budget(maxSys, fSys, fEpp, baseline, d, open, allowance, load.headroom(), seen);
  }
}
