package io.infermark.benchmarks;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.TritonGrpcTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import io.infermark.testkit.simulator.kserve.InferTensorContents;
import io.infermark.testkit.simulator.kserve.ModelInferRequest;
import io.infermark.testkit.simulator.kserve.ModelStreamInferResponse;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a streamed gRPC response costs the client: infermark's own gRPC framing on its HTTP/2 event loop
 * ({@link TritonGrpcTarget}) against grpc-java's client (Netty, shaded), both reading Triton's
 * {@code ModelStreamInfer} from the simulator's gRPC service in the same JVM. The decision behind
 * TritonGrpcTarget's design; a measurement, not a test.
 *
 * <p>For each client and level it runs a closed loop of {@code streams} calls for a fixed time after a
 * warm-up, each call one TensorRT-LLM-shaped request for {@code tokens} tokens, and prints the client's
 * CPU per streamed response: the process's CPU time less the simulator's threads and the JVM's own (JIT,
 * GC), as {@link ClientCapacity} splits it. Clients:
 * <ul>
 *   <li>{@code own}: {@link TritonGrpcTarget} through {@link Benchmark}: the whole client, with its run engine,
 *       records and health monitor;
 *   <li>{@code own-bare}: {@link TritonGrpcTarget#start} driven directly, each response stamped at the read and
 *       counted by an observer that keeps nothing, the same closed loop as the grpc-java clients: the framing
 *       and transport alone, like for like with them;
 *   <li>{@code grpc-java}: grpc-java 1.85's {@code ClientCalls.asyncBidiStreamingCall} with generated
 *       messages, callbacks on grpc's default executor (a cached thread pool), each response stamped with
 *       {@code System.nanoTime()} in {@code onNext} and counted, no records kept (its best case);
 *   <li>{@code grpc-java-direct}: the same with {@code directExecutor()}, callbacks on the I/O thread.
 * </ul>
 *
 * <p>Run: {@code java -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.GrpcClientCost
 * [streams=64,256] [seconds=10] [tokens=256] [clients=own,own-bare,grpc-java,grpc-java-direct]
 * [warmupSeconds=5]}.
 * The simulator runs the {@code near-zero-cost} engine (1 ms steps), so the client is the bottleneck.
 */
public final class GrpcClientCost {

  private GrpcClientCost() {}

  private static final MethodDescriptor<ModelInferRequest, ModelStreamInferResponse> STREAM_INFER =
      MethodDescriptor.<ModelInferRequest, ModelStreamInferResponse>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("inference.GRPCInferenceService/ModelStreamInfer")
          .setRequestMarshaller(ProtoUtils.marshaller(ModelInferRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(ModelStreamInferResponse.getDefaultInstance()))
          .build();

  /**
   * Runs every client at every level and prints one line each.
   *
   * @param args levels, seconds, tokens, clients, warm-up seconds (all optional)
   * @throws InterruptedException if interrupted while waiting for calls
   */
  public static void main(String[] args) throws InterruptedException {
    int[] levels = java.util.Arrays.stream((args.length > 0 ? args[0] : "64,256").split(","))
        .mapToInt(Integer::parseInt).toArray();
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int tokens = args.length > 2 ? Integer.parseInt(args[2]) : 256;
    String[] clients = (args.length > 3 ? args[3] : "own,own-bare,grpc-java,grpc-java-direct").split(",");
    int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 5;
    System.out.printf(Locale.ROOT, "near-zero-cost engine, %d s per run after %d s warm-up, %d tokens per call, "
        + "%d cores, Java %s%n", seconds, warmup, tokens, Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    for (int streams : levels) {
      for (String client : clients) {
        EngineProfile profile = EngineProfile.nearZeroCost();
        SimulatorConfig config = SimulatorConfig.builder().engine(profile.toBuilder()
            .maxRunningSequences(Math.max(profile.maxRunningSequences(), streams)).build()).build();
        try (Simulator sim = Simulator.start(config, SimulatorProtocol.H2C)) {
          Runner runner = switch (client) {
            case "own" -> new Own(sim, tokens);
            case "own-bare" -> new OwnBare(sim, tokens);
            case "grpc-java" -> new GrpcJava(sim, tokens, false);
            case "grpc-java-direct" -> new GrpcJava(sim, tokens, true);
            default -> throw new IllegalArgumentException("unknown client " + client
                + ": use own, own-bare, grpc-java or grpc-java-direct");
          };
          try (runner) {
            runner.run(streams, warmup);
            measure(client, streams, seconds, runner);
          }
        }
      }
    }
  }

  private static void measure(String client, int streams, int seconds, Runner runner) throws InterruptedException {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    String loadBefore = ClientCapacity.loadAverage();
    Map<Long, Long> before = ClientCapacity.cpuByThread(mx);
    long jvm0 = ClientCapacity.jvmThreadsCpuNanos();
    long process0 = ClientCapacity.processCpuNanos();
    long wall0 = System.nanoTime();
    long[] counted = runner.run(streams, seconds);
    long wall = System.nanoTime() - wall0;
    long process = ClientCapacity.processCpuNanos() - process0;
    long sim = ClientCapacity.split(mx, before)[0];
    long jvm = ClientCapacity.jvmThreadsCpuNanos() - jvm0;
    long responses = counted[0];
    double perResponse = responses == 0 ? 0 : (process - sim - jvm) / 1e3 / responses;
    System.out.printf(Locale.ROOT, "%-17s %4d streams: %7d calls (%d failed), %9d responses, %7.0f responses/s; "
        + "client CPU %.2f us per response (simulator %.2f, JVM %.2f); process %.0f%% of %d cores; "
        + "load %s -> %s%n", client, streams, counted[1], counted[2], responses, responses / (wall / 1e9),
        perResponse, responses == 0 ? 0 : sim / 1e3 / responses, responses == 0 ? 0 : jvm / 1e3 / responses,
        100.0 * process / wall / Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().availableProcessors(), loadBefore, ClientCapacity.loadAverage());
  }

  /** A client that runs a closed loop of calls and counts responses, calls and failures. */
  private interface Runner extends AutoCloseable {
    long[] run(int streams, int seconds) throws InterruptedException;

    @Override
    void close();
  }

  /** infermark's own framing, through a Benchmark run. */
  private static final class Own implements Runner {
    private final TritonGrpcTarget target;
    private final int tokens;

    Own(Simulator sim, int tokens) {
      this.target = TritonGrpcTarget.streamInfer(sim.baseUrl(), sim.config().model()).build();
      this.tokens = tokens;
    }

    @Override
    public long[] run(int streams, int seconds) {
      RunResult run = Benchmark.target(target).preflight(false).prompts(Prompt.user("How fast can the client read?"))
          .params(GenerationParams.builder().maxTokens(tokens).build())
          .load(LoadProfile.concurrency(streams).duration(Duration.ofSeconds(seconds))).run();
      long chunks = 0;
      for (RequestRecord r : run.records()) {
        chunks += r.chunks().size();
      }
      return new long[] {chunks, run.records().size(), run.failureCount()};
    }

    @Override
    public void close() {
      target.close();
    }
  }

  /** infermark's framing and transport alone: the target's start() in a closed loop, responses counted. */
  private static final class OwnBare implements Runner {
    private final TritonGrpcTarget target;
    private final io.infermark.core.request.InferenceRequest request;

    OwnBare(Simulator sim, int tokens) {
      this.target = TritonGrpcTarget.streamInfer(sim.baseUrl(), sim.config().model()).build();
      this.request = new io.infermark.core.request.InferenceRequest("", Prompt.user("How fast can the client read?"),
          GenerationParams.builder().maxTokens(tokens).build());
    }

    @Override
    public long[] run(int streams, int seconds) throws InterruptedException {
      target.prepare(streams);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      AtomicLong responses = new AtomicLong();
      AtomicLong calls = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      CountDownLatch slots = new CountDownLatch(streams);
      for (int i = 0; i < streams; i++) {
        call(deadline, responses, calls, failed, slots);
      }
      if (!slots.await(seconds + 60L, TimeUnit.SECONDS)) {
        throw new IllegalStateException("calls did not end within a minute of the deadline");
      }
      return new long[] {responses.get(), calls.get(), failed.get()};
    }

    private void call(long deadline, AtomicLong responses, AtomicLong calls, AtomicLong failed, CountDownLatch slots) {
      if (System.nanoTime() - deadline >= 0) {
        slots.countDown();
        return;
      }
      target.start(request, new io.infermark.core.capture.StreamObserver() {
        @Override
        public void onPhase(io.infermark.core.capture.Phase phase, long nanoTime) {}

        @Override
        public void onResponseHeaders(int httpStatus, long nanoTime) {}

        @Override
        public void onChunk(long nanoTime, io.infermark.core.capture.ChunkKind kind, int tokens) {
          responses.incrementAndGet();
        }

        @Override
        public void onUsage(io.infermark.core.capture.Usage usage) {}

        @Override
        public void onFinishReason(String reason) {}

        @Override
        public void onServerTiming(String name, double value) {}

        @Override
        public void onComplete(long nanoTime) {
          calls.incrementAndGet();
          call(deadline, responses, calls, failed, slots);
        }

        @Override
        public void onFailure(io.infermark.core.capture.Failure failure, long nanoTime) {
          calls.incrementAndGet();
          failed.incrementAndGet();
          call(deadline, responses, calls, failed, slots);
        }
      }, new io.infermark.core.transport.Cancellation());
    }

    @Override
    public void close() {
      target.close();
    }
  }

  /** grpc-java's client, the same request, a closed loop of asynchronous calls. */
  private static final class GrpcJava implements Runner {
    private final ManagedChannel channel;
    private final ExecutorService pool;
    private final ModelInferRequest request;

    GrpcJava(Simulator sim, int tokens, boolean direct) {
      NettyChannelBuilder b = NettyChannelBuilder.forAddress("127.0.0.1", sim.port()).usePlaintext()
          .flowControlWindow(1 << 20);
      this.pool = direct ? null : Executors.newCachedThreadPool();
      this.channel = (direct ? b.directExecutor() : b.executor(pool)).build();
      long[] one = {1, 1};
      this.request = ModelInferRequest.newBuilder().setModelName(sim.config().model())
          .addInputs(tensor("text_input", "BYTES", one, InferTensorContents.newBuilder()
              .addBytesContents(ByteString.copyFromUtf8("How fast can the client read?"))))
          .addInputs(tensor("max_tokens", "INT32", one, InferTensorContents.newBuilder().addIntContents(tokens)))
          .addInputs(tensor("stream", "BOOL", one, InferTensorContents.newBuilder().addBoolContents(true)))
          .addOutputs(ModelInferRequest.InferRequestedOutputTensor.newBuilder().setName("text_output"))
          .build();
    }

    private static ModelInferRequest.InferInputTensor.Builder tensor(String name, String type, long[] shape,
        InferTensorContents.Builder contents) {
      ModelInferRequest.InferInputTensor.Builder t = ModelInferRequest.InferInputTensor.newBuilder().setName(name)
          .setDatatype(type).setContents(contents);
      for (long d : shape) {
        t.addShape(d);
      }
      return t;
    }

    @Override
    public long[] run(int streams, int seconds) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      AtomicLong responses = new AtomicLong();
      AtomicLong calls = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      AtomicLong lastStamp = new AtomicLong();
      CountDownLatch slots = new CountDownLatch(streams);
      for (int i = 0; i < streams; i++) {
        call(deadline, responses, calls, failed, lastStamp, slots);
      }
      if (!slots.await(seconds + 60L, TimeUnit.SECONDS)) {
        throw new IllegalStateException("grpc-java calls did not end within a minute of the deadline");
      }
      return new long[] {responses.get(), calls.get(), failed.get()};
    }

    /** One call; when it ends, the next one in its slot until the deadline. */
    private void call(long deadline, AtomicLong responses, AtomicLong calls, AtomicLong failed, AtomicLong lastStamp,
        CountDownLatch slots) {
      if (System.nanoTime() - deadline >= 0) {
        slots.countDown();
        return;
      }
      ClientCall<ModelInferRequest, ModelStreamInferResponse> c = channel.newCall(STREAM_INFER, CallOptions.DEFAULT);
      StreamObserver<ModelInferRequest> out = ClientCalls.asyncBidiStreamingCall(c,
          new StreamObserver<ModelStreamInferResponse>() {
            @Override
            public void onNext(ModelStreamInferResponse r) {
              lastStamp.lazySet(System.nanoTime()); // what a user of the client would stamp
              responses.incrementAndGet();
            }

            @Override
            public void onError(Throwable t) {
              calls.incrementAndGet();
              failed.incrementAndGet();
              call(deadline, responses, calls, failed, lastStamp, slots);
            }

            @Override
            public void onCompleted() {
              calls.incrementAndGet();
              call(deadline, responses, calls, failed, lastStamp, slots);
            }
          });
      out.onNext(request);
      out.onCompleted();
    }

    @Override
    public void close() {
      channel.shutdownNow();
      try {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (pool != null) {
        pool.shutdownNow();
      }
    }
  }
}
