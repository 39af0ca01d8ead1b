package io.llmgw.batch.shared;

/**
 * The header on every answer of the batch service, whatever the path or status: through the gateway's front door, an
 * answer to {@code /v1/batches} without it came from something else (a proxy without the batch service's routes).
 */
public final class ServiceHeader {
  public static final String NAME = "x-llmgw-batch-service";
  public static final String VALUE = "1";

  private ServiceHeader() {}
}
