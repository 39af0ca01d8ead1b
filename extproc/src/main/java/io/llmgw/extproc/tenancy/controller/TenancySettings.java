package io.llmgw.extproc.tenancy.controller;

import io.llmgw.api.SettingException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Who may call the gateway. Off (both null): requests carry no tenant and nothing is checked.
 *
 * @param apiKeysFile the API keys the gateway checks itself ({@code --api-keys-file}), or null
 * @param tenantHeader the header the operator's own authentication sets ({@code --tenant-header}), or null
 * @param keysReloadPeriod how often the keys file is read again
 */
public record TenancySettings(Path apiKeysFile, String tenantHeader, Duration keysReloadPeriod) {
  public static final TenancySettings OFF = new TenancySettings(null, null, Duration.ofSeconds(5));

  public TenancySettings {
    tenantHeader = tenantHeader == null || tenantHeader.isBlank() ? null : tenantHeader.toLowerCase(Locale.ROOT);
    if (tenantHeader != null && !tenantHeader.matches("[a-z0-9][-a-z0-9_]*")) {
      throw new SettingException("tenancy.tenantHeader", "must be a header name, not " + tenantHeader);
    }
    if (keysReloadPeriod.toMillis() < 100) {
      throw new SettingException("tenancy.keysReloadPeriod", "must be at least 100ms");
    }
  }

  public boolean on() {
    return apiKeysFile != null || tenantHeader != null;
  }
}
