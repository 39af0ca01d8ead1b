package io.llmgw.scraper;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The reader end of one kept-alive connection of {@link HttpPages}: at most one request at a time, its answer gathered
 * into one of the pages' reused body arrays; touched on the pages' loop only.
 */
final class PageConnection extends ChannelInboundHandlerAdapter {
  private final HttpPages pages;

  Channel channel;
  String address;
  HttpPages.Request current;
  byte[] body;
  int length;
  int status;
  boolean keepAlive;

  PageConnection(HttpPages pages) {
    this.pages = pages;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      HttpPages.Request request = current;
      if (request == null) {
        ctx.close(); // an answer nobody asked for: this connection can no longer be trusted
        return;
      }
      if (msg instanceof HttpObject o && o.decoderResult().isFailure()) {
        request.fail(new IOException("not an HTTP answer: " + o.decoderResult().cause().getMessage()));
        return;
      }
      if (msg instanceof HttpResponse response) {
        request.answered = true;
        status = response.status().code();
        keepAlive = HttpUtil.isKeepAlive(response);
        length = 0;
        body = pages.takeBody();
      }
      if (msg instanceof HttpContent content && body != null) {
        append(request, content.content());
        if (msg instanceof LastHttpContent && !request.done) {
          complete(request);
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void append(HttpPages.Request request, ByteBuf bytes) {
    int n = bytes.readableBytes();
    if (length + n > pages.maxBodyBytes) {
      request.fail(new IOException("response body exceeds " + pages.maxBodyBytes + " bytes"));
      return;
    }
    if (length + n > body.length) {
      body = Arrays.copyOf(body, (int) Math.min(pages.maxBodyBytes, Math.max(length + n, 2L * body.length)));
    }
    bytes.getBytes(bytes.readerIndex(), body, length, n);
    length += n;
  }

  private void complete(HttpPages.Request request) {
    request.done = true;
    pages.deadlines.dropFinished();
    request.connection = null;
    current = null;
    byte[] page = body;
    body = null;
    if (keepAlive && !pages.closed) {
      pages.idle.computeIfAbsent(request.address, a -> new ArrayDeque<>(2)).addLast(channel);
    } else {
      channel.close();
    }
    try {
      request.reader.page(status, page, length);
    } finally {
      pages.giveBack(page);
    }
  }

  /** Drops the request's body array when the request ends without an answer. */
  void release() {
    current = null;
    if (body != null) {
      pages.giveBack(body);
      body = null;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    ArrayDeque<Channel> free = address == null ? null : pages.idle.get(address);
    if (free != null) {
      free.remove(channel);
    }
    HttpPages.Request request = current;
    if (request != null) {
      request.lost(new IOException("the pod closed the connection before the whole answer"));
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    HttpPages.Request request = current;
    if (request != null) {
      request.lost(cause);
    } else {
      ctx.close();
    }
  }
}
