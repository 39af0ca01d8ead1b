package io.llmgw.extproc.tenancy.core;

/**
 * Tokens a request holds of its tenant's budget from admission until its usage settles them.
 *
 * @param tokens what was charged: the prompt's tokens and the most the request may generate
 * @param atMillis when: a settlement corrects the windows' bucket of this moment
 */
public record Reservation(String tenant, long tokens, long atMillis) {}
