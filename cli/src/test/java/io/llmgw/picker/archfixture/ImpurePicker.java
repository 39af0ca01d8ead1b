package io.llmgw.picker.archfixture;

import java.net.InetAddress;

/** Breaks the picker's purity on purpose: ArchitectureRulesTest checks that the rules see it. Never used. */
public final class ImpurePicker {
  private ImpurePicker() {}

  static Object lookUp() throws Exception {
    return InetAddress.getByName("127.0.0.1");
  }

  static long now() {
    return System.currentTimeMillis();
  }

  static Thread thread() {
    return new Thread(() -> {});
  }
}
