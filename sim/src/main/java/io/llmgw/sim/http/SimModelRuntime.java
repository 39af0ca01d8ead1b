package io.llmgw.sim.http;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.llmgw.sim.engine.Engine;
import io.llmgw.sim.engine.LoadResult;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.spi.mmesh.LoadModelRequest;
import io.llmgw.spi.mmesh.LoadModelResponse;
import io.llmgw.spi.mmesh.ModelRuntimeGrpc;
import io.llmgw.spi.mmesh.ModelSizeRequest;
import io.llmgw.spi.mmesh.ModelSizeResponse;
import io.llmgw.spi.mmesh.PredictModelSizeRequest;
import io.llmgw.spi.mmesh.PredictModelSizeResponse;
import io.llmgw.spi.mmesh.RuntimeStatusRequest;
import io.llmgw.spi.mmesh.RuntimeStatusResponse;
import io.llmgw.spi.mmesh.UnloadModelRequest;
import io.llmgw.spi.mmesh.UnloadModelResponse;
import io.vertx.core.Context;

/**
 * The ModelMesh runtime SPI over the same engine as the HTTP runtime LoRA API: a loaded model is a registered adapter,
 * so both ways of loading see each other. Calls hop onto the pod's event loop, where the engine lives.
 */
final class SimModelRuntime extends ModelRuntimeGrpc.ModelRuntimeImplBase {
  /** A rank-16 adapter of an 8B model is some tens of MiB; the exact figure only feeds capacity arithmetic. */
  static final long ADAPTER_BYTES = 64L << 20;

  private final Context context;
  private final Engine engine;
  private final SimConfig config;

  SimModelRuntime(Context context, Engine engine, SimConfig config) {
    this.context = context;
    this.engine = engine;
    this.config = config;
  }

  @Override
  public void loadModel(LoadModelRequest req, StreamObserver<LoadModelResponse> out) {
    if (req.getModelId().isBlank() || req.getModelPath().isBlank()) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("modelId and modelPath are required").asRuntimeException());
      return;
    }
    context.runOnContext(v -> engine.load(req.getModelId(), req.getModelPath(), r -> {
      if (r.status() == 200 || (r.status() == 400 && r.message().contains("already"))) {
        out.onNext(LoadModelResponse.newBuilder().setSizeInBytes(ADAPTER_BYTES).build());
        out.onCompleted();
      } else {
        out.onError(status(r).withDescription(r.message()).asRuntimeException());
      }
    }));
  }

  @Override
  public void unloadModel(UnloadModelRequest req, StreamObserver<UnloadModelResponse> out) {
    context.runOnContext(v -> {
      engine.unload(req.getModelId()); // not loaded is fine: the SPI unloads idempotently
      out.onNext(UnloadModelResponse.getDefaultInstance());
      out.onCompleted();
    });
  }

  @Override
  public void predictModelSize(PredictModelSizeRequest req, StreamObserver<PredictModelSizeResponse> out) {
    out.onNext(PredictModelSizeResponse.newBuilder().setSizeInBytes(ADAPTER_BYTES).build());
    out.onCompleted();
  }

  @Override
  public void modelSize(ModelSizeRequest req, StreamObserver<ModelSizeResponse> out) {
    out.onNext(ModelSizeResponse.newBuilder().setSizeInBytes(ADAPTER_BYTES).build());
    out.onCompleted();
  }

  @Override
  public void runtimeStatus(RuntimeStatusRequest req, StreamObserver<RuntimeStatusResponse> out) {
    out.onNext(RuntimeStatusResponse.newBuilder().setStatus(RuntimeStatusResponse.Status.READY)
        .setCapacityInBytes(ADAPTER_BYTES * config.maxCpuLoras()).setMaxLoadingConcurrency(2)
        .setModelLoadingTimeoutMs(30_000).setDefaultModelSizeInBytes(ADAPTER_BYTES).setRuntimeVersion("llmgw-sim")
        .build());
    out.onCompleted();
  }

  private static Status status(LoadResult r) {
    return switch (r.status()) {
      case 404 -> Status.NOT_FOUND;
      case 400 -> Status.INVALID_ARGUMENT;
      default -> Status.INTERNAL;
    };
  }
}
