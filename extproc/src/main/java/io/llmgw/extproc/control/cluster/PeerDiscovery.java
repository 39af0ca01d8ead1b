package io.llmgw.extproc.control.cluster;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode's list of peer replicas: the ready endpoints of the EPP's own Service ({@code --peers-service}), from its
 * EndpointSlices, at the Service's health port (where replicas share their counts). A replica that is not ready (starting, draining) is not a peer; this
 * replica is among them and is told apart by the exchange itself (the id in its messages).
 */
public final class PeerDiscovery implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PeerDiscovery.class);
  static final String SERVICE_LABEL = "kubernetes.io/service-name";

  private final KubernetesClient client;
  private final String namespace;
  private final String service;
  private final int healthPort;
  private final Consumer<List<String>> peers;
  private SharedIndexInformer<EndpointSlice> informer;
  private List<String> last = List.of();

  /**
   * @param healthPort the port to use when a slice names none called {@code grpc-health} (this replica's own)
   * @param peers told the whole list whenever it changes
   */
  public PeerDiscovery(KubernetesClient client, String namespace, String service, int healthPort,
      Consumer<List<String>> peers) {
    this.client = client;
    this.namespace = namespace;
    this.service = service;
    this.healthPort = healthPort;
    this.peers = peers;
  }

  /**
   * Starts following the Service and waits at most {@code firstList} for its endpoints to be listed, telling them
   * before it returns: a replica that starts asks these peers for what they know before it is ready (issue 51). An API
   * server that does not answer in time leaves the list to follow, as when nothing waits.
   */
  public PeerDiscovery start(Duration firstList) {
    // assigned before it starts: the handler reads its store, and the first list arrives at once
    informer = client.discovery().v1().endpointSlices().inNamespace(namespace).withLabel(SERVICE_LABEL, service)
        .runnableInformer(0);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(EndpointSlice slice) {
        changed();
      }

      @Override
      public void onUpdate(EndpointSlice before, EndpointSlice after) {
        changed();
      }

      @Override
      public void onDelete(EndpointSlice slice, boolean finalStateUnknown) {
        changed();
      }
    });
    CompletableFuture<Void> listed = informer.start().toCompletableFuture();
    LOG.info("peer replicas: the ready endpoints of Service {}/{}", namespace, service);
    if (firstList.isPositive()) {
      try {
        listed.get(firstList.toMillis(), TimeUnit.MILLISECONDS);
        changed();
      } catch (TimeoutException | ExecutionException e) {
        LOG.warn("peer replicas: the endpoints of Service {}/{} were not listed within {} ms ({}): starting without "
            + "asking the peers for what they know", namespace, service, firstList.toMillis(), e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return this;
  }

  private synchronized void changed() {
    List<String> now = addresses(informer.getStore().list(), healthPort);
    if (!now.equals(last)) {
      last = now;
      peers.accept(now);
    }
  }

  /** Ready endpoints' addresses at the health port, sorted; a slice that is not IPv4 or IPv6 is skipped. */
  static List<String> addresses(List<EndpointSlice> slices, int defaultPort) {
    TreeSet<String> out = new TreeSet<>();
    for (EndpointSlice slice : slices) {
      String type = slice.getAddressType();
      if (type != null && !type.equals("IPv4") && !type.equals("IPv6")) {
        continue;
      }
      int port = defaultPort;
      for (EndpointPort p : slice.getPorts() == null ? List.<EndpointPort>of() : slice.getPorts()) {
        if ("grpc-health".equals(p.getName()) && p.getPort() != null) {
          port = p.getPort();
        }
      }
      for (Endpoint e : slice.getEndpoints() == null ? List.<Endpoint>of() : slice.getEndpoints()) {
        boolean ready = e.getConditions() == null || !Boolean.FALSE.equals(e.getConditions().getReady());
        for (String a : ready && e.getAddresses() != null ? e.getAddresses() : List.<String>of()) {
          out.add(a.contains(":") ? "[" + a + "]:" + port : a + ":" + port);
        }
      }
    }
    return new ArrayList<>(out);
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
  }
}
