package io.llmgw.extproc.server;

import io.llmgw.extproc.peers.PeerKey;
import java.nio.charset.StandardCharsets;

/** The shared secret the tests' replicas prove to each other. */
final class TestPeers {
  static final PeerKey KEY = PeerKey.of("the test replicas' shared secret".getBytes(StandardCharsets.US_ASCII));

  private TestPeers() {}
}
