package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class QuickJitTest {

  @Test
  void aJvmWithoutJitOptionsGetsC1Only() {
    assertThat(QuickJit.wanted(Map.of(), List.of("-Xmx1g", "-XX:+UseShenandoahGC", "-Dio.netty.jfr.enabled=false")))
        .isTrue();
  }

  @Test
  void theUsersChoiceIsKept() {
    assertThat(QuickJit.wanted(Map.of("INFERMARK_JIT", "full"), List.of())).isFalse();
    for (String option : List.of("-XX:TieredStopAtLevel=4", "-XX:TieredStopAtLevel=1", "-XX:-TieredCompilation",
        "-Xint", "-XX:CompilerDirectivesFile=d.json", "-XX:CompileCommand=exclude,*.*")) {
      assertThat(QuickJit.wanted(Map.of(), List.of("-Xmx1g", option))).as(option).isFalse();
    }
  }

  @Test
  void aPlainJvmCompilesWithoutC2AfterIt() throws Exception {
    // through the platform MBean server, and straight from jdk.management as the jar's Add-Opens allows
    for (List<String> options : List.of(List.<String>of(),
        List.of("--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED"))) {
      String printed = probe(options, Map.of());
      assertThat(printed).as("%s", options).startsWith("applied=true");
      // the directive the JVM now holds: every method, C2 excluded, C1 left to the default directive
      assertThat(printed).as("%s", options).contains("matching: *.*")
          .containsPattern("c2 directives:\\s+inline: -\\s+Enable:true Exclude:true");
    }
  }

  @Test
  void aJvmStartedWithAJitOptionOrInfermarkJitFullIsLeftAlone() throws Exception {
    assertThat(probe(List.of("-XX:TieredStopAtLevel=1"), Map.of())).startsWith("applied=false")
        .doesNotContain("Exclude:true");
    assertThat(probe(List.of(), Map.of("INFERMARK_JIT", "full"))).startsWith("applied=false")
        .doesNotContain("Exclude:true");
  }

  /** Runs {@link Probe} in a JVM of its own and returns what it printed. */
  private static String probe(List<String> jvmOptions, Map<String, String> env) throws IOException,
      InterruptedException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:-UsePerfData"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().remove("INFERMARK_JIT");
    pb.environment().putAll(env);
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    return new String(out, StandardCharsets.UTF_8);
  }

  /** Applies {@link QuickJit} and prints whether it did, then the JVM's compiler directives. */
  static final class Probe {
    public static void main(String[] args) throws Exception {
      System.out.println("applied=" + QuickJit.apply());
      System.out.println(ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesPrint",
          new Object[] {new String[0]}, new String[] {String[].class.getName()}));
    }
  }
}
