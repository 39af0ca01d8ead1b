package io.llmgw.adapters;

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
}
