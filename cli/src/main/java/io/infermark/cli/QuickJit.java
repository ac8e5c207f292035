package io.infermark.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a {@code java -jar infermark.jar} process compile as the {@code infermark} launcher does: with the quick C1
 * compiler only. A jar cannot carry JVM options, and with the JVM's default tiers C2 compiling beside a run was about
 * half of the client's CPU on a small run (docs/cpu-engine-on-the-same-machine.md). HotSpot takes compiler directives
 * at run time (what {@code jcmd PID Compiler.directives_add} does): one that excludes every method from C2 leaves a
 * method that would have gone to C2 compiled by C1 without profiling, as {@code -XX:TieredStopAtLevel=1} would.
 *
 * <p>Left alone when the user chose: {@code INFERMARK_JIT=full} in the environment (the launcher's switch), or any
 * JIT option on the JVM's command line ({@code -XX:TieredStopAtLevel}, {@code -XX:±TieredCompilation},
 * {@code -Xint}, {@code -Xcomp}, {@code -XX:CompilerDirectivesFile}, {@code -XX:CompileCommand}...). On a JVM
 * without the diagnostic command (not HotSpot) nothing happens. The command only: the library never changes its
 * host's compiler.
 */
final class QuickJit {

  private static final Logger LOG = LoggerFactory.getLogger(QuickJit.class);

  /** The JVM options that mean the user chose how the JIT runs. */
  private static final List<String> JIT_OPTIONS = List.of("-XX:TieredStopAtLevel", "-XX:-TieredCompilation",
      "-XX:+TieredCompilation", "-Xint", "-Xcomp", "-XX:CompilerDirectivesFile", "-XX:CompileCommand",
      "-XX:CompilationMode", "-XX:-UseCompiler");

  /** Every method kept from C2. */
  static final String DIRECTIVE = "[{ match: \"*.*\", c2: { Exclude: true } }]";

  private QuickJit() {}

  /**
   * Whether this process should compile with C1 only: no {@code INFERMARK_JIT=full} in {@code env} and no JIT option
   * among the JVM's {@code inputArguments}.
   */
  static boolean wanted(Map<String, String> env, List<String> inputArguments) {
    if ("full".equals(env.get("INFERMARK_JIT"))) {
      return false;
    }
    return inputArguments.stream().noneMatch(a -> JIT_OPTIONS.stream().anyMatch(a::startsWith));
  }

  /**
   * Adds the C1-only directive to this JVM when {@link #wanted} says so; returns whether it was added. Never throws:
   * a JVM that refuses it runs with its default tiers, said at debug level.
   */
  static boolean apply() {
    try {
      if (!wanted(System.getenv(), ManagementFactory.getRuntimeMXBean().getInputArguments())) {
        return false;
      }
      Path file = Files.createTempFile("infermark-jit", ".json");
      try {
        Files.writeString(file, DIRECTIVE, StandardCharsets.UTF_8);
        Object answer = diagnosticCommand().invoke("compilerDirectivesAdd",
            new Object[] {new String[] {file.toString()}}, new String[] {String[].class.getName()});
        LOG.debug("C1 only: {}", String.valueOf(answer).strip());
        return String.valueOf(answer).contains("1 compiler directives added");
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException | RuntimeException | JMException e) {
      LOG.debug("the JVM's default compiler tiers are kept: {}", e.toString());
      return false;
    }
  }

  /**
   * The JVM's diagnostic-command bean: straight from {@code jdk.management} when the jar's manifest opened it
   * ({@code Add-Opens}, which {@code java -jar} honours: about 25 ms of CPU), else through the platform MBean server,
   * whose start registers every platform bean (about 175 ms, measured on the 2-core VM with JDK 17).
   */
  private static Invoker diagnosticCommand() throws JMException {
    try {
      Method m = Class.forName("com.sun.management.internal.DiagnosticCommandImpl")
          .getDeclaredMethod("getDiagnosticCommandMBean");
      m.setAccessible(true);
      return ((DynamicMBean) m.invoke(null))::invoke;
    } catch (ReflectiveOperationException | RuntimeException notOpened) {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
      return (action, params, signature) -> server.invoke(name, action, params, signature);
    }
  }

  /** One operation of the diagnostic-command bean. */
  @FunctionalInterface
  private interface Invoker {
    Object invoke(String action, Object[] params, String[] signature) throws JMException;
  }
}
