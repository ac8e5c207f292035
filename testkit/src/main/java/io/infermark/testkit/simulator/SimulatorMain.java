package io.infermark.testkit.simulator;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the simulator on its own, so any tool (curl, vLLM's {@code bench serve}, GuideLLM, a
 * Prometheus scraper) can be pointed at it:
 * <pre>
 *   java -jar testkit/target/infermark-simulator.jar --port 8000 --profile llama-8b-h200
 *   java -cp testkit.jar:core.jar:... io.infermark.testkit.simulator.SimulatorMain --help
 * </pre>
 * It serves until the process is stopped (Ctrl-C closes it cleanly). See {@link #USAGE} for every
 * option; each profile parameter can be overridden.
 */
public final class SimulatorMain {

  /** The help text. */
  public static final String USAGE = String.join("\n",
      "usage: infermark-simulator [options]",
      "  --port N                 TCP port (default 8000; 0 = ephemeral)",
      "  --host IP                address to bind (default 127.0.0.1; 0.0.0.0 for every interface)",
      "  --profile NAME           " + String.join(" | ", EngineProfile.NAMES) + " | fixed (default llama-8b-h200)",
      "  --model NAME             served model name (default " + SimulatorConfig.DEFAULT_MODEL + ")",
      "  --seed N                 seed of text, lengths and faults (default 0)",
      "  --output-tokens N|A..B   natural output length, fixed or uniform in [A, B] (default 64)",
      "  --tokens-per-chunk N     tokens per streamed chunk (default 1)",
      "  --reasoning-tokens N     leading reasoning tokens of chat responses (default 0)",
      "  --max-model-len N        context length; prompt + max_tokens beyond it is a 400 (default 131072)",
      "  --timeline-retention N   finished timelines kept for /simulator/timelines (default 100000)",
      "  --protocol P             http1 (default) | h2c: cleartext HTTP/2 with prior knowledge, which also serves",
      "                           gRPC inference.GRPCInferenceService/ModelStreamInfer | h2: TLS with a self-signed",
      "                           certificate (clients: --insecure), ALPN h2 or http/1.1, gRPC on h2",
      " fixed profile only:",
      "  --ttft-ms X  --itl-ms X  --max-concurrency N",
      " engine profile overrides (costs in ms):",
      "  --step-overhead-ms X  --decode-base-ms X  --decode-per-seq-ms X  --decode-per-context-token-ms X",
      "  --prefill-base-ms X  --prefill-per-token-ms X  --prefill-quadratic-ms X",
      "  --max-running-seqs N  --max-batched-tokens N  --kv-blocks N  --block-size N  --no-prefix-caching",
      "  --swap-preemption-ms X   preempt by swapping KV to host memory, X ms per block each way",
      "                           (vLLM V0's preemption_mode=swap; default recompute, as vLLM V1)",
      " cold start (any profile; /health answers 503 while the weights load):",
      "  --cold-start-ms X        loading the model takes X ms (> 0); default: always loaded",
      "  --cold-start-on WHEN     start (load as the simulator starts, as vLLM; default) |",
      "                           first-request (load when a request finds the model unloaded, as Ollama)",
      "  --scale-to-zero-ms X     unload after X ms (> 0) with no request in the engine; the next loads again",
      " faults (repeatable; PROB is a per-request probability):",
      "  --fault server-error:PROB          --fault rate-limited:PROB:RETRY_AFTER_MS",
      "  --fault unavailable:PROB:RETRY_AFTER_MS  --fault slowdown:PROB:MULTIPLIER:MAX_JITTER_MS[:FLOOR_MS]",
      "                                   (floor: no slowed write sooner after arrival; default 100)",
      "  --fault stall:PROB:AFTER_TOKENS:PAUSE_MS  --fault disconnect:PROB:AFTER_TOKENS",
      "  --fault malformed-chunk:PROB:AFTER_TOKENS  --fault slow-headers:PROB:DELAY_MS",
      "  --fault stream-error:PROB:AFTER_TOKENS",
      "endpoints: POST /v1/chat/completions, POST /v1/completions, GET /v1/models, GET /health,",
      "           GET /metrics (Prometheus), GET /simulator/timelines[/{request id}]");

  private SimulatorMain() {}

  /** Starts a simulator from the command line and serves until the JVM is stopped. */
  public static void main(String[] args) throws InterruptedException {
    PrintStream out = System.out;
    SimulatorConfig config;
    SimulatorProtocol protocol = SimulatorProtocol.HTTP_1_1;
    try {
      if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
        out.println(USAGE);
        return;
      }
      java.util.List<String> rest = new java.util.ArrayList<>(java.util.List.of(args));
      int at = rest.indexOf("--protocol");
      if (at >= 0) {
        if (at + 1 >= rest.size()) {
          throw new IllegalArgumentException("--protocol needs a value: http1, h2c or h2");
        }
        protocol = switch (rest.get(at + 1)) {
          case "http1" -> SimulatorProtocol.HTTP_1_1;
          case "h2c" -> SimulatorProtocol.H2C;
          case "h2" -> SimulatorProtocol.H2;
          default -> throw new IllegalArgumentException("--protocol must be http1, h2c or h2, was "
              + rest.get(at + 1));
        };
        rest.subList(at, at + 2).clear();
      }
      config = parse(rest.toArray(new String[0]));
    } catch (IllegalArgumentException e) {
      System.err.println("infermark-simulator: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    Simulator sim = Simulator.start(config, protocol);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      sim.close();
      stopped.countDown();
    }, "infermark-sim-shutdown"));
    out.println("infermark simulator serving " + sim.baseUrl() + "/v1 (" + config + ")");
    stopped.await();
  }

  /**
   * The configuration the arguments describe.
   *
   * @throws IllegalArgumentException naming the bad option and value
   */
  public static SimulatorConfig parse(String... args) {
    SimulatorConfig.Builder b = SimulatorConfig.builder().port(8000);
    EngineProfile.Builder engine = EngineProfile.llama8bH200().toBuilder();
    boolean fixed = false;
    Duration coldStartLoad = null;
    String coldStartOn = null;
    Duration scaleToZero = null;
    Double swapMsPerBlock = null;
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (option.equals("--no-prefix-caching")) {
        engine.prefixCaching(false);
        continue;
      }
      if (i + 1 >= args.length) {
        // the last argument: a known option lacks its value, anything else is not an option at all
        throw new IllegalArgumentException(listed(option) ? option + " needs a value" : unknown(option));
      }
      String v = args[++i];
      switch (option) {
        case "--port" -> b.port(integer(option, v));
        case "--host" -> b.host(v);
        case "--profile" -> {
          fixed = v.equals("fixed");
          if (!fixed) {
            engine = EngineProfile.named(v).toBuilder();
          }
        }
        case "--model" -> b.model(v);
        case "--seed" -> b.seed(longValue(option, v));
        case "--output-tokens" -> {
          int dots = v.indexOf("..");
          if (dots < 0) {
            b.defaultOutputTokens(integer(option, v));
          } else {
            b.outputTokensBetween(integer(option, v.substring(0, dots)), integer(option, v.substring(dots + 2)));
          }
        }
        case "--tokens-per-chunk" -> b.tokensPerChunk(integer(option, v));
        case "--reasoning-tokens" -> b.reasoningTokens(integer(option, v));
        case "--max-model-len" -> b.maxModelLength(integer(option, v));
        case "--timeline-retention" -> b.timelineRetention(integer(option, v));
        case "--ttft-ms" -> b.timeToFirstToken(millis(option, v));
        case "--itl-ms" -> b.interTokenInterval(millis(option, v));
        case "--max-concurrency" -> b.maxConcurrency(integer(option, v));
        case "--step-overhead-ms" -> engine.stepOverheadMs(decimal(option, v));
        case "--decode-base-ms" -> engine.decodeBaseMs(decimal(option, v));
        case "--decode-per-seq-ms" -> engine.decodePerSequenceMs(decimal(option, v));
        case "--decode-per-context-token-ms" -> engine.decodePerContextTokenMs(decimal(option, v));
        case "--prefill-base-ms" -> engine.prefillBaseMs(decimal(option, v));
        case "--prefill-per-token-ms" -> engine.prefillPerTokenMs(decimal(option, v));
        case "--prefill-quadratic-ms" -> engine.prefillQuadraticMs(decimal(option, v));
        case "--max-running-seqs" -> engine.maxRunningSequences(integer(option, v));
        case "--max-batched-tokens" -> engine.maxBatchedTokens(integer(option, v));
        case "--kv-blocks" -> engine.kvCacheBlocks(integer(option, v));
        case "--block-size" -> engine.blockSize(integer(option, v));
        case "--swap-preemption-ms" -> {
          double ms = decimal(option, v);
          if (!(ms > 0) || Double.isInfinite(ms)) {
            throw new IllegalArgumentException(option + " needs a number of ms per block > 0, was '" + v + "'");
          }
          swapMsPerBlock = ms;
        }
        case "--cold-start-ms" -> coldStartLoad = positiveMillis(option, v);
        case "--cold-start-on" -> {
          if (!v.equals("start") && !v.equals("first-request")) {
            throw new IllegalArgumentException(option + " needs start or first-request, was '" + v + "'");
          }
          coldStartOn = v;
        }
        case "--scale-to-zero-ms" -> scaleToZero = positiveMillis(option, v);
        case "--fault" -> fault(b, v);
        default -> throw new IllegalArgumentException(unknown(option));
      }
    }
    if (swapMsPerBlock != null) {
      if (fixed) {
        throw new IllegalArgumentException("--swap-preemption-ms needs an engine profile; the fixed profile has no "
            + "KV cache to preempt");
      }
      engine.swapPreemption(swapMsPerBlock);
    }
    if (coldStartLoad == null && (coldStartOn != null || scaleToZero != null)) {
      throw new IllegalArgumentException((coldStartOn != null ? "--cold-start-on" : "--scale-to-zero-ms")
          + " needs --cold-start-ms (the load time)");
    }
    if (coldStartLoad != null) {
      ColdStart cold = "first-request".equals(coldStartOn) ? ColdStart.onFirstRequest(coldStartLoad)
          : ColdStart.atStart(coldStartLoad);
      b.coldStart(scaleToZero == null ? cold : cold.scaleToZeroAfter(scaleToZero));
    }
    if (!fixed) {
      b.engine(engine.build());
    }
    return b.build();
  }

  private static String unknown(String option) {
    return "unknown option " + option + " (--help lists the options)";
  }

  /** Whether the help text lists the option. */
  private static boolean listed(String option) {
    return java.util.regex.Pattern.compile("(?<=\\s)" + java.util.regex.Pattern.quote(option) + "(?=\\s)")
        .matcher(USAGE).find();
  }

  private static void fault(SimulatorConfig.Builder b, String spec) {
    String[] p = spec.split(":");
    String kind = p[0].toLowerCase(Locale.ROOT);
    int need = switch (kind) {
      case "server-error" -> 2;
      case "rate-limited", "unavailable", "disconnect", "malformed-chunk", "slow-headers", "stream-error" -> 3;
      case "slowdown", "stall" -> 4;
      default -> throw new IllegalArgumentException("unknown fault kind '" + p[0] + "' in --fault " + spec);
    };
    if (p.length != need && !(kind.equals("slowdown") && p.length == need + 1)) {
      throw new IllegalArgumentException("--fault " + spec + " needs " + need + " ':'-separated fields; see --help");
    }
    String o = "--fault " + spec;
    double probability = decimal(o, p[1]);
    Fault fault = switch (kind) {
      case "server-error" -> Fault.serverError();
      case "rate-limited" -> Fault.rateLimited(millis(o, p[2]));
      case "unavailable" -> Fault.unavailable(millis(o, p[2]));
      case "slowdown" -> p.length == 5 ? Fault.slowdown(decimal(o, p[2]), millis(o, p[3]), millis(o, p[4]))
          : Fault.slowdown(decimal(o, p[2]), millis(o, p[3]));
      case "stall" -> Fault.stall(integer(o, p[2]), millis(o, p[3]));
      case "disconnect" -> Fault.disconnect(integer(o, p[2]));
      case "malformed-chunk" -> Fault.malformedChunk(integer(o, p[2]));
      case "slow-headers" -> Fault.slowHeaders(millis(o, p[2]));
      default -> Fault.streamError(integer(o, p[2]));
    };
    b.fault(fault, probability);
  }

  private static int integer(String option, String v) {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs an integer, was '" + v + "'");
    }
  }

  private static long longValue(String option, String v) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs an integer, was '" + v + "'");
    }
  }

  private static double decimal(String option, String v) {
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a number, was '" + v + "'");
    }
  }

  private static Duration positiveMillis(String option, String v) {
    Duration d = millis(option, v);
    if (d.isZero()) {
      throw new IllegalArgumentException(option + " needs a number of milliseconds > 0, was '" + v + "'");
    }
    return d;
  }

  private static Duration millis(String option, String v) {
    double ms = decimal(option, v);
    if (!(ms >= 0) || Double.isInfinite(ms)) {
      throw new IllegalArgumentException(option + " needs a number of milliseconds >= 0, was '" + v + "'");
    }
    return Duration.ofNanos(Math.round(ms * 1e6));
  }
}
