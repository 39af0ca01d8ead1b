package io.llmgw.extproc.body;

/**
 * What scanning a request body found: the facts routing needs ({@link ExtractedBody}), or why it cannot be routed
 * ({@link BodyProblem}, a 400).
 */
public sealed interface BodyScan permits ExtractedBody, BodyProblem {}
