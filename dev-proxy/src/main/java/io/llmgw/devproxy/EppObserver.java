package io.llmgw.devproxy;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.vertx.core.Context;

/** One ext_proc stream's answers: gRPC delivers on its own threads, and every message hops onto the exchange's loop. */
final class EppObserver implements StreamObserver<ProcessingResponse> {
  private final Exchange exchange;
  private final Context loop;
  private final int stream;
  private final EppReplicas.Replica to;

  EppObserver(Exchange exchange, Context loop, int stream, EppReplicas.Replica to) {
    this.exchange = exchange;
    this.loop = loop;
    this.stream = stream;
    this.to = to;
  }

  @Override
  public void onNext(ProcessingResponse r) {
    loop.runOnContext(v -> exchange.eppAnswered(stream, r));
  }

  @Override
  public void onError(Throwable t) {
    to.open.decrementAndGet();
    loop.runOnContext(v -> exchange.eppFailed(stream, Status.fromThrowable(t)));
  }

  @Override
  public void onCompleted() {
    to.open.decrementAndGet();
    loop.runOnContext(v -> exchange.eppCompleted(stream));
  }
}
