package io.infermark.core;

import java.util.Objects;

/**
 * The machine and JVM a run was measured on, recorded with every result because client-side
 * numbers depend on them.
 *
 * @param javaVersion {@code java.version}
 * @param javaVendor {@code java.vm.vendor} and VM name
 * @param osName operating system name and version
 * @param osArch processor architecture
 * @param availableProcessors processors available to the JVM
 * @param maxHeapBytes maximum heap size
 * @param virtualThreads whether requests ran on virtual threads
 */
public record RunEnvironment(String javaVersion, String javaVendor, String osName, String osArch,
    int availableProcessors, long maxHeapBytes, boolean virtualThreads) {

  /** Validates. */
  public RunEnvironment {
    Objects.requireNonNull(javaVersion, "javaVersion");
    Objects.requireNonNull(javaVendor, "javaVendor");
    Objects.requireNonNull(osName, "osName");
    Objects.requireNonNull(osArch, "osArch");
  }

  /** The environment of this JVM. */
  public static RunEnvironment current(boolean virtualThreads) {
    return new RunEnvironment(System.getProperty("java.version", "?"),
        System.getProperty("java.vm.vendor", "?") + " " + System.getProperty("java.vm.name", ""),
        System.getProperty("os.name", "?") + " " + System.getProperty("os.version", ""),
        System.getProperty("os.arch", "?"), Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory(), virtualThreads);
  }

  @Override
  public String toString() {
    return "Java " + javaVersion + " (" + javaVendor.strip() + "), " + osName.strip() + " " + osArch + ", "
        + availableProcessors + " CPUs, " + (maxHeapBytes >> 20) + " MiB heap"
        + (virtualThreads ? ", virtual threads" : ", platform threads");
  }
}
