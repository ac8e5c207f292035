package io.infermark.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.Benchmark;
import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.core.workload.Dataset;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * infermark's client in its own JVM against a server in another process, measured the way
 * {@code scripts/compare-vllm-client.sh} measures vLLM's benchmark client on the same machine, so
 * the two can be compared: streamed tokens per second, the client process's CPU per streamed
 * token, and the TTFT the client adds to what the server did.
 *
 * <p>It sends every row of a JSONL prompt file once, or the first {@code --requests} (a {@link Dataset}:
 * {@code "prompt"} and {@code "output_tokens"}, asked for with {@code max_tokens} and {@code ignore_eos}) in a closed
 * loop of {@code --concurrency} streams, after a warm-up of {@code --warmup} requests off the clock
 * (JIT and connections). The warm-up is the start of the same run: the measured requests follow it in
 * the streams it leaves behind, so the measured window is the loop's steady state, not the burst of
 * {@code --concurrency} requests sent at once when a run starts (with {@code --separate-warmup true} the
 * warm-up is a run of its own and the measured run starts with that burst, as vLLM's client does).
 * Process CPU is read from the {@code OperatingSystemMXBean} from the first measured send to the end of
 * the run, and also for the whole process (JVM start-up and warm-up included); the token rate counts every
 * token read in that window.
 *
 * <p>Client-added TTFT needs the server's ground truth: when the server is infermark's simulator,
 * its {@code GET /simulator/timelines?since=N} is read after the run and each request is joined by
 * its {@code X-Request-Id}: client TTFT (send → first token read) minus the simulator's TTFT
 * (request arrival → first token handed to the socket). The difference is everything the client
 * and the two kernels add: building and writing the request, the server reading it, and the client
 * noticing and parsing the first chunk. Its two halves are printed beside it, on the shared monotonic
 * clock of one Linux machine: the send side (the server's arrival stamp, when the read that completed the
 * request returned, minus the client's send time) and the read side (the client's first-token read minus
 * the server's write).
 *
 * <p>Run: {@code java -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.PeerRun
 * --url http://127.0.0.1:8000/v1 --model infermark-sim --prompts prompts.jsonl --concurrency 64
 * [--warmup 64] [--separate-warmup false] [--requests N] [--sim-since N] [--dump FILE]} ({@code --dump} writes one
 * CSV row per joined request: its send, the simulator's arrival and first write, the client's first read, all
 * on the one monotonic clock, and its schedule lag: in a closed loop, the time from the stream's previous
 * request ending to this one's send). It prints {@code MEASURE start} and {@code MEASURE end}
 * around the measured run (so a script can read CPU counters from {@code /proc} at the same moments) and ends
 * with one {@code RESULT key=value ...} line for scripts. With {@code -Dinfermark.transport=netty-h2c} it speaks
 * h2c (HTTP/2 with prior knowledge) to the simulator started with {@code --protocol h2c}, and reads the
 * simulator's timelines over h2c too (on a transport of its own, outside the measured run).
 */
public final class PeerRun {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** The JVM's thread bean, looked up once: its lookup costs more than the reading it serves, at every send. */
  private static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final java.util.regex.Pattern POOL_SUFFIX = java.util.regex.Pattern.compile("-\\d+$");
  /** Each sender thread's key, made once per thread rather than at every send (they are in the measured window). */
  private static final ThreadLocal<String> THREAD_KEY = ThreadLocal.withInitial(
      () -> threadKey(Thread.currentThread().getId(), Thread.currentThread().getName()));

  private PeerRun() {}

  /**
   * Runs the benchmark described by the arguments and prints the figures.
   *
   * @param args {@code --option value} pairs, see the class description
   * @throws Exception if the prompt file cannot be read or the run fails
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = options(args);
    String url = required(a, "--url");
    String model = a.getOrDefault("--model", "infermark-sim");
    Path prompts = Path.of(required(a, "--prompts"));
    int concurrency = Integer.parseInt(a.getOrDefault("--concurrency", "64"));
    int warmup = Integer.parseInt(a.getOrDefault("--warmup", Integer.toString(concurrency)));
    long since = Long.parseLong(a.getOrDefault("--sim-since", "-1"));
    boolean separateWarmup = Boolean.parseBoolean(a.getOrDefault("--separate-warmup", "false"));

    Dataset dataset = Dataset.jsonl(prompts);
    int rows;
    try (var lines = Files.lines(prompts)) {
      rows = (int) lines.filter(l -> !l.isBlank()).count();
    }
    int requests = Integer.parseInt(a.getOrDefault("--requests", Integer.toString(rows)));
    GenerationParams params = GenerationParams.builder().ignoreEos(true).temperature(0.0).build();
    // Idle connections are kept 15 s so the warm-up's connections carry into the measured run: with the
    // library's 4 s (below uvicorn's 5 s) the streams that finished the warm-up first reconnect at the measured
    // run's start, and those connects (50-100 ms through the simulator's accept path on a loaded machine), not
    // the client's steady state, fill the tail of client-added TTFT. (vLLM's client opens a new aiohttp
    // session, so a new connection, for every request; its figures include that.)
    try (OpenAiTarget target = Transports.apply(OpenAiTarget.chat(url, model), Transports.chosen(),
        java.time.Duration.ofSeconds(15)).build()) {
      Benchmark bench = Benchmark.target(target).workload(dataset).params(params);
      if (since < 0) {
        since = nextSequence(url);
      }
      // The measured window starts when the first measured request is handed to the transport, so the
      // CPU read at the marker leaves out start-up, JIT compilation of the warm-up and the warm-up itself.
      long[] cpu0 = {0};
      Map<String, Long> alloc0 = new java.util.concurrent.ConcurrentHashMap<>();
      Map<String, Long> senderFirst = new java.util.concurrent.ConcurrentHashMap<>();
      Map<String, Long> senderLast = new java.util.concurrent.ConcurrentHashMap<>();
      long[] wall0 = {0};
      int warmedUp = separateWarmup ? 0 : warmup;
      RunListener marker = new RunListener() {
        private int sent;

        @Override
        public InferenceRequest beforeSend(InferenceRequest request) {
          if (sent++ == warmedUp) {
            // Markers for a script that reads this process's and the server's CPU from /proc around the run.
            System.out.println("MEASURE start");
            System.out.flush();
            cpu0[0] = processCpuNanos();
            alloc0.putAll(allocatedBytes());
            wall0[0] = System.nanoTime();
          }
          if (sent > warmedUp) {
            // The run's sender threads end with the run, so their allocation is read here, on them, at every send.
            long now = currentThreadAllocatedBytes();
            String thread = THREAD_KEY.get();
            senderFirst.putIfAbsent(thread, now);
            senderLast.put(thread, now);
          }
          return request;
        }
      };
      if (separateWarmup && warmup > 0) {
        bench.load(LoadProfile.concurrency(Math.min(concurrency, warmup)).requests(warmup)).run();
      }
      RunResult run = bench.listener(marker)
          .load(LoadProfile.concurrency(concurrency).warmupRequests(warmedUp).requests(requests)).run();
      long wall = System.nanoTime() - wall0[0];
      long cpu = processCpuNanos() - cpu0[0];
      Map<String, Long> alloc1 = allocatedBytes();
      System.out.println("MEASURE end");
      System.out.flush();
      System.out.println("client health: " + run.clientHealth());
      run.clientHealth().measurements().ifPresent(m -> System.out.println("client measurements: " + m));
      long totalCpu = processCpuNanos();

      long tokens = 0;
      int ok = 0;
      long firstSend = Long.MAX_VALUE;
      long lastEnd = Long.MIN_VALUE;
      for (RequestRecord r : run.measured()) {
        if (r.succeeded()) {
          ok++;
          tokens += r.streamedTokens();
        }
        firstSend = Math.min(firstSend, r.sendNanos());
        lastEnd = Math.max(lastEnd, r.sendNanos() + r.endOffsetNanos());
      }
      double seconds = Math.max(1, lastEnd - firstSend) / 1e9;
      // Warm-up streams still run when the first measured request goes out: the rate counts every token read
      // in the window, whichever request carried it.
      long inWindow = 0;
      for (RequestRecord r : run.records()) {
        ChunkTimeline.Cursor c = r.chunks().cursor();
        while (c.next()) {
          long at = r.sendNanos() + c.offsetNanos();
          if (c.kind().isTokenBearing() && at >= firstSend && at <= lastEnd) {
            inWindow += c.tokens() == ChunkTimeline.UNKNOWN_TOKENS ? 1 : c.tokens();
          }
        }
      }
      double tps = inWindow / seconds;
      System.out.printf(Locale.ROOT, "infermark client: %d requests (%d ok) at concurrency %d, %d streamed tokens; "
          + "%d tokens read in the %.2f s from the first measured send to the last end = %.0f tokens/s%n",
          run.measured().size(), ok, concurrency, tokens, inWindow, seconds, tps);
      // Heap allocation by thread over the same window: the threads alive at both ends, and the run's sender
      // threads up to their last send (they end with the run); other threads that ended meanwhile are left out.
      Map<String, Long> allocated = new java.util.TreeMap<>();
      alloc1.forEach((thread, bytes) -> {
        long d = bytes - alloc0.getOrDefault(thread, 0L);
        if (d > 0) {
          allocated.merge(thread.substring(thread.indexOf(' ') + 1), d, Long::sum);
        }
      });
      senderLast.forEach((thread, bytes) -> {
        if (!alloc1.containsKey(thread)) { // ended with the run: its last reading at a send stands in
          allocated.merge(thread.substring(thread.indexOf(' ') + 1), bytes - senderFirst.get(thread), Long::sum);
        }
      });
      long allocatedTotal = allocated.values().stream().mapToLong(Long::longValue).sum();
      StringBuilder byThread = new StringBuilder();
      long perTokenOf = Math.max(1, inWindow);
      allocated.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(4)
          .forEach(e -> byThread.append(String.format(Locale.ROOT, ", %s %.0f", e.getKey(),
              (double) e.getValue() / perTokenOf)));
      System.out.printf(Locale.ROOT, "client heap allocation: %.1f MB in the run = %.0f bytes per streamed token (by "
          + "thread, bytes per token%s)%n", allocatedTotal / 1e6, (double) allocatedTotal / Math.max(1, inWindow),
          byThread);
      System.out.printf(Locale.ROOT, "client CPU: %.2f s in the run (%.1f%% of one core) = %.2f us per streamed "
          + "token; whole process %.2f s (JVM start-up and warm-up included) = %.2f us per token%n",
          cpu / 1e9, 100.0 * cpu / wall, cpu / 1e3 / Math.max(1, inWindow), totalCpu / 1e9,
          totalCpu / 1e3 / Math.max(1, tokens));

      double[] clientTtft = new double[run.measured().size()];
      double[] added = new double[clientTtft.length];
      double[] readSide = new double[clientTtft.length];
      double[] sendSide = new double[clientTtft.length];
      double[] sendSideNew = new double[clientTtft.length];
      int fresh = 0;
      double[] serverTtft = new double[clientTtft.length];
      int c = 0;
      int joined = 0;
      Map<String, JsonNode> truth = timelines(url, since);
      java.io.PrintWriter dump = a.containsKey("--dump")
          ? new java.io.PrintWriter(Files.newBufferedWriter(Path.of(a.get("--dump")))) : null;
      if (dump != null) {
        dump.println("request_id,client_send_nanos,server_arrival_nanos,server_first_write_nanos,"
            + "client_first_read_nanos,connection_reused,schedule_lag_nanos");
      }
      for (RequestRecord r : run.measured()) {
        if (!r.succeeded() || r.chunks().firstTokenOffsetNanos().isEmpty()) {
          continue;
        }
        double client = r.chunks().firstTokenOffsetNanos().getAsLong() / 1e6;
        clientTtft[c++] = client;
        JsonNode t = truth.get(r.requestId());
        if (t != null && t.has("first_token_ms")) {
          serverTtft[joined] = t.get("first_token_ms").asDouble();
          added[joined] = client - serverTtft[joined];
          long clientFirst = run.originNanos() + r.sendNanos() + r.chunks().firstTokenOffsetNanos().getAsLong();
          readSide[joined] = (clientFirst - t.get("first_token_nanos").asLong()) / 1e6;
          sendSide[joined] = (t.get("arrival_nanos").asLong() - (run.originNanos() + r.sendNanos())) / 1e6;
          if (!r.phases().connectionReused()) {
            sendSideNew[fresh++] = sendSide[joined];
          }
          if (dump != null) {
            dump.printf(Locale.ROOT, "%s,%d,%d,%d,%d,%b,%d%n", r.requestId(), run.originNanos() + r.sendNanos(),
                t.get("arrival_nanos").asLong(), t.get("first_token_nanos").asLong(), clientFirst,
                r.phases().connectionReused(), r.scheduleLagNanos());
          }
          joined++;
        }
      }
      if (dump != null) {
        dump.close();
      }
      clientTtft = Arrays.copyOf(clientTtft, c);
      print("client TTFT (ms)", clientTtft);
      StringBuilder result = new StringBuilder("RESULT client=infermark")
          .append(" concurrency=").append(concurrency)
          .append(" requests=").append(run.measured().size())
          .append(" ok=").append(ok)
          .append(" tokens=").append(tokens)
          .append(String.format(Locale.ROOT, " seconds=%.3f tps=%.1f cpu_s=%.3f cpu_us_per_token=%.3f"
              + " process_cpu_s=%.3f", seconds, tps, cpu / 1e9, cpu / 1e3 / Math.max(1, inWindow), totalCpu / 1e9))
          .append(quantiles(" ttft", clientTtft));
      if (joined > 0) {
        System.out.printf(Locale.ROOT, "joined %d of %d requests to the simulator's timelines by X-Request-Id%n",
            joined, c);
        print("simulator TTFT, arrival -> first write (ms)", Arrays.copyOf(serverTtft, joined));
        print("client-added TTFT, client - simulator (ms)", Arrays.copyOf(added, joined));
        print("read-side, client first token - server write (ms)", Arrays.copyOf(readSide, joined));
        print("send-side, server arrival - client send (ms)", Arrays.copyOf(sendSide, joined));
        if (fresh > 0) {
          print("  of which on a new connection (ms)", Arrays.copyOf(sendSideNew, fresh));
        }
        result.append(" joined=").append(joined)
            .append(quantiles(" sim_ttft", Arrays.copyOf(serverTtft, joined)))
            .append(quantiles(" added_ttft", Arrays.copyOf(added, joined)))
            .append(quantiles(" read_side", Arrays.copyOf(readSide, joined)))
            .append(quantiles(" send_side", Arrays.copyOf(sendSide, joined)));
      } else {
        System.out.println("no simulator timelines joined: the server is not infermark's simulator, or it kept none");
        result.append(" joined=0");
      }
      System.out.println(result);
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --option value pairs, got '" + args[i]
            + "'; see PeerRun's Javadoc");
      }
      m.put(args[i], args[++i]);
    }
    return m;
  }

  private static String required(Map<String, String> a, String name) {
    String v = a.get(name);
    if (v == null) {
      throw new IllegalArgumentException(name + " is required; see PeerRun's Javadoc");
    }
    return v;
  }

  private static String simulatorBase(String url) {
    return url.endsWith("/v1") ? url.substring(0, url.length() - 3) : url;
  }

  /** The sequence number the simulator gives its next request; -1 when the server is not the simulator. */
  private static long nextSequence(String url) {
    JsonNode list = get(simulatorBase(url) + "/simulator/timelines?since=" + Long.MAX_VALUE);
    return list == null ? -1 : list.path("next_sequence").asLong(-1);
  }

  /** The simulator's timelines of requests from sequence {@code since} on, by request id; empty if none. */
  private static Map<String, JsonNode> timelines(String url, long since) {
    Map<String, JsonNode> byId = new HashMap<>();
    if (since < 0) {
      return byId;
    }
    JsonNode list = get(simulatorBase(url) + "/simulator/timelines?since=" + since);
    if (list != null) {
      for (JsonNode t : list.path("timelines")) {
        byId.put(t.path("request_id").asText(), t);
      }
    }
    return byId;
  }

  private static JsonNode get(String url) {
    if (Transports.simulatorProtocol(Transports.chosen())
        == io.infermark.testkit.simulator.SimulatorProtocol.H2C) {
      return getH2c(url); // the h2c simulator speaks only HTTP/2, which HttpURLConnection cannot
    }
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
      c.setConnectTimeout(5_000);
      c.setReadTimeout(60_000);
      if (c.getResponseCode() != 200) {
        return null;
      }
      try (InputStream in = c.getInputStream()) {
        return JSON.readTree(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + url, e);
    }
  }

  /**
   * GET over h2c with prior knowledge, on a transport of its own (not the measured one, so its records and
   * connections stay out of the run); null unless the answer is 200.
   */
  private static JsonNode getH2c(String url) {
    var transport = io.infermark.core.transport.netty.NettyTransport.builder()
        .httpVersion(io.infermark.core.transport.netty.HttpVersionPolicy.HTTP_2).build();
    try {
      java.util.concurrent.CompletableFuture<byte[]> body = new java.util.concurrent.CompletableFuture<>();
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      transport.start(new io.infermark.core.transport.OutboundRequest("GET", URI.create(url), java.util.List.of(),
          new byte[0], "application/json", io.infermark.core.transport.Timeouts.DEFAULT),
          new io.infermark.core.transport.ResponseHandler() {
            @Override
            public io.infermark.core.time.Clock clock() {
              return io.infermark.core.time.Clock.system();
            }

            @Override
            public void onSend(long nanoTime) {}

            @Override
            public void onPhase(io.infermark.core.capture.Phase phase, long nanoTime) {}

            @Override
            public io.infermark.core.transport.BodyConsumer onResponse(int status,
                io.infermark.core.transport.ResponseHead head, long nanoTime) {
              return new io.infermark.core.transport.BodyConsumer() {
                @Override
                public boolean onBytes(byte[] b, int offset, int length, long at) {
                  bytes.write(b, offset, length);
                  return false; // not done: read to the end of the body
                }

                @Override
                public void onEnd(long at) {
                  body.complete(status == 200 ? bytes.toByteArray() : null);
                }
              };
            }

            @Override
            public void onFailure(io.infermark.core.capture.Failure failure, long nanoTime) {
              body.completeExceptionally(new IOException("cannot read " + url + ": " + failure));
            }
          }, new io.infermark.core.transport.Cancellation());
      byte[] b = body.get(60, java.util.concurrent.TimeUnit.SECONDS);
      return b == null ? null : JSON.readTree(b);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + url + " over h2c", e);
    } finally {
      transport.close();
    }
  }

  private static String quantiles(String prefix, double[] values) {
    if (values.length == 0) {
      return "";
    }
    double[] v = values.clone();
    Arrays.sort(v);
    QuantileMethod q = QuantileMethod.LINEAR;
    return String.format(Locale.ROOT, "%s_p50=%.3f%s_p90=%.3f%s_p99=%.3f%s_max=%.3f", prefix, q.quantile(v, 0.5),
        prefix, q.quantile(v, 0.9), prefix, q.quantile(v, 0.99), prefix, v[v.length - 1]);
  }

  private static void print(String name, double[] values) {
    if (values.length == 0) {
      System.out.println(name + ": no values");
      return;
    }
    double[] v = values.clone();
    Arrays.sort(v);
    QuantileMethod q = QuantileMethod.LINEAR;
    System.out.printf(Locale.ROOT, "%-52s n=%-6d p50 %8.3f  p90 %8.3f  p99 %8.3f  max %8.3f%n", name, v.length,
        q.quantile(v, 0.5), q.quantile(v, 0.9), q.quantile(v, 0.99), v[v.length - 1]);
  }

  /** "id name" with a trailing "-N" cut from the name, so the threads of one pool add up under one name. */
  private static String threadKey(long id, String name) {
    return id + " " + POOL_SUFFIX.matcher(name).replaceAll("");
  }

  private static long currentThreadAllocatedBytes() {
    return THREADS instanceof com.sun.management.ThreadMXBean t
        && t.isThreadAllocatedMemorySupported() && t.isThreadAllocatedMemoryEnabled()
        ? t.getThreadAllocatedBytes(Thread.currentThread().getId()) : 0;
  }

  /** Bytes each live thread has allocated on the heap so far, keyed by "id name"; empty where not reported. */
  private static Map<String, Long> allocatedBytes() {
    Map<String, Long> m = new HashMap<>();
    if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
        && t.isThreadAllocatedMemorySupported() && t.isThreadAllocatedMemoryEnabled()) {
      long[] ids = t.getAllThreadIds();
      long[] bytes = t.getThreadAllocatedBytes(ids);
      java.lang.management.ThreadInfo[] infos = t.getThreadInfo(ids);
      for (int i = 0; i < ids.length; i++) {
        if (bytes[i] >= 0 && infos[i] != null) {
          m.put(threadKey(ids[i], infos[i].getThreadName()), bytes[i]);
        }
      }
    }
    return m;
  }

  private static long processCpuNanos() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime();
    }
    return 0;
  }
}
