package io.llmgw.bench.fleet;

import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.peers.PeerKey;
import io.llmgw.extproc.request.prepare.PromptTokensProducer;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.scorers.LoraPackingScorer;
import io.llmgw.picker.scorers.PrecisePrefixCacheScorer;
import io.llmgw.picker.scorers.SessionAffinityScorer;
import io.llmgw.scraper.kvevents.KvEventSettings;
import io.llmgw.sim.engine.KvEventsConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One EPP replica in a JVM of its own, as {@code llmgw serve} runs it in file mode with peers: bound to its own address,
 * following the pods' KV-cache events, watching its peers with the shared secret. {@link FleetRun} starts, SIGKILLs and
 * restarts these. Usage: CONFIG BIND GRPC_PORT HEALTH_PORT METRICS_PORT POLICY PEERS|- SECRET_FILE, where POLICY is a
 * {@code --policy} name, with {@code +session} for the session-affinity scorer (the serve default's).
 */
public final class FleetReplica {
  private FleetReplica() {}

  public static void main(String[] args) throws Exception {
    Path config = Path.of(args[0]);
    EppSettings d = EppSettings.defaults(config);
    boolean session = args[5].endsWith("+session");
    SchedulingConfig scheduling = PolicyShorthand.parse(args[5].replace("+session", ""))
        .config(LoraPackingScorer.DEFAULT_PENDING_THRESHOLD);
    if (session) {
      scheduling = scheduling.withScorer(PluginSpec.of(SessionAffinityScorer.TYPE), 2, "+session");
    }
    if (scheduling.lists(PrecisePrefixCacheScorer.TYPE)) {
      scheduling = scheduling.withPlugin(PluginSpec.of(PromptTokensProducer.TYPE,
          Map.of(PromptTokensProducer.TOKENIZER, "sim")));
    }
    List<String> peers = args[6].equals("-") ? List.of() : Arrays.asList(args[6].split(","));
    EppSettings s = d.withScheduling(scheduling)
        .withScrape(d.scrape().withKvEvents(new KvEventSettings(KvEventsConfig.DEFAULT_ON.port(),
            KvEventsConfig.DEFAULT_ON.replayPort(), "", Duration.ofSeconds(1))), d.staleAfter());
    s = s.withListen(s.listen().on(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
        Integer.parseInt(args[4])).withPeers(peers).withPeerKey(peers.isEmpty() ? PeerKey.NONE
            : PeerKey.fromFile(Path.of(args[7])))
        .withStopping(Duration.ZERO, Duration.ofSeconds(1)));
    s = s.withRequests(s.requests().withDestinationFallbacks(true));
    Epp epp = Epp.start(s, Clock.systemUTC());
    Runtime.getRuntime().addShutdownHook(new Thread(epp::close, "epp-close"));
    System.out.println("FLEET_READY");
    epp.awaitTermination();
  }
}
