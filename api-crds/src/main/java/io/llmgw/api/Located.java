package io.llmgw.api;

/** A parsed object and the 1-based document it came from, so checks across documents can name it. */
record Located<T>(T value, int document) {}
