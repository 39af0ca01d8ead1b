package io.llmgw.adapters;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.llmgw.spi.mmesh.LoadModelRequest;
import io.llmgw.spi.mmesh.ModelRuntimeGrpc;
import io.llmgw.spi.mmesh.RuntimeStatusRequest;
import io.llmgw.spi.mmesh.RuntimeStatusResponse;
import io.llmgw.spi.mmesh.UnloadModelRequest;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The ModelMesh runtime SPI ({@code mmesh.ModelRuntime}) as a loader: an adapter is a model whose id is its name, type
 * {@code lora} and path its source. The runtime listens on its own gRPC port of the pod ({@code runtimePort}); one
 * channel per pod is kept. gRPC errors become {@link LoadFailure}s carrying the status, so a retry elsewhere is
 * decided exactly as for vLLM's HTTP API.
 */
public final class MmeshRuntime implements AdapterRuntime, AutoCloseable {
  static final String MODEL_TYPE = "lora";

  private final int runtimePort;
  private final Duration timeout;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();

  public MmeshRuntime(int runtimePort, Duration timeout) {
    this.runtimePort = runtimePort;
    this.timeout = timeout;
  }

  @Override
  public CompletableFuture<Void> load(String address, String adapter, String source) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    stub(address).loadModel(LoadModelRequest.newBuilder().setModelId(adapter).setModelType(MODEL_TYPE)
        .setModelPath(source).build(), observer(done, adapter, address));
    return done;
  }

  @Override
  public CompletableFuture<Void> unload(String address, String adapter) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    stub(address).unloadModel(UnloadModelRequest.newBuilder().setModelId(adapter).build(),
        observer(done, adapter, address));
    return done;
  }

  @Override
  public CompletableFuture<OptionalInt> capacity(String address) {
    CompletableFuture<OptionalInt> done = new CompletableFuture<>();
    stub(address).runtimeStatus(RuntimeStatusRequest.getDefaultInstance(), new StreamObserver<>() {
      @Override
      public void onNext(RuntimeStatusResponse r) {
        done.complete(r.getStatus() == RuntimeStatusResponse.Status.READY && r.getDefaultModelSizeInBytes() > 0
            ? OptionalInt.of((int) Math.min(Integer.MAX_VALUE,
                r.getCapacityInBytes() / r.getDefaultModelSizeInBytes()))
            : OptionalInt.empty());
      }

      @Override
      public void onError(Throwable t) {
        done.complete(OptionalInt.empty());
      }

      @Override
      public void onCompleted() {
        done.complete(OptionalInt.empty());
      }
    });
    return done;
  }

  private ModelRuntimeGrpc.ModelRuntimeStub stub(String address) {
    String host = address.substring(0, address.lastIndexOf(':'));
    ManagedChannel channel = channels.computeIfAbsent(host,
        h -> NettyChannelBuilder.forAddress(h, runtimePort).usePlaintext().build());
    return ModelRuntimeGrpc.newStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static <T> StreamObserver<T> observer(CompletableFuture<Void> done, String adapter, String address) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {}

      @Override
      public void onError(Throwable t) {
        Status s = Status.fromThrowable(t);
        done.completeExceptionally(new LoadFailure(adapter, address, "gRPC " + s.getCode()
            + (s.getDescription() == null ? "" : ": " + s.getDescription())));
      }

      @Override
      public void onCompleted() {
        done.complete(null);
      }
    };
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
  }
}
