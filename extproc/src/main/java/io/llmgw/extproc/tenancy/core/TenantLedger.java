package io.llmgw.extproc.tenancy.core;

/**
 * One tenant's spending against its limits: tokens reserved and settled in a sliding minute and day
 * ({@link TokenWindow}), and requests in flight. A request reserves before admission; its usage settles the
 * difference; a request that ends without doing the work gives its reservation back. Tokens the tenant spent through
 * other replicas are passed in ({@code elsewhere}), so a budget holds across them. Not thread-safe: the caller
 * serialises.
 */
public final class TenantLedger {
  public static final String PER_MINUTE = "tokens_per_minute";
  public static final String PER_DAY = "tokens_per_day";
  public static final String CONCURRENT = "concurrent_requests";
  private static final long MINUTE = 60_000;
  private static final long DAY = 86_400_000;

  private final String tenant;
  private TenantLimits limits;
  private final TokenWindow minute = new TokenWindow(MINUTE, 1_000);
  /** Kept whether or not there is a daily limit: what a tenant spent today is shown either way. */
  private final TokenWindow day = new TokenWindow(DAY, MINUTE);
  private int inFlight;

  public TenantLedger(String tenant, TenantLimits limits) {
    this.tenant = tenant;
    limit(limits);
  }

  /** New limits (a budget edited): what was spent stays spent. */
  public void limit(TenantLimits newLimits) {
    this.limits = newLimits;
  }

  public TenantLimits limits() {
    return limits;
  }

  /**
   * Reserves {@code tokens} and one request in flight when every limit takes them now.
   *
   * @param elsewhereMinute tokens the tenant spent through other replicas in the last minute
   * @param elsewhereDay the same over the last day
   * @param elsewhereInFlight its requests in flight through other replicas
   */
  public BudgetVerdict reserve(long tokens, long nowMillis, long elsewhereMinute, long elsewhereDay,
      int elsewhereInFlight) {
    long need = Math.max(0, tokens);
    if (need > limits.tokensPerMinute()) {
      return new BudgetVerdict.Never(PER_MINUTE, limits.tokensPerMinute(), need);
    }
    if (need > limits.tokensPerDay()) {
      return new BudgetVerdict.Never(PER_DAY, limits.tokensPerDay(), need);
    }
    if ((long) inFlight + elsewhereInFlight >= limits.maxConcurrent()) {
      return new BudgetVerdict.NotNow(CONCURRENT, 0);
    }
    long waitMinute = limits.tokensPerMinute() == Long.MAX_VALUE ? 0
        : minute.millisUntilRoom(nowMillis, need + elsewhereMinute, limits.tokensPerMinute());
    if (waitMinute != 0) {
      return new BudgetVerdict.NotNow(PER_MINUTE, waitMinute < 0 ? MINUTE : waitMinute);
    }
    long waitDay = limits.tokensPerDay() == Long.MAX_VALUE ? 0
        : day.millisUntilRoom(nowMillis, need + elsewhereDay, limits.tokensPerDay());
    if (waitDay != 0) {
      return new BudgetVerdict.NotNow(PER_DAY, waitDay < 0 ? DAY : waitDay);
    }
    return new BudgetVerdict.Reserved(charge(need, nowMillis));
  }

  /** Takes the tokens and the request whatever the limits say (a demoted request runs, charged). */
  public Reservation overdraw(long tokens, long nowMillis) {
    return charge(Math.max(0, tokens), nowMillis);
  }

  private Reservation charge(long tokens, long nowMillis) {
    minute.charge(nowMillis, tokens);
    day.charge(nowMillis, tokens);
    inFlight++;
    return new Reservation(tenant, tokens, nowMillis);
  }

  /** The request ended having used {@code usedTokens} (its usage, or what it is held to have used). */
  public void settle(Reservation r, long usedTokens, long nowMillis) {
    long delta = Math.max(0, usedTokens) - r.tokens();
    if (delta != 0) {
      minute.adjust(r.atMillis(), delta, nowMillis);
      day.adjust(r.atMillis(), delta, nowMillis);
    }
    inFlight = Math.max(0, inFlight - 1);
  }

  public long spentLastMinute(long nowMillis) {
    return minute.sum(nowMillis);
  }

  public long spentLastDay(long nowMillis) {
    return day.sum(nowMillis);
  }

  public int inFlight() {
    return inFlight;
  }
}
