package io.llmgw.picker;

public record WeightedScorer(Scorer scorer, double weight) {}
