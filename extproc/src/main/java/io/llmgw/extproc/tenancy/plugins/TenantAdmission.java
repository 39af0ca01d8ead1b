package io.llmgw.extproc.tenancy.plugins;

import io.llmgw.api.ClientText;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.TenantBudget;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.Step;
import io.llmgw.extproc.request.admission.AdmissionFacts;
import io.llmgw.extproc.request.admission.AdmissionStep;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.tenancy.controller.TenantBudgets;
import io.llmgw.extproc.tenancy.controller.TenantEvents;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.PromptTokens;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.Set;

/**
 * The tenant's budget, first of the admission steps: a route the tenant may not use answers 404 as OpenAI does for a
 * model the caller cannot see; the tenant's priority band replaces the route's (not a named objective's: a batch line
 * stays in the batch band); then the request reserves its prompt's
 * tokens (counted where a tokenizer is configured, estimated from the body otherwise) plus the most it may generate
 * ({@code max_tokens}, else the budget's {@code defaultOutputTokens}), and waits, runs demoted or is refused when the
 * budget cannot take them now. The reservation is settled when the exchange ends ({@code tenant-settlement}).
 */
public final class TenantAdmission implements AdmissionStep {
  public static final String TYPE = "tenant-budget";

  private final TenantBudgets budgets;
  private final Datastore datastore;
  private final TenantEvents events;
  private final boolean on;
  private final boolean countsPrompt;

  /**
   * @param on the gateway has tenants: without, every request passes and no attribute is made for this step
   * @param countsPrompt a tokenizer is configured: the prompt's tokens are counted ({@code prompt-tokens})
   */
  public TenantAdmission(TenantBudgets budgets, Datastore datastore, TenantEvents events, boolean on,
      boolean countsPrompt) {
    this.budgets = budgets;
    this.datastore = datastore;
    this.events = events;
    this.on = on;
    this.countsPrompt = countsPrompt;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> consumes() {
    if (!on) {
      return Set.of();
    }
    return countsPrompt ? Set.of(RequestAttributes.MAX_OUTPUT_TOKENS, RequestAttributes.PROMPT_TOKENS)
        : Set.of(RequestAttributes.MAX_OUTPUT_TOKENS);
  }

  @Override
  public Verdict admit(RequestContext ctx, AdmissionFacts facts) {
    String tenant = ctx.tenant();
    if (tenant == null) { // no tenants, or a request the stream let through without one (never, with tenants on)
      return Verdict.ADMIT;
    }
    TenantBudget budget = datastore.topology().budget(tenant);
    if (!budget.mayUse(ctx.route().route().name())) {
      events.refused(tenant, "route_not_allowed");
      return new Verdict.Refuse(new ErrorReply(404, ErrorCode.MODEL_NOT_FOUND, "The model "
          + ClientText.quote(ctx.requestedModel()) + " does not exist or you do not have access to it."));
    }
    if (budget.priority() != null && ctx.hints().objectiveName() == null) {
      ctx.reprioritise(budget.priority()); // a request that names its objective (a batch line) keeps that band
    }
    return switch (budgets.admit(tenant, budget, reservedTokens(ctx, budget), ctx::holdReservation)) {
      case TenantBudgets.Admission.Reserved r -> {
        ctx.holdReservation(r.reservation());
        if (r.demoted()) {
          ctx.reprioritise(budget.demotedPriority());
        }
        yield Verdict.ADMIT;
      }
      case TenantBudgets.Admission.Refused r -> new Verdict.Refuse(r.reply());
      case TenantBudgets.Admission.Waiting w -> new Verdict.Queue(new Step.Wait(
          w.outcome().thenApply(refusal -> refusal == null ? new Step.Resumption.Proceed(null)
              : new Step.Resumption.Refuse(refusal)),
          w.cancel()));
    };
  }

  /** The prompt's tokens plus the most the request may generate. */
  long reservedTokens(RequestContext ctx, TenantBudget budget) {
    PromptTokens counted = countsPrompt ? ctx.attributes().get(RequestAttributes.PROMPT_TOKENS) : null;
    int[] ids = counted == null ? null : counted.ids();
    long prompt = ids != null && ids.length > 0 ? ids.length : ctx.promptTokens();
    Integer max = ctx.attributes().get(RequestAttributes.MAX_OUTPUT_TOKENS);
    return prompt + (max != null ? max : budget.defaultOutputTokens());
  }
}
