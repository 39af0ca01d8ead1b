package io.llmgw.extproc.tenancy.plugins;

import io.llmgw.extproc.body.TokenUsage;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.hooks.ResponseHook;
import io.llmgw.extproc.tenancy.controller.TenantBudgets;
import io.llmgw.extproc.tenancy.controller.TenantEvents;
import io.llmgw.extproc.tenancy.core.Reservation;

/**
 * Settles the tokens a request reserved of its tenant's budget when its exchange ends: by the response's {@code usage}
 * when it has one the gateway can believe; the whole reservation when the pod did the work but reported none (a
 * stream without usage, or cancelled once it started) or reported garbage (counted); nothing when no pod worked on
 * it (refused, failed before the response, a pod's error answer).
 */
public final class TenantSettlement implements ResponseHook {
  public static final String TYPE = "tenant-settlement";

  private final TenantBudgets budgets;
  private final TenantEvents events;

  public TenantSettlement(TenantBudgets budgets, TenantEvents events) {
    this.budgets = budgets;
    this.events = events;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void onDone(RequestContext ctx, Completion completion) {
    Reservation r = ctx.reservation();
    TokenUsage usage = completion.usage();
    boolean believed = usage != null && usage.plausible();
    if (usage != null && !believed && ctx.tenant() != null) {
      events.usageIgnored(ctx.tenant());
    }
    if (believed && ctx.tenant() != null) {
      events.settled(ctx.tenant(), usage.promptTokens(), usage.completionTokens());
    }
    if (r == null) {
      return;
    }
    long used;
    if (believed) {
      used = usage.total();
    } else if (ctx.lease() == null || !ctx.timing().responded() || completion.code().startsWith("4")
        || completion.code().startsWith("5")) {
      used = 0; // no pod did the work: it is given back
    } else {
      used = r.tokens();
    }
    budgets.settle(r, used);
  }
}
