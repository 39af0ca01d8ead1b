package io.llmgw.extproc.tenancy.controller;

import io.llmgw.api.EppProtocol;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.SettingException;
import io.llmgw.api.keys.ApiKeys;
import io.llmgw.api.keys.BearerKey;
import io.llmgw.api.keys.ReloadingKeys;
import io.llmgw.extproc.reply.ErrorReply;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Who is asking, from a request's headers: a header the operator's own authentication set ({@code --tenant-header},
 * trusted only when configured), else an API key the gateway checks itself ({@code --api-keys-file}). A key that may
 * act for others (the batch service's) names the tenant in {@link EppProtocol#ON_BEHALF_OF}. Nothing here logs,
 * counts or answers with a key.
 */
public final class TenantIdentity {
  /** No tenants: every request is anonymous and nothing is checked. */
  public static final TenantIdentity OFF = new TenantIdentity(null, null, TenantEvents.NONE);

  /** A tenant, or the answer to a request that names none. */
  public record Result(String tenant, ErrorReply refusal) {}

  private final ReloadingKeys keys;
  private final String trustedHeader;
  private final TenantEvents events;

  /**
   * @param keys the API keys, or null
   * @param trustedHeader the header (lower case) the operator's authentication sets, or null
   * @param events told of each request refused here ({@code unauthenticated})
   */
  public TenantIdentity(ReloadingKeys keys, String trustedHeader, TenantEvents events) {
    this.keys = keys;
    this.trustedHeader = trustedHeader;
    this.events = events;
  }

  /** The keys file and what is read from it every period, or none; a file that cannot be read stops start-up. */
  public static TenantIdentity start(TenancySettings s, ScheduledExecutorService scheduler, TenantEvents events) {
    if (!s.on()) {
      return OFF;
    }
    ReloadingKeys keys = null;
    if (s.apiKeysFile() != null) {
      try {
        keys = ReloadingKeys.start(s.apiKeysFile(), s.keysReloadPeriod(), scheduler);
      } catch (IOException e) {
        throw new SettingException("tenancy.apiKeysFile", "cannot be used: " + e.getMessage());
      }
    }
    return new TenantIdentity(keys, s.tenantHeader(), events);
  }

  /** Whether the API keys name this tenant (a name the configuration gives, fit for a metric label). */
  public boolean keysName(String tenant) {
    return keys != null && keys.keys().tenants().contains(tenant);
  }

  /** Edits of the keys file refused since start (the last good keys stayed). */
  public long refusedKeyReloads() {
    return keys == null ? 0 : keys.refusedReloads();
  }

  public boolean on() {
    return keys != null || trustedHeader != null;
  }

  /** Whether a header must not reach the pod: the tenant header and the on-behalf-of header are the gateway's. */
  public boolean isGatewayHeader(String name) {
    return name.equals(EppProtocol.ON_BEHALF_OF) || name.equals(trustedHeader);
  }

  public Result identify(Map<String, String> headers) {
    if (trustedHeader != null) {
      String named = headers.get(trustedHeader);
      if (named != null) {
        return ApiKeys.isTenantName(named) ? new Result(named, null)
            : new Result(null, unauthenticated(ErrorCode.INVALID_TENANT,
                "the gateway's authentication named no valid tenant for this request"));
      }
      if (keys == null) {
        return new Result(null, unauthenticated(ErrorCode.MISSING_TENANT,
            "the gateway's authentication named no tenant for this request"));
      }
    }
    String authorization = headers.get("authorization");
    if (authorization == null) {
      return new Result(null, unauthenticated(ErrorCode.MISSING_API_KEY,
          "You didn't provide an API key. Send it in the Authorization header as 'Bearer YOUR_KEY'."));
    }
    String key = BearerKey.of(authorization);
    ApiKeys.Holder holder = key == null ? null : keys.keys().holder(key);
    if (holder == null) {
      return new Result(null, unauthenticated(ErrorCode.INVALID_API_KEY, "Incorrect API key provided."));
    }
    String onBehalfOf = headers.get(EppProtocol.ON_BEHALF_OF);
    if (onBehalfOf != null && holder.actsForOthers()) {
      return ApiKeys.isTenantName(onBehalfOf) ? new Result(onBehalfOf, null)
          : new Result(null, ErrorReply.badRequest(ErrorCode.INVALID_HEADER,
              "header " + EppProtocol.ON_BEHALF_OF + " names no valid tenant"));
    }
    return new Result(holder.tenant(), null);
  }

  private ErrorReply unauthenticated(ErrorCode code, String message) {
    events.refused(null, "unauthenticated");
    return new ErrorReply(401, code, message, 0);
  }
}
