package io.llmgw.cli;

import io.llmgw.adapters.AdapterSettings;
import io.llmgw.api.cli.Converters;
import java.time.Duration;
import picocli.CommandLine.Option;

/** How the pods are watched (scrapes, staleness) and how adapters are loaded onto them. */
final class PodOptions {
  @Option(names = "--scrape-interval", converter = Converters.PositiveDuration.class,
      description = "How often each pod's /metrics is polled (default: ${DEFAULT-VALUE}).")
  Duration scrapeInterval;

  @Option(names = "--adapter-warm-window", converter = Converters.PositiveDuration.class,
      description = "How long an adapter a pod reported running or waiting still counts as active there after its "
          + "reports stop naming it (vLLM keeps it in its GPU slot until another adapter needs the slot); the seed "
          + "policy and the LoRA-affinity scorer prefer such pods (default: ${DEFAULT-VALUE}).")
  Duration adapterWarmWindow;

  @Option(names = "--stale-after", converter = Converters.PositiveDuration.class,
      description = "Pods whose metrics are older are not picked (default: ${DEFAULT-VALUE}).")
  Duration staleAfter;

  @Option(names = "--load-wait-timeout", converter = Converters.PositiveDuration.class,
      description = "How long a request waits for its adapter (a route target with a source) to be loaded "
          + "(default: ${DEFAULT-VALUE}).")
  Duration loadWaitTimeout;

  @Option(names = "--adapter-capacity",
      description = "Adapters a pod holds before the least recently used idle one is unloaded for a new one "
          + "(default: ${DEFAULT-VALUE}).")
  int adapterCapacity;

  @Option(names = "--mmesh-port",
      description = "Load adapters through the ModelMesh runtime SPI (mmesh.ModelRuntime gRPC) on this port of each "
          + "pod instead of vLLM's runtime LoRA API (default: 0, vLLM's API).")
  int mmeshPort;

  AdapterSettings adapters(AdapterSettings defaults) {
    return defaults.withLoadWaitTimeout(loadWaitTimeout).withCapacityPerPod(adapterCapacity).withMmeshPort(mmeshPort);
  }
}
