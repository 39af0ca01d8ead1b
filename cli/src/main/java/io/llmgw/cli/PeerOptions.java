package io.llmgw.cli;

import io.llmgw.api.cli.Converters;
import io.llmgw.extproc.peers.PeerKey;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/** The serve command's flags for the other replicas: who they are, and what they prove to each other. */
final class PeerOptions {
  @Option(names = "--peers", split = ",", paramLabel = "HOST:PORT", description = "The other EPP replicas' health "
      + "ports (--health-port, plaintext whatever --tls says): each replica watches the others' in-flight counts there "
      + "(every 25 ms), so that a pod's load counts what every replica sent it since its last report, and the prompts "
      + "they routed, so that the approximate prefix index knows where every replica sent them; a peer that does not "
      + "answer is dropped, never waited for. Needs --peers-secret-file or --peers-insecure.")
  List<String> peers = List.of();

  @Option(names = "--peers-service", paramLabel = "NAME", description = "With --kubernetes: the EPP's own Service; its "
      + "ready endpoints are the peers (as --peers), followed as replicas come and go (needs list and watch on "
      + "endpointslices).")
  String service;

  @Option(names = "--peers-secret-file", paramLabel = "PATH", description = "A secret every replica reads from the "
      + "same file (at least 16 bytes, e.g. a Kubernetes Secret): watch requests and every message between replicas "
      + "are signed with it, and whoever cannot sign is refused; the prompt-block hashes replicas share are seeded "
      + "with it.")
  Path secretFile;

  @Option(names = "--peers-insecure", description = "Exchange counts with peers without a secret: anyone who can reach "
      + "the health port reads them (tenant names and spending, routed prompt hashes) and can send invented ones. "
      + "Only for a network where every host that can reach it is trusted.")
  boolean insecure;

  @Option(names = "--peers-warm-timeout", converter = Converters.AnyDuration.class, defaultValue = "5s",
      paramLabel = "DURATION",
      description = "How long a replica that starts waits for every peer to greet it with what "
          + "it knows (counts, tenants' spending, routed prompts) and for one peer's KV-cache blocks, before it is ready "
          + "on what it has (llmgw_peer_warm 0); 0 to 5m. Default: ${DEFAULT-VALUE}.")
  Duration warmTimeout;

  /** The key, refused here when peers are given none: a replica must not start half configured. */
  PeerKey key() {
    if (!peers.isEmpty() || service != null) {
      if (secretFile == null && !insecure) {
        throw new IllegalArgumentException("--peers and --peers-service need --peers-secret-file (a file with a shared "
            + "secret, the same on every replica) or, on a network where every host that can reach the health port is "
            + "trusted, --peers-insecure");
      }
    }
    if (secretFile != null && insecure) {
      throw new IllegalArgumentException("--peers-secret-file and --peers-insecure contradict each other; give one");
    }
    if (secretFile == null) {
      return insecure ? PeerKey.INSECURE : PeerKey.NONE;
    }
    try {
      return PeerKey.fromFile(secretFile);
    } catch (IOException e) {
      throw new IllegalArgumentException("--peers-secret-file " + e.getMessage());
    }
  }
}
