package io.llmgw.cli.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rules docs/architecture.md states, checked over every module's main classes: modules depend only on the modules
 * below them in its table, {@code picker} does no I/O and starts no threads, and inside {@code extproc} a package
 * imports only the layers below its own. A rule broken here is either a bug or a change the document must state first.
 */
class ArchitectureRulesTest {
  /** Each module's root package and the modules it may use (docs/architecture.md, "What runs where"). */
  static final Map<String, Set<String>> MODULES = new LinkedHashMap<>();

  static {
    MODULES.put("api", Set.of());
    MODULES.put("picker", Set.of());
    MODULES.put("chattemplate", Set.of());
    MODULES.put("scraper", Set.of("api", "picker"));
    MODULES.put("spi", Set.of());
    MODULES.put("adapters", Set.of("api", "picker", "spi"));
    MODULES.put("extproc", Set.of("api", "picker", "chattemplate", "scraper", "spi", "adapters"));
    MODULES.put("envoy", Set.of("api"));
    MODULES.put("devproxy", Set.of("api"));
    MODULES.put("sim", Set.of("spi", "chattemplate"));
    MODULES.put("batch", Set.of("api"));
    MODULES.put("loadgen", Set.of("api", "picker", "chattemplate", "scraper", "spi", "adapters", "extproc", "devproxy",
        "sim"));
    // the shipped launcher never uses the lab; the lab is a leaf that nothing ships
    MODULES.put("cli", Set.of("api", "picker", "chattemplate", "scraper", "spi", "adapters", "extproc", "envoy",
        "devproxy", "sim", "batch", "loadgen"));
    MODULES.put("bench", Set.of("api", "picker", "chattemplate", "scraper", "spi", "adapters", "extproc", "envoy",
        "devproxy", "sim", "batch", "loadgen"));
  }

  static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.llmgw");
  }

  static String root(String module) {
    return "io.llmgw." + module + "..";
  }

  /** Modules point down the table: each uses only the modules it lists. */
  static List<ArchRule> moduleRules() {
    return MODULES.keySet().stream().map(ArchitectureRulesTest::moduleRule).toList();
  }

  static ArchRule moduleRule(String module) {
    Set<String> allowed = MODULES.get(module);
    String[] others = MODULES.keySet().stream().filter(m -> !m.equals(module) && !allowed.contains(m))
        .map(ArchitectureRulesTest::root).toArray(String[]::new);
    return noClasses().that().resideInAPackage(root(module)).should().dependOnClassesThat().resideInAnyPackage(others)
        .because("docs/architecture.md: " + module + " depends only on " + allowed);
  }

  @Test
  void modulesDependOnlyOnTheModulesBelowThem() {
    moduleRules().forEach(r -> r.check(classes));
  }

  /** What a pure package may not touch: I/O, the network stack, threads, logging, serialisation. */
  static final String[] IMPURE_PACKAGES = {"java.io..", "java.net..", "java.nio.file..", "java.nio.channels..",
      "io.grpc..", "io.netty..", "io.vertx..", "io.fabric8..", "io.prometheus..", "org.slf4j..",
      "com.fasterxml.jackson..", "com.google.protobuf..", "picocli.."};

  static ArchRule pure(String packages, String because) {
    return noClasses().that().resideInAPackage(packages).should().dependOnClassesThat()
        .resideInAnyPackage(IMPURE_PACKAGES)
        .orShould().dependOnClassesThat().haveFullyQualifiedName(Thread.class.getName())
        .orShould().dependOnClassesThat().haveFullyQualifiedName(java.util.concurrent.Executor.class.getName())
        .orShould().dependOnClassesThat().haveFullyQualifiedName(java.util.concurrent.ExecutorService.class.getName())
        .orShould().dependOnClassesThat()
        .haveFullyQualifiedName(java.util.concurrent.ScheduledExecutorService.class.getName())
        .orShould().dependOnClassesThat().haveFullyQualifiedName(java.util.concurrent.Executors.class.getName())
        .because(because);
  }

  static final ArchRule PICKER_IS_PURE = pure("io.llmgw.picker..",
      "docs/architecture.md: picker is pure domain, no I/O, no threads");

  static final ArchRule PICKER_TIME_IS_INJECTED = noClasses().that().resideInAPackage("io.llmgw.picker..")
      .and().doNotHaveFullyQualifiedName("io.llmgw.picker.Ticker").should()
      .callMethod(System.class, "nanoTime").orShould().callMethod(System.class, "currentTimeMillis")
      .orShould().callMethod(java.time.Instant.class, "now").orShould().callMethod(java.time.Clock.class,
          "systemUTC")
      .because("docs/architecture.md: time comes from an injected Clock and Ticker");

  /** A capability's core package (flow control's queue, tenancy's ledger, objectives' windows). */
  static final String CAPABILITY_CORES = "io.llmgw.extproc.*.core..";

  static final ArchRule CAPABILITY_CORES_ARE_PURE = pure(CAPABILITY_CORES,
      "docs/architecture.md: a capability's core is pure, no I/O, no threads");

  static final ArchRule CAPABILITY_CORES_STAND_ALONE = noClasses().that().resideInAPackage(CAPABILITY_CORES).should()
      .dependOnClassesThat(resideInAPackage("io.llmgw.extproc..").and(not(resideInAPackage(CAPABILITY_CORES))))
      .orShould().callMethod(System.class, "nanoTime").orShould().callMethod(System.class, "currentTimeMillis")
      .orShould().callMethod(java.time.Instant.class, "now")
      .because("docs/architecture.md: a capability's core imports no EPP package but other cores, and is given time");

  @Test
  void capabilityCoresArePureAndStandAlone() {
    CAPABILITY_CORES_ARE_PURE.check(classes);
    CAPABILITY_CORES_STAND_ALONE.check(classes);
  }

  @Test
  void pickerDoesNoIoStartsNoThreadAndReadsTimeOnlyFromWhatItIsGiven() {
    PICKER_IS_PURE.check(classes);
    PICKER_TIME_IS_INJECTED.check(classes);
  }

  /** Inside extproc, from the composition root down to leaves that import nothing of the EPP. */
  static final ArchRule EXTPROC_LAYERS = layeredArchitecture().consideringOnlyDependenciesInAnyPackage(
      "io.llmgw.extproc..")
      .layer("composition").definedBy("io.llmgw.extproc", "io.llmgw.extproc.plugins")
      // a capability enters the request through its plugins (typed extension points) and the CLI through its options
      .layer("extensions").definedBy("io.llmgw.extproc.*.plugins..", "io.llmgw.extproc.*.options..")
      .layer("server").definedBy("io.llmgw.extproc.server..")
      .layer("lifecycle").definedBy("io.llmgw.extproc.request..")
      .layer("observe").definedBy("io.llmgw.extproc.observe..", "io.llmgw.extproc.*.metrics..")
      .layer("control").definedBy("io.llmgw.extproc.control..")
      .layer("services").definedBy("io.llmgw.extproc.*.controller..", "io.llmgw.extproc.rollout..",
          "io.llmgw.extproc.peers..")
      .layer("state").definedBy("io.llmgw.extproc.state..")
      .layer("leaves").definedBy("io.llmgw.extproc.body..", "io.llmgw.extproc.pluginfile..",
          "io.llmgw.extproc.reply..", "io.llmgw.extproc.tokens..", CAPABILITY_CORES)
      .whereLayer("composition").mayNotBeAccessedByAnyLayer()
      .whereLayer("extensions").mayOnlyBeAccessedByLayers("composition")
      .whereLayer("server").mayOnlyBeAccessedByLayers("composition")
      .whereLayer("lifecycle").mayOnlyBeAccessedByLayers("composition", "extensions", "server")
      .whereLayer("observe").mayOnlyBeAccessedByLayers("composition", "extensions", "server", "lifecycle")
      .whereLayer("control").mayOnlyBeAccessedByLayers("composition", "extensions", "server", "lifecycle", "observe")
      .whereLayer("services").mayOnlyBeAccessedByLayers("composition", "extensions", "server", "lifecycle", "observe",
          "control")
      .whereLayer("state").mayOnlyBeAccessedByLayers("composition", "extensions", "server", "lifecycle", "observe",
          "control", "services")
      .because("docs/architecture.md: no upward imports inside extproc");

  @Test
  void extprocPackagesImportOnlyTheLayersBelowThem() {
    EXTPROC_LAYERS.check(classes);
  }

  /** Inside the batch service, from its composition root (the service, its command) down to the store. */
  static final ArchRule BATCH_LAYERS = layeredArchitecture().consideringOnlyDependenciesInAnyPackage(
      "io.llmgw.batch..")
      .layer("composition").definedBy("io.llmgw.batch")
      .layer("api").definedBy("io.llmgw.batch.openai..")
      .layer("lifecycle").definedBy("io.llmgw.batch.lifecycle..")
      .layer("dispatch").definedBy("io.llmgw.batch.dispatch..")
      .layer("upload").definedBy("io.llmgw.batch.upload..")
      .layer("store").definedBy("io.llmgw.batch.store..")
      .layer("shared").definedBy("io.llmgw.batch.shared..")
      .layer("client").definedBy("io.llmgw.batch.client..")
      .whereLayer("composition").mayNotBeAccessedByAnyLayer()
      .whereLayer("api").mayOnlyBeAccessedByLayers("composition")
      .whereLayer("lifecycle").mayOnlyBeAccessedByLayers("composition")
      .whereLayer("dispatch").mayOnlyBeAccessedByLayers("composition", "lifecycle")
      .whereLayer("upload").mayOnlyBeAccessedByLayers("composition", "api")
      .whereLayer("store").mayOnlyBeAccessedByLayers("composition", "api", "lifecycle", "dispatch", "upload")
      .whereLayer("shared").mayOnlyBeAccessedByLayers("composition", "api", "lifecycle", "dispatch", "upload")
      .whereLayer("client").mayNotBeAccessedByAnyLayer()
      .because("docs/architecture.md: no upward imports inside the batch service, and no package loop");

  @Test
  void batchPackagesImportOnlyTheLayersBelowThem() {
    BATCH_LAYERS.check(classes);
  }

  /** A package's name says which room it is: no two modules have a package of the same name. */
  @Test
  void packageNamesAreUniqueAcrossModules() {
    Map<String, Set<String>> modulesByName = new java.util.TreeMap<>();
    for (var c : classes) {
      String pkg = c.getPackageName();
      String[] parts = pkg.split("\\.");
      if (parts.length > 3) { // io.llmgw.<module>.<name>...
        modulesByName.computeIfAbsent(parts[parts.length - 1], k -> new java.util.TreeSet<>()).add(parts[2]);
      }
    }
    modulesByName.entrySet().removeIf(e -> e.getValue().size() < 2);
    assertThat(modulesByName).as("package names used in more than one module").isEmpty();
  }

  /** Small files, one idea each: no main source file over 350 lines in any module but bench, the lab. */
  @Test
  void noMainFileOutsideTheLabIsOver350Lines() throws java.io.IOException {
    Map<String, Long> tooLong = new java.util.TreeMap<>();
    List<java.nio.file.Path> modules;
    try (var dirs = java.nio.file.Files.list(java.nio.file.Path.of(".."))) {
      modules = dirs.filter(d -> java.nio.file.Files.isDirectory(d.resolve("src/main/java")))
          .filter(d -> !d.getFileName().toString().equals("bench")).toList();
    }
    assertThat(modules).as("the modules the rule reads").hasSizeGreaterThan(10);
    for (var module : modules) {
      try (var files = java.nio.file.Files.walk(module.resolve("src/main/java"))) {
        for (var f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          long lines;
          try (var l = java.nio.file.Files.lines(f)) {
            lines = l.count();
          }
          if (lines > 350) {
            tooLong.put(f.toString(), lines);
          }
        }
      }
    }
    assertThat(tooLong).as("split these: docs/architecture.md, the house rules").isEmpty();
  }

  /** The rules are not vacuous: classes that break them on purpose (test sources, never used) are caught. */
  @Test
  void deliberateViolationsAreCaught() {
    // the EPP's classes with them, so that every layer has its classes (test sources included: the fixtures are there)
    JavaClasses fixtures = new ClassFileImporter().importPackages("io.llmgw.picker.archfixture",
        "io.llmgw.scraper.archfixture", "io.llmgw.loadgen.archfixture", "io.llmgw.extproc", "io.llmgw.batch");
    assertThat(PICKER_IS_PURE.evaluate(fixtures).getFailureReport().getDetails())
        .anyMatch(d -> d.contains("java.net.InetAddress")).anyMatch(d -> d.contains("java.lang.Thread"));
    assertThat(CAPABILITY_CORES_ARE_PURE.evaluate(fixtures).getFailureReport().getDetails())
        .anyMatch(d -> d.contains("ImpureLedger") && d.contains("java.nio.file.Files"));
    assertThat(CAPABILITY_CORES_STAND_ALONE.evaluate(fixtures).getFailureReport().getDetails())
        .anyMatch(d -> d.contains("ImpureLedger") && d.contains("TenantBudgets"))
        .anyMatch(d -> d.contains("System.nanoTime()"));
    assertThat(PICKER_TIME_IS_INJECTED.evaluate(fixtures).getFailureReport().getDetails())
        .anyMatch(d -> d.contains("System.currentTimeMillis()"));
    assertThat(EXTPROC_LAYERS.evaluate(fixtures).getFailureReport().getDetails())
        .anyMatch(d -> d.contains("UpwardImport") && d.contains("RequestContext"));
    assertThat(moduleRule("scraper").evaluate(fixtures).getFailureReport().getDetails())
        .anyMatch(d -> d.contains("ModuleUpward") && d.contains("Datastore"));
    assertThat(moduleRule("loadgen").evaluate(fixtures).getFailureReport().getDetails())
        .anyMatch(d -> d.contains("LabImport") && d.contains("ProcessCpu"));
    assertThat(BATCH_LAYERS.evaluate(fixtures).getFailureReport().getDetails())
        .anyMatch(d -> d.contains("StoreUpward") && d.contains("Dispatcher"));
  }
}
