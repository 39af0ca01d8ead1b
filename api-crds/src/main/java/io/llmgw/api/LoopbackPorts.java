package io.llmgw.api;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** A port free on 127.0.0.1 right now, for a server that must be told its port before it starts. */
public final class LoopbackPorts {
  private LoopbackPorts() {}

  public static int free() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
