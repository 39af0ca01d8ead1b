package io.llmgw.extproc.tokens;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * An HTTP answer's body collected without holding a thread, up to a limit: past it the exchange is cancelled and the
 * body fails, so a server that answers without end costs a bounded buffer.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
  private final int limit;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final CompletableFuture<byte[]> result = new CompletableFuture<>();
  private Flow.Subscription subscription;

  private BoundedBody(int limit) {
    this.limit = limit;
  }

  static HttpResponse.BodyHandler<byte[]> upTo(int limit) {
    return info -> new BoundedBody(limit);
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    for (ByteBuffer b : buffers) {
      if (bytes.size() + b.remaining() > limit) {
        subscription.cancel();
        result.completeExceptionally(new IOException("the answer is larger than " + limit + " bytes"));
        return;
      }
      byte[] chunk = new byte[b.remaining()];
      b.get(chunk);
      bytes.write(chunk, 0, chunk.length);
    }
  }

  @Override
  public void onError(Throwable e) {
    result.completeExceptionally(e);
  }

  @Override
  public void onComplete() {
    result.complete(bytes.toByteArray());
  }
}
