package io.infermark.benchmarks;

import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.BodyConsumer;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.ResponseHandler;
import io.infermark.core.transport.ResponseHead;
import io.infermark.core.transport.Timeouts;
import io.infermark.core.transport.netty.NettyTransport;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What the event-loop transport alone costs per streamed chunk: a closed loop of {@code streams}
 * chat-completion streams through {@link NettyTransport} against a standalone simulator in another
 * process, with a handler that only counts SSE events (no JSON decoding, no records), so the CPU
 * measured is the transport's: socket reads, HTTP decoding, the copy to the consumer, stamping,
 * timers and the keep-alive pool.
 *
 * <p>Start the simulator first, e.g. {@code java -jar testkit/target/infermark-simulator.jar --port 8000
 * --profile fixed --ttft-ms 25 --itl-ms 10 --output-tokens 256 --max-concurrency 4096}, then run
 * {@code java -cp <core and netty classpath> io.infermark.benchmarks.TransportCapacity
 * [url=http://127.0.0.1:8000] [streams=256] [ioThreads=1,2] [seconds=20] [warmupSeconds=10]
 * [maxTokens=256] [native=true]}. For each I/O thread count it prints events per second, the
 * process CPU per event (everything in the client JVM: I/O threads, JIT, GC) and the I/O threads'
 * own CPU per event, and the load average around the measurement. A measurement, not a test.
 */
public final class TransportCapacity {

  private TransportCapacity() {}

  /** Runs one measurement per I/O thread count. */
  public static void main(String[] args) throws Exception {
    String url = arg(args, 0, "http://127.0.0.1:8000");
    int[] streamLevels = ints(arg(args, 1, "256"));
    int[] threadLevels = ints(arg(args, 2, "1,2"));
    int seconds = Integer.parseInt(arg(args, 3, "20"));
    int warmup = Integer.parseInt(arg(args, 4, "10"));
    int maxTokens = Integer.parseInt(arg(args, 5, "256"));
    boolean nativeTransport = Boolean.parseBoolean(arg(args, 6, "true"));
    System.out.printf(Locale.ROOT, "%s, %d s after %d s warm-up, max_tokens %d, %d cores, Java %s%n", url, seconds,
        warmup, maxTokens, Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
    for (int streams : streamLevels) {
      for (int threads : threadLevels) {
        level(url, streams, threads, seconds, warmup, maxTokens, nativeTransport);
      }
    }
  }

  private static void level(String url, int streams, int threads, int seconds, int warmup, int maxTokens,
      boolean nativeTransport) throws Exception {
    byte[] body = ("{\"model\":\"infermark-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"Tell me a long story.\"}],"
        + "\"max_tokens\":" + maxTokens + ",\"stream\":true,\"ignore_eos\":true}").getBytes(StandardCharsets.UTF_8);
    OutboundRequest request = new OutboundRequest("POST", URI.create(url + "/v1/chat/completions"), List.of(), body,
        "application/json", Timeouts.DEFAULT);
    AtomicLong events = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    AtomicLong completed = new AtomicLong();
    try (NettyTransport transport = NettyTransport.builder().ioThreads(threads).nativeTransport(nativeTransport)
        .build()) {
      transport.prepare(streams);
      boolean[] stop = {false};
      for (int s = 0; s < streams; s++) {
        new Stream(transport, request, events, failures, completed, stop).next();
      }
      LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(warmup));
      String loadBefore = loadAverage();
      long cpu0 = processCpuNanos();
      long[] ticks0 = userAndKernelTicks();
      long io0 = ioThreadCpuNanos();
      long alloc0 = ioThreadAllocatedBytes();
      long events0 = events.get();
      long wall0 = System.nanoTime();
      LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(seconds));
      long cpu1 = processCpuNanos();
      long[] ticks1 = userAndKernelTicks();
      long io1 = ioThreadCpuNanos();
      long alloc1 = ioThreadAllocatedBytes();
      long events1 = events.get();
      long wall1 = System.nanoTime();
      String loadAfter = loadAverage();
      synchronized (stop) {
        stop[0] = true;
      }
      long n = events1 - events0;
      double wallS = (wall1 - wall0) / 1e9;
      long user = ticks1[0] - ticks0[0];
      long kernel = ticks1[1] - ticks0[1];
      System.out.printf(Locale.ROOT, "%s streams=%d ioThreads=%d: %.0f events/s, process CPU %.2f µs/event "
              + "(%.0f%% of a core, %.0f%% in the kernel), I/O threads %.2f µs/event and %.0f B/event allocated, "
              + "%d requests completed, "
              + "%d failed; load %s -> %s%n",
          transport.name(), streams, threads, n / wallS, (cpu1 - cpu0) / 1e3 / n, 100.0 * (cpu1 - cpu0) / (wall1 - wall0),
          user + kernel == 0 ? 0.0 : 100.0 * kernel / (user + kernel), (io1 - io0) / 1e3 / n, (double) (alloc1 - alloc0) / n, completed.get(),
          failures.get(), loadBefore, loadAfter);
    }
  }

  /** One stream of the closed loop: counts SSE events and starts the next request at the end of each. */
  private static final class Stream implements ResponseHandler, BodyConsumer {
    private final NettyTransport transport;
    private final OutboundRequest request;
    private final AtomicLong events;
    private final AtomicLong failures;
    private final AtomicLong completed;
    private final boolean[] stop;
    private byte previous;

    Stream(NettyTransport transport, OutboundRequest request, AtomicLong events, AtomicLong failures,
        AtomicLong completed, boolean[] stop) {
      this.transport = transport;
      this.request = request;
      this.events = events;
      this.failures = failures;
      this.completed = completed;
      this.stop = stop;
    }

    void next() {
      synchronized (stop) {
        if (stop[0]) {
          return;
        }
      }
      previous = 0;
      transport.start(request, this, new Cancellation());
    }

    @Override
    public Clock clock() {
      return Clock.system();
    }

    @Override
    public void onSend(long nanoTime) {}

    @Override
    public void onPhase(Phase phase, long nanoTime) {}

    @Override
    public BodyConsumer onResponse(int status, ResponseHead head, long nanoTime) {
      return this;
    }

    @Override
    public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
      int n = 0;
      byte prev = previous;
      for (int i = offset, end = offset + length; i < end; i++) {
        byte b = bytes[i];
        if (b == '\n' && prev == '\n') {
          n++;
        }
        prev = b;
      }
      previous = prev;
      events.addAndGet(n);
      return false;
    }

    @Override
    public void onEnd(long nanoTime) {
      completed.incrementAndGet();
      next();
    }

    @Override
    public void onFailure(Failure failure, long nanoTime) {
      failures.incrementAndGet();
      next();
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static long ioThreadCpuNanos() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("infermark-io-")) {
        sum += Math.max(0, mx.getThreadCpuTime(info.getThreadId()));
      }
    }
    return sum;
  }

  private static long ioThreadAllocatedBytes() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    if (!(mx instanceof com.sun.management.ThreadMXBean sun)) {
      return 0;
    }
    long sum = 0;
    for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("infermark-io-")) {
        sum += Math.max(0, sun.getThreadAllocatedBytes(info.getThreadId()));
      }
    }
    return sum;
  }

  /** utime and stime of this process in clock ticks (Linux), zeros elsewhere. */
  private static long[] userAndKernelTicks() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
    } catch (Exception e) {
      return new long[] {0, 0};
    }
  }

  private static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return parts[0] + "/" + parts[1] + "/" + parts[2];
    } catch (Exception e) {
      return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }

  private static String arg(String[] args, int i, String dflt) {
    return args.length > i ? args[i] : dflt;
  }

  private static int[] ints(String csv) {
    return Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
  }
}
