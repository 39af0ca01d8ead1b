package io.llmgw.extproc.control;

import io.llmgw.api.ConfigException;

/** Feeds the datastore from a file or a cluster; both produce the same GatewayConfig, so the picker cannot tell. */
public interface ConfigSource extends AutoCloseable {
  /** Starts feeding; a file source applies its file before returning and throws when it is invalid. */
  void start() throws ConfigException;

  @Override
  void close();
}
