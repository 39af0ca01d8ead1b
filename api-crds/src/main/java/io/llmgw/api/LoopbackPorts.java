package io.llmgw.api;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A port free on 127.0.0.1 right now, for a server that must be told its port before it starts. Chosen below the
 * kernel's ephemeral range: a port from that range, free when asked, may be handed to an outgoing connection (a
 * scrape, a peer's watch) before the server binds it, which made a four-replica bench fail to start.
 */
public final class LoopbackPorts {
  private static final int LOWEST = 20_000;
  private static final int ATTEMPTS = 200;

  private LoopbackPorts() {}

  public static int free() throws IOException {
    int below = ephemeralStart();
    for (int i = 0; below > LOWEST && i < ATTEMPTS; i++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      } catch (IOException taken) {
        // another one
      }
    }
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The first port the kernel hands out to outgoing connections (Linux), or where it usually is elsewhere. */
  private static int ephemeralStart() {
    // read as a stream: /proc files report a size of 0, and a read sized by it came back cut short
    try (var in = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      String[] range = in.readLine().trim().split("\\s+");
      return Integer.parseInt(range[0]);
    } catch (IOException | RuntimeException unknown) {
      return 32_768;
    }
  }
}
