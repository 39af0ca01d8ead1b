package io.llmgw.extproc.tenancy.controller;

/** What tenancy tells its metrics; tenant names here are configuration's (see {@link TenantBudgets#label}). */
public interface TenantEvents {
  TenantEvents NONE = new TenantEvents() {};

  /** A request was admitted ({@code admitted}), waited for its budget ({@code queued}) or was demoted. */
  default void admission(String tenant, String outcome) {}

  /** A request was refused, and why: the limit, {@code route_not_allowed}, {@code queue_timeout}, … */
  default void refused(String tenant, String reason) {}

  /** A request's tokens were settled: what it used by its usage (or what it is held to have used). */
  default void settled(String tenant, long promptTokens, long completionTokens) {}

  /** A pod's usage could not be believed (negative, fractional, absurd): the reservation stood. */
  default void usageIgnored(String tenant) {}
}
