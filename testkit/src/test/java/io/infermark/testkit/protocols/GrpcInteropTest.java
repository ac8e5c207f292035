package io.infermark.testkit.protocols;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.infermark.core.Benchmark;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.TritonGrpcTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import io.infermark.testkit.simulator.kserve.InferTensorContents;
import io.infermark.testkit.simulator.kserve.ModelInferRequest;
import io.infermark.testkit.simulator.kserve.ModelInferResponse;
import io.infermark.testkit.simulator.kserve.ModelStreamInferResponse;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * Both ends against grpc-java, so neither only speaks the other's dialect: infermark's gRPC client
 * against a grpc-java server, and grpc-java's client against the simulator's gRPC service.
 */
class GrpcInteropTest {

  private static final MethodDescriptor<ModelInferRequest, ModelStreamInferResponse> STREAM_INFER =
      MethodDescriptor.<ModelInferRequest, ModelStreamInferResponse>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("inference.GRPCInferenceService/ModelStreamInfer")
          .setRequestMarshaller(ProtoUtils.marshaller(ModelInferRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(ModelStreamInferResponse.getDefaultInstance()))
          .build();

  private static ModelStreamInferResponse text(String t) {
    byte[] b = t.getBytes(StandardCharsets.UTF_8);
    ByteBuffer raw = ByteBuffer.allocate(4 + b.length).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length).put(b);
    return ModelStreamInferResponse.newBuilder().setInferResponse(ModelInferResponse.newBuilder()
        .setModelName("ensemble").addOutputs(ModelInferResponse.InferOutputTensor.newBuilder().setName("text_output")
            .setDatatype("BYTES").addShape(1)).addRawOutputContents(ByteString.copyFrom(raw.array()))).build();
  }

  /** A grpc-java server whose ModelStreamInfer answers each request with {@code answer}. */
  private static Server server(BiConsumer<ModelInferRequest, StreamObserver<ModelStreamInferResponse>> answer)
      throws Exception {
    ServerServiceDefinition service = ServerServiceDefinition.builder("inference.GRPCInferenceService")
        .addMethod(STREAM_INFER, ServerCalls.asyncBidiStreamingCall(out -> new StreamObserver<ModelInferRequest>() {
          @Override
          public void onNext(ModelInferRequest request) {
            answer.accept(request, out);
          }

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onCompleted() {}
        })).build();
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service).build().start();
  }

  private static RequestRecord one(Server server, GenerationParams params) {
    try (TritonGrpcTarget target = TritonGrpcTarget.streamInfer("http://127.0.0.1:" + server.getPort(), "ensemble")
        .build()) {
      return Benchmark.target(target).preflight(false).prompts(Prompt.user("Hi")).params(params)
          .load(LoadProfile.concurrency(1).requests(1)).run().records().get(0);
    }
  }

  @Test
  void infermarksClientReadsAGrpcJavaServersStreamAndItsStatus() throws Exception {
    List<ModelInferRequest> received = new CopyOnWriteArrayList<>();
    Server ok = server((request, out) -> {
      received.add(request);
      out.onNext(text("Hello"));
      out.onNext(text(", "));
      out.onNext(text("world"));
      out.onCompleted();
    });
    try {
      RequestRecord r = one(ok, GenerationParams.builder().maxTokens(3).build());
      assertThat(r.succeeded()).as("%s", r).isTrue();
      assertThat(r.chunks().size()).isEqualTo(3);
      assertThat(r.outputTokens()).isEqualTo(3);
      assertThat(received).hasSize(1);
      assertThat(received.get(0).getModelName()).isEqualTo("ensemble");
      assertThat(received.get(0).getInputs(0).getContents().getBytesContents(0).toStringUtf8()).isEqualTo("Hi");
    } finally {
      ok.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    Server busy = server((request, out) -> {
      out.onNext(text("partial"));
      out.onError(Status.RESOURCE_EXHAUSTED.withDescription("queue full: 64 waiting, try later ✓").asException());
    });
    try {
      Failure f = one(busy, GenerationParams.builder().maxTokens(3).build()).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
      assertThat(f.httpStatus()).isEqualTo(429);
      assertThat(f.message()).isEqualTo("gRPC RESOURCE_EXHAUSTED (status 8): queue full: 64 waiting, try later ✓");
    } finally {
      busy.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void grpcJavasClientReadsTheSimulatorsStream() throws Exception {
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).tokensPerChunk(1).outputTokensBetween(6, 6).build(),
        SimulatorProtocol.H2C)) {
      ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", sim.port()).usePlaintext().build();
      try {
        ModelInferRequest request = ModelInferRequest.newBuilder().setModelName(sim.config().model())
            .addInputs(ModelInferRequest.InferInputTensor.newBuilder().setName("text_input").setDatatype("BYTES")
                .addShape(1).addShape(1).setContents(InferTensorContents.newBuilder()
                    .addBytesContents(ByteString.copyFromUtf8("Tell me about latency."))))
            .build();
        List<ModelStreamInferResponse> responses = new ArrayList<>();
        java.util.Iterator<ModelStreamInferResponse> it = ClientCalls.blockingServerStreamingCall(
            channel.newCall(STREAM_INFER, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)), request);
        it.forEachRemaining(responses::add);
        assertThat(responses).hasSize(6);
        assertThat(responses).allMatch(r -> r.getErrorMessage().isEmpty()
            && r.getInferResponse().getOutputs(0).getName().equals("text_output"));
        assertThat(responses.get(5).getInferResponse().getParametersMap().get("triton_final_response").getBoolParam())
            .isTrue();
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }
}
