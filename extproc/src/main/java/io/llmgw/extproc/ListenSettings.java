package io.llmgw.extproc;

import io.llmgw.api.SettingException;
import io.llmgw.api.tls.ServerTls;
import io.llmgw.extproc.observe.AdminAccess;
import io.llmgw.extproc.peers.PeerExchange;
import io.llmgw.extproc.peers.PeerKey;
import java.time.Duration;
import java.util.List;

/**
 * Where and how the EPP listens, and how it stops.
 *
 * @param bindHost address the three servers listen on
 * @param grpcPort ext_proc (0 picks a free port)
 * @param keepAlivePermit how often a proxy may ping an idle ext_proc connection before it is told off
 * @param drainPeriod after a stop is asked for: readiness is off and ext_proc still takes new streams this long, so
 *     proxies see the readiness change and move away before anything is refused
 * @param shutdownGrace then: how long open streams may go on once new ones are refused
 * @param admin who may read and change things on the metrics/admin port
 * @param tls ext_proc (and the gRPC health service on its port) over TLS; null for plaintext
 * @param metricsTls the metrics/admin port over TLS too, with the same certificate
 * @param peers the other replicas' health-port addresses (host:port), where this one watches their in-flight counts
 *     and routed prompts
 * @param peerService cluster mode: the EPP's own Service, whose ready endpoints are the peers too; null for none
 * @param peerKey what peers prove to each other: a shared secret, or the explicit opt-out; required with peers
 * @param peerWarmTimeout how long a replica that starts waits for its peers' greetings (and one peer's KV-cache
 *     blocks) before it is ready on what it has
 * @param batchStatus the batch service's address (host:port), whose queues the status page shows; null for none
 * @param frontDoor the base URL clients use (Envoy's listener or the dev proxy), which the status page shows: the EPP
 *     sits behind it and cannot know it; null for none
 */
public record ListenSettings(String bindHost, int grpcPort, int healthPort, int metricsPort, Duration keepAlivePermit,
    Duration drainPeriod, Duration shutdownGrace, AdminAccess admin, ServerTls tls, boolean metricsTls,
    List<String> peers, String peerService, PeerKey peerKey, Duration peerWarmTimeout, String batchStatus,
    String frontDoor) {
  /** Beyond this a peer that does not answer keeps a starting replica out of service too long to be worth it. */
  static final Duration MAX_PEER_WARM_TIMEOUT = Duration.ofMinutes(5);

  public ListenSettings {
    for (int port : new int[] {grpcPort, healthPort, metricsPort}) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("ports must be within 0..65535");
      }
    }
    if (drainPeriod.isNegative() || shutdownGrace.isNegative()) {
      throw new IllegalArgumentException("the drain period and shutdown grace must not be negative");
    }
    if (metricsTls && tls == null) {
      throw new SettingException("listen.metricsTls",
          "needs listen.tls: the metrics port can only be served over TLS when TLS is on");
    }
    peers = List.copyOf(peers);
    if (peerWarmTimeout.isNegative() || peerWarmTimeout.compareTo(MAX_PEER_WARM_TIMEOUT) > 0) {
      throw new SettingException("listen.peerWarmTimeout",
          "takes 0 to 5 minutes, not " + peerWarmTimeout.toMillis() + " ms");
    }
    if (peerService != null && !peerService.matches("[a-z]([-a-z0-9]{0,61}[a-z0-9])?")) {
      throw new SettingException("listen.peerService", "takes a Service name, not '" + peerService + "'");
    }
    for (String peer : peers) {
      int colon = peer.lastIndexOf(':');
      if (colon <= 0 || !peer.substring(colon + 1).matches("\\d{1,5}")) {
        throw new SettingException("listen.peers", "takes host:port, not '" + peer + "'");
      }
    }
    if (batchStatus != null && !batchStatus.matches("[^\\s/:@?#]+:\\d{1,5}")) {
      throw new SettingException("listen.batchStatus", "takes host:port, not '" + batchStatus + "'");
    }
    if (frontDoor != null && !frontDoor.matches("https?://[^\\s/@?#:]+(:\\d{1,5})?/?")) {
      throw new SettingException("listen.frontDoor", "takes a base URL such as http://gateway.example:8080, not '"
          + frontDoor + "'");
    }
  }

  public static ListenSettings defaults() {
    return new ListenSettings("0.0.0.0", 9002, 9003, 9090, Duration.ofSeconds(10), Duration.ofSeconds(5),
        Duration.ofSeconds(30), AdminAccess.readOnly(), null, false, List.of(), null, PeerKey.NONE,
        PeerExchange.DEFAULT_WARM_TIMEOUT,
        null, null);
  }

  public ListenSettings on(String host, int grpc, int health, int metrics) {
    return new ListenSettings(host, grpc, health, metrics, keepAlivePermit, drainPeriod, shutdownGrace, admin, tls,
        metricsTls, peers, peerService, peerKey, peerWarmTimeout, batchStatus, frontDoor);
  }

  public ListenSettings withAdmin(AdminAccess access) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, drainPeriod, shutdownGrace,
        access, tls, metricsTls, peers, peerService, peerKey, peerWarmTimeout, batchStatus, frontDoor);
  }

  public ListenSettings withTls(ServerTls serverTls, boolean overMetricsToo) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, drainPeriod, shutdownGrace,
        admin, serverTls, overMetricsToo, peers, peerService, peerKey, peerWarmTimeout, batchStatus, frontDoor);
  }

  public ListenSettings withPeers(List<String> others) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, drainPeriod, shutdownGrace,
        admin, tls, metricsTls, others, peerService, peerKey, peerWarmTimeout, batchStatus, frontDoor);
  }

  public ListenSettings withPeerService(String service) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, drainPeriod, shutdownGrace,
        admin, tls, metricsTls, peers, service, peerKey, peerWarmTimeout, batchStatus, frontDoor);
  }

  public ListenSettings withPeerKey(PeerKey key) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, drainPeriod, shutdownGrace,
        admin, tls, metricsTls, peers, peerService, key, peerWarmTimeout, batchStatus, frontDoor);
  }

  public ListenSettings withPeerWarmTimeout(Duration timeout) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, drainPeriod, shutdownGrace,
        admin, tls, metricsTls, peers, peerService, peerKey, timeout, batchStatus, frontDoor);
  }

  /** Whether this replica has peers to watch and serve. */
  public boolean peered() {
    return !peers.isEmpty() || peerService != null;
  }

  /** Peers need a key, or the explicit opt-out (checked when the EPP starts, once every setting is in). */
  void checkPeers() {
    if (peered() && !peerKey.given()) {
      throw new SettingException("listen.peers", "need listen.peerSecretFile (a file with a shared secret, the same "
          + "on every replica) or, on a network where every host that can reach the health port is trusted, "
          + "listen.peersInsecure");
    }
  }

  public ListenSettings withStopping(Duration drain, Duration grace) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, drain, grace, admin, tls,
        metricsTls, peers, peerService, peerKey, peerWarmTimeout, batchStatus, frontDoor);
  }

  public ListenSettings withBatchStatus(String address) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, drainPeriod, shutdownGrace,
        admin, tls, metricsTls, peers, peerService, peerKey, peerWarmTimeout, address, frontDoor);
  }

  public ListenSettings withFrontDoor(String url) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, drainPeriod, shutdownGrace,
        admin, tls, metricsTls, peers, peerService, peerKey, peerWarmTimeout, batchStatus, url);
  }
}
