package io.llmgw.extproc.tenancy.options;

import io.llmgw.api.cli.Converters;
import io.llmgw.extproc.tenancy.controller.TenancySettings;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Who may call the gateway: the serve command's tenancy flags (docs/features.md, "Tenants"). */
public final class TenancyOptions {
  @Option(names = "--api-keys-file", paramLabel = "FILE",
      description = "API keys the gateway checks itself (Authorization: Bearer KEY): a YAML file of the keys' "
          + "SHA-256 and the tenant each names, read again when it changes; a request without a known key is "
          + "answered 401 (default: none, no keys checked).")
  Path apiKeysFile;

  @Option(names = "--tenant-header", paramLabel = "NAME",
      description = "Trust this header to name the tenant: set by the proxy's own authentication (Envoy Gateway's "
          + "API-key or JWT policies) and removed from clients' requests before it, as every shipped proxy "
          + "configuration does for x-llmgw-tenant (default: none).")
  String tenantHeader;

  @Option(names = "--api-keys-reload-period", converter = Converters.PositiveDuration.class,
      description = "How often the API keys file is read again (default: ${DEFAULT-VALUE}).")
  Duration reloadPeriod;

  public TenancySettings tenancy() {
    return new TenancySettings(apiKeysFile, tenantHeader, reloadPeriod);
  }
}
