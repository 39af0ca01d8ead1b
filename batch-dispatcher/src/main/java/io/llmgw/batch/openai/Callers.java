package io.llmgw.batch.openai;

import io.llmgw.api.ErrorCode;
import io.llmgw.api.keys.ApiKeys;
import io.llmgw.api.keys.BearerKey;
import io.llmgw.api.keys.ReloadingKeys;
import io.llmgw.batch.shared.BatchSettings;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Who calls the Files and Batches API (issue 31): the tenant a key of the gateway's keys file names, or the header the
 * proxy's own authentication set when trusted; everything a caller creates is theirs, and another tenant's files and
 * batches are answered 404, as if they did not exist. Without tenants, every caller is the one owner {@code ""}.
 */
public final class Callers implements AutoCloseable {
  static final String OWNER = "llmgw.owner";

  private final ReloadingKeys keys;
  private final String header;

  private Callers(ReloadingKeys keys, String header) {
    this.keys = keys;
    this.header = header;
  }

  /** Reads the keys file (a bad one stops start-up) and again every 5 s on {@code scheduler}. */
  public static Callers start(BatchSettings.Access access, ScheduledExecutorService scheduler) throws IOException {
    ReloadingKeys keys = access.apiKeysFile() == null ? null
        : ReloadingKeys.start(access.apiKeysFile(), Duration.ofSeconds(5), scheduler);
    return new Callers(keys, access.tenantHeader());
  }

  /** The first handler of every API path: the caller's tenant goes into the context, or the answer is 401. */
  void authenticate(RoutingContext ctx) {
    if (keys == null && header == null) {
      ctx.put(OWNER, "");
      ctx.next();
      return;
    }
    String owner = header == null ? null : ctx.request().getHeader(header);
    if (owner == null && keys != null) {
      String key = BearerKey.of(ctx.request().getHeader("authorization"));
      ApiKeys.Holder holder = key == null ? null : keys.keys().holder(key);
      owner = holder == null ? null : holder.tenant();
    }
    if (owner == null || !ApiKeys.isTenantName(owner)) {
      BatchApi.send(ctx, 401, keys == null ? ErrorCode.MISSING_TENANT.error("the gateway's authentication named no "
          + "tenant") : ErrorCode.INVALID_API_KEY.error(
              "Incorrect or missing API key. Send it in the Authorization "
                  + "header as 'Bearer YOUR_KEY'."));
      return;
    }
    ctx.put(OWNER, owner);
    ctx.next();
  }

  static String owner(RoutingContext ctx) {
    return ctx.get(OWNER);
  }

  @Override
  public void close() {
    if (keys != null) {
      keys.close();
    }
  }
}
