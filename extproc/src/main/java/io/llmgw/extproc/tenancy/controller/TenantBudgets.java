package io.llmgw.extproc.tenancy.controller;

import io.llmgw.api.ClientText;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.OverBudget;
import io.llmgw.api.TenantBudget;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.state.PeerSpend;
import io.llmgw.extproc.tenancy.core.BudgetVerdict;
import io.llmgw.extproc.tenancy.core.Reservation;
import io.llmgw.extproc.tenancy.core.TenantLedger;
import io.llmgw.extproc.tenancy.core.TenantLimits;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Every tenant's spending on this replica, and the requests waiting for their tenant's budget. A request reserves its
 * tokens before it is admitted; if the budget cannot take them now, its budget's {@code overBudget} decides: it waits
 * (in its tenant's line, first come first served, until the windows have room, at most the flow-control TTL), runs
 * demoted (charged all the same), or is refused 429 with the window's {@code Retry-After}. A reserved request is never
 * refused for its budget afterwards; its usage settles the difference when it ends. Only tenants with limits have a
 * ledger, so what is kept is bounded by the TenantBudgets configured, whatever names clients present.
 *
 * <p>A waiter's outcome completes only after this object's lock is released: completing it resumes the request on the
 * completing thread, which takes its stream's lock, and a stream ending takes this lock to leave the line.
 */
public final class TenantBudgets {
  /** How often waiting requests are looked at again as the windows slide. */
  static final long TICK_MILLIS = 100;

  /** What a budget said to a request. */
  public sealed interface Admission {
    /** @param reservation null for a tenant without limits (nothing to settle) */
    record Reserved(Reservation reservation, boolean demoted) implements Admission {}

    /** @param outcome completes with null once reserved (handed to the waiter's callback first), else the refusal */
    record Waiting(CompletableFuture<ErrorReply> outcome, Runnable cancel) implements Admission {}

    record Refused(ErrorReply reply) implements Admission {}
  }

  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final Duration maxWait;
  private final TenantEvents events;
  private final PeerSpend elsewhere;
  private final Map<String, TenantLedger> ledgers = new HashMap<>();
  private final Map<String, ArrayDeque<Waiter>> waiting = new LinkedHashMap<>();
  private ScheduledFuture<?> tick;

  /** @param elsewhere what tenants spent through the other replicas */
  public TenantBudgets(Clock clock, ScheduledExecutorService scheduler, Duration maxWait, TenantEvents events,
      PeerSpend elsewhere) {
    this.clock = clock;
    this.scheduler = scheduler;
    this.maxWait = maxWait;
    this.events = events;
    this.elsewhere = elsewhere;
  }

  private static final class Waiter {
    final String tenant;
    final long tokens;
    final long deadlineMillis;
    final Consumer<Reservation> onGrant;
    final CompletableFuture<ErrorReply> outcome = new CompletableFuture<>();

    Waiter(String tenant, long tokens, long deadlineMillis, Consumer<Reservation> onGrant) {
      this.tenant = tenant;
      this.tokens = tokens;
      this.deadlineMillis = deadlineMillis;
      this.onGrant = onGrant;
    }
  }

  /**
   * Reserves {@code tokens} of the tenant's budget for one request, or says why not.
   *
   * @param onGrant told the reservation of a request that waited, before its outcome completes
   */
  public synchronized Admission admit(String tenant, TenantBudget budget, long tokens, Consumer<Reservation> onGrant) {
    TenantLedger ledger = ledger(tenant, budget);
    if (ledger == null) {
      events.admission(tenant, "admitted");
      return new Admission.Reserved(null, false);
    }
    long now = clock.millis();
    ArrayDeque<Waiter> line = waiting.get(tenant);
    BudgetVerdict verdict = line != null && budget.overBudget() == OverBudget.QUEUE
        ? new BudgetVerdict.NotNow(TenantLedger.PER_MINUTE, 0) // others of the tenant wait already: behind them
        : reserve(ledger, tenant, tokens, now);
    return switch (verdict) {
      case BudgetVerdict.Reserved r -> {
        events.admission(tenant, "admitted");
        yield new Admission.Reserved(r.reservation(), false);
      }
      case BudgetVerdict.Never n -> refused(tenant, "exceeds_budget",
          new ErrorReply(429, ErrorCode.INSUFFICIENT_QUOTA,
              "this request may use up to " + n.needed() + " tokens, more than tenant "
                  + ClientText.quote(tenant) + " may spend (" + n.limitTokens() + " " + n.limit().replace('_', ' ')
                  + "); lower max_tokens or shorten the prompt",
              0));
      case BudgetVerdict.NotNow n -> switch (budget.overBudget()) {
        case REFUSE -> refused(tenant, n.limit(), overBudget(tenant, n));
        case DEMOTE -> {
          events.admission(tenant, "demoted");
          yield new Admission.Reserved(ledger.overdraw(tokens, now), true);
        }
        case QUEUE -> {
          Waiter w = new Waiter(tenant, tokens, now + maxWait.toMillis(), onGrant);
          waiting.computeIfAbsent(tenant, t -> new ArrayDeque<>()).add(w);
          events.admission(tenant, "queued");
          armTick();
          yield new Admission.Waiting(w.outcome, () -> cancel(w));
        }
      };
    };
  }

  /** The request ended having used {@code usedTokens}: its reservation is settled, and waiters may fit now. */
  public void settle(Reservation r, long usedTokens) {
    List<Runnable> outcomes = new ArrayList<>();
    synchronized (this) {
      TenantLedger ledger = ledgers.get(r.tenant());
      if (ledger != null) {
        ledger.settle(r, usedTokens, clock.millis());
        wake(r.tenant(), outcomes);
      }
    }
    outcomes.forEach(Runnable::run);
  }

  /**
   * Per tenant, what this replica's requests spent in the last minute and day and how many are in flight here (for the
   * other replicas).
   */
  public synchronized Map<String, long[]> spentHere() {
    long now = clock.millis();
    Map<String, long[]> out = new LinkedHashMap<>();
    ledgers.forEach((t, l) -> out.put(t, new long[] {l.spentLastMinute(now), l.spentLastDay(now), l.inFlight()}));
    return out;
  }

  /**
   * What the other replicas spent counts against the budget, and so do the shares of those this replica does not hear
   * now ({@link PeerSpend}): a cut-off replica admits within its share.
   */
  private BudgetVerdict reserve(TenantLedger ledger, String tenant, long tokens, long now) {
    TenantLimits l = ledger.limits();
    return ledger.reserve(tokens, now, elsewhere.minuteHeld(tenant, l.tokensPerMinute()),
        elsewhere.dayHeld(tenant, l.tokensPerDay()), elsewhere.inFlightHeld(tenant, l.maxConcurrent()));
  }

  /** A row per tenant with limits: what it spent here and elsewhere, what waits, and its limits. */
  public synchronized Map<String, TenantRow> rows() {
    long now = clock.millis();
    Map<String, TenantRow> out = new TreeMap<>();
    ledgers.forEach((t, l) -> {
      ArrayDeque<Waiter> line = waiting.get(t);
      out.put(t, new TenantRow(t, l.spentLastMinute(now) + elsewhere.lastMinute(t), l.limits().tokensPerMinute(),
          l.spentLastDay(now) + elsewhere.lastDay(t), l.limits().tokensPerDay(), l.inFlight() + elsewhere.inFlight(t),
          l.limits().maxConcurrent(), line == null ? 0 : line.size()));
    });
    return out;
  }

  /**
   * The configuration's budgets: each with limits gets its ledger now (so its row shows what it spent through the other
   * replicas before it sends anything here); a budget removed takes its ledger along (no budget, no limits).
   */
  public void budgets(Collection<TenantBudget> budgets) {
    List<Runnable> outcomes = new ArrayList<>();
    synchronized (this) {
      noLongerLimited(budgets, outcomes);
    }
    outcomes.forEach(Runnable::run);
  }

  private void noLongerLimited(Collection<TenantBudget> budgets, List<Runnable> outcomes) {
    Set<String> budgeted = new HashSet<>();
    for (TenantBudget b : budgets) {
      if (ledger(b.name(), b) != null) {
        budgeted.add(b.name());
      }
    }
    ledgers.keySet().retainAll(budgeted);
    for (Iterator<Map.Entry<String, ArrayDeque<Waiter>>> it = waiting.entrySet().iterator(); it.hasNext();) {
      Map.Entry<String, ArrayDeque<Waiter>> e = it.next();
      if (!budgeted.contains(e.getKey())) { // no limit any more: everyone waiting goes
        it.remove();
        for (Waiter w : e.getValue()) {
          w.onGrant.accept(null);
          outcomes.add(() -> w.outcome.complete(null));
        }
      }
    }
  }

  private TenantLedger ledger(String tenant, TenantBudget budget) {
    TenantLimits limits = new TenantLimits(budget.tokensPerMinute(), budget.tokensPerDay(),
        budget.maxConcurrentRequests());
    if (limits.equals(TenantLimits.NONE)) {
      ledgers.remove(tenant);
      return null;
    }
    TenantLedger ledger = ledgers.get(tenant);
    if (ledger == null) {
      ledger = new TenantLedger(tenant, limits);
      ledgers.put(tenant, ledger);
    } else if (!ledger.limits().equals(limits)) {
      ledger.limit(limits); // an edited budget: what was spent stays spent
    }
    return ledger;
  }

  private Admission refused(String tenant, String reason, ErrorReply reply) {
    events.refused(tenant, reason);
    return new Admission.Refused(reply);
  }

  private static ErrorReply overBudget(String tenant, BudgetVerdict.NotNow n) {
    String what = switch (n.limit()) {
      case TenantLedger.CONCURRENT -> "has its limit of requests in flight";
      case TenantLedger.PER_DAY -> "has spent its tokens for the day";
      default -> "has spent its tokens for the minute";
    };
    int seconds = (int) Math.max(1, Math.min(86_400, (n.retryAfterMillis() + 999) / 1000));
    return new ErrorReply(429, ErrorCode.RATE_LIMIT_EXCEEDED,
        "tenant " + ClientText.quote(tenant) + " " + what + "; retry after " + seconds + " s", seconds);
  }

  private synchronized void cancel(Waiter w) {
    ArrayDeque<Waiter> line = waiting.get(w.tenant);
    if (line != null && line.remove(w) && line.isEmpty()) {
      waiting.remove(w.tenant);
    }
  }

  /** Grants the tenant's waiters in order while its budget takes them; their outcomes go to {@code outcomes}. */
  private void wake(String tenant, List<Runnable> outcomes) {
    ArrayDeque<Waiter> line = waiting.get(tenant);
    TenantLedger ledger = ledgers.get(tenant);
    long now = clock.millis();
    while (line != null && !line.isEmpty()) {
      Waiter head = line.peek();
      if (ledger == null) {
        line.poll();
        head.onGrant.accept(null);
        outcomes.add(() -> head.outcome.complete(null));
        continue;
      }
      BudgetVerdict v = reserve(ledger, tenant, head.tokens, now);
      if (v instanceof BudgetVerdict.Reserved r) {
        line.poll();
        head.onGrant.accept(r.reservation());
        outcomes.add(() -> head.outcome.complete(null));
      } else if (now >= head.deadlineMillis || v instanceof BudgetVerdict.Never) {
        line.poll();
        String reason = v instanceof BudgetVerdict.NotNow n ? n.limit() : "exceeds_budget";
        events.refused(tenant, "queue_timeout");
        ErrorReply refusal = v instanceof BudgetVerdict.NotNow n ? overBudget(tenant, n)
            : new ErrorReply(429, ErrorCode.INSUFFICIENT_QUOTA,
                "tenant " + ClientText.quote(tenant) + "'s budget no longer takes this request (" + reason + ")", 0);
        outcomes.add(() -> head.outcome.complete(refusal));
      } else {
        break;
      }
    }
    if (line != null && line.isEmpty()) {
      waiting.remove(tenant);
    }
  }

  private void armTick() {
    if (tick == null) {
      tick = scheduler.scheduleWithFixedDelay(this::onTick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private void onTick() {
    List<Runnable> outcomes = new ArrayList<>();
    synchronized (this) {
      for (String tenant : List.copyOf(waiting.keySet())) {
        wake(tenant, outcomes);
      }
      if (waiting.isEmpty() && tick != null) {
        tick.cancel(false);
        tick = null;
      }
    }
    outcomes.forEach(Runnable::run);
  }
}
