package io.llmgw.adapters;

import java.util.concurrent.CompletionException;

/** A load or unload that did not succeed, with what the server said. */
public final class LoadFailure extends RuntimeException {
  private final String adapter;
  private final String address;

  public LoadFailure(String adapter, String address, String reason) {
    super(reason);
    this.adapter = adapter;
    this.address = address;
  }

  public String adapter() {
    return adapter;
  }

  public String address() {
    return address;
  }

  /** What a failed future failed with, without the {@link CompletionException} that dependent stages wrap it in. */
  public static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
  }

  /** A failure in words: our own message for a {@code LoadFailure}, the exception itself otherwise. */
  public static String reason(Throwable error) {
    Throwable e = unwrap(error);
    return e instanceof LoadFailure ? e.getMessage() : e.toString();
  }
}
