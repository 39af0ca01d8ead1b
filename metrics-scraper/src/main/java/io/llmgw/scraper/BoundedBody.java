package io.llmgw.scraper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/** A response body read as UTF-8 text up to a limit; a larger body fails the request instead of filling the heap. */
final class BoundedBody implements HttpResponse.BodySubscriber<String> {
  private final int limit;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final CompletableFuture<String> result = new CompletableFuture<>();
  private Flow.Subscription subscription;

  private BoundedBody(int limit) {
    this.limit = limit;
  }

  static HttpResponse.BodyHandler<String> handler(int limit) {
    return info -> new BoundedBody(limit);
  }

  @Override
  public CompletionStage<String> getBody() {
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
        result.completeExceptionally(new IOException("response body exceeds " + limit + " bytes"));
        return;
      }
      if (b.hasArray()) {
        bytes.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
      } else {
        byte[] chunk = new byte[b.remaining()];
        b.get(chunk);
        bytes.write(chunk, 0, chunk.length);
      }
    }
  }

  @Override
  public void onError(Throwable t) {
    result.completeExceptionally(t);
  }

  @Override
  public void onComplete() {
    result.complete(bytes.toString(StandardCharsets.UTF_8));
  }
}
