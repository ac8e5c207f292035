package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.kserve.InferParameter;
import io.infermark.testkit.simulator.kserve.InferTensorContents;
import io.infermark.testkit.simulator.kserve.ModelInferRequest;
import io.infermark.testkit.simulator.kserve.ModelInferResponse;
import io.infermark.testkit.simulator.kserve.ModelStreamInferResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The client's hand-written KServe v2 codec against the classes protoc generates from the checked-in
 * .proto: what it writes parses as the ModelInferRequest it means, and it reads every way a server
 * may lay out a ModelStreamInferResponse. (In core's package, from testkit, where the generated
 * classes are.)
 */
class KServeWireConformanceTest {

  private static InferenceRequest request(GenerationParams params) {
    return new InferenceRequest("req-7", Prompt.user("Bonjour, ça va ?"), params);
  }

  private static ModelInferRequest encoded(TritonGrpcTarget.Convention convention, GenerationParams params)
      throws Exception {
    try (TritonGrpcTarget t = TritonGrpcTarget.streamInfer("http://127.0.0.1:8001", "ensemble")
        .convention(convention).modelVersion("2").build()) {
      byte[] framed = t.outbound(request(params)).body();
      assertThat(framed[0]).isZero();
      assertThat(ByteBuffer.wrap(framed, 1, 4).getInt()).isEqualTo(framed.length - 5);
      return ModelInferRequest.parseFrom(Arrays.copyOfRange(framed, 5, framed.length));
    }
  }

  private static ModelInferRequest.InferInputTensor input(ModelInferRequest r, String name) {
    return r.getInputsList().stream().filter(i -> i.getName().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void tensorRtLlmRequestsParseAsTheTensorsTheyMean() throws Exception {
    ModelInferRequest r = encoded(TritonGrpcTarget.Convention.TENSORRT_LLM, GenerationParams.builder().maxTokens(64)
        .temperature(0.5).ignoreEos(true).extraBody("beam_width", 1).extraBody("mode", "fast").build());
    assertThat(r.getModelName()).isEqualTo("ensemble");
    assertThat(r.getModelVersion()).isEqualTo("2");
    assertThat(r.getId()).isEqualTo("req-7");
    assertThat(input(r, "text_input").getDatatype()).isEqualTo("BYTES");
    assertThat(input(r, "text_input").getShapeList()).containsExactly(1L, 1L);
    assertThat(input(r, "text_input").getContents().getBytesContents(0).toStringUtf8()).isEqualTo("Bonjour, ça va ?");
    assertThat(input(r, "max_tokens").getContents().getIntContentsList()).containsExactly(64);
    assertThat(input(r, "stream").getContents().getBoolContentsList()).containsExactly(true);
    assertThat(input(r, "temperature").getContents().getFp32ContentsList()).containsExactly(0.5f);
    assertThat(input(r, "min_length").getContents().getIntContentsList()).containsExactly(64);
    assertThat(r.getOutputsList()).extracting(ModelInferRequest.InferRequestedOutputTensor::getName)
        .containsExactly("text_output");
    assertThat(r.getInputsList()).extracting(ModelInferRequest.InferInputTensor::getName)
        .doesNotContain("return_num_output_tokens"); // the stock ensemble does not declare it
    assertThat(r.getParametersMap().get("beam_width").getInt64Param()).isEqualTo(1);
    assertThat(r.getParametersMap().get("mode").getStringParam()).isEqualTo("fast");
  }

  @Test
  void vllmRequestsCarrySamplingParametersAsJson() throws Exception {
    ModelInferRequest r = encoded(TritonGrpcTarget.Convention.VLLM, GenerationParams.builder().maxTokens(32)
        .temperature(0.0).stream(false).build());
    assertThat(input(r, "text_input").getShapeList()).containsExactly(1L);
    assertThat(input(r, "stream").getContents().getBoolContentsList()).containsExactly(false);
    assertThat(input(r, "exclude_input_in_output").getContents().getBoolContentsList()).containsExactly(true);
    assertThat(input(r, "sampling_parameters").getContents().getBytesContents(0).toStringUtf8())
        .isEqualTo("{\"max_tokens\":32,\"temperature\":0.0}");
    assertThat(r.getInputsList()).extracting(ModelInferRequest.InferInputTensor::getName)
        .doesNotContain("max_tokens");
    // each response's token count, asked for and requested as an output (Triton returns only the outputs named)
    assertThat(input(r, "return_num_output_tokens").getDatatype()).isEqualTo("BOOL");
    assertThat(input(r, "return_num_output_tokens").getContents().getBoolContentsList()).containsExactly(true);
    assertThat(r.getOutputsList()).extracting(ModelInferRequest.InferRequestedOutputTensor::getName)
        .containsExactly("text_output", "num_output_tokens");
  }

  private static ModelInferResponse.Builder eightTokens() {
    return ModelInferResponse.newBuilder().addOutputs(output("text_output"))
        .addRawOutputContents(rawBytes(" one two three four five six seven eight"));
  }

  @Test
  void readsTheTokenCountOfAResponseRawOrTypedOfAnyIntegerType() throws Exception {
    ModelInferResponse.InferOutputTensor count = output("num_output_tokens").toBuilder().setDatatype("UINT32").build();
    StreamInferResponseReader raw32 = read(ModelStreamInferResponse.newBuilder().setInferResponse(eightTokens()
        .addOutputs(count).addRawOutputContents(ByteString.copyFrom(new byte[] {8, 0, 0, 0}))).build());
    assertThat(raw32.tokens).isEqualTo(8);
    assertThat(raw32.text()).hasToString(" one two three four five six seven eight");

    StreamInferResponseReader raw64 = read(ModelStreamInferResponse.newBuilder().setInferResponse(eightTokens()
        .addOutputs(count.toBuilder().setDatatype("INT64"))
        .addRawOutputContents(ByteString.copyFrom(new byte[] {0, 1, 0, 0, 0, 0, 0, 0}))).build());
    assertThat(raw64.tokens).isEqualTo(256);

    StreamInferResponseReader typed = read(ModelStreamInferResponse.newBuilder().setInferResponse(
        ModelInferResponse.newBuilder().addOutputs(count.toBuilder().setContents(InferTensorContents.newBuilder()
            .addUintContents(3))).addOutputs(output("text_output").toBuilder().setContents(InferTensorContents
            .newBuilder().addBytesContents(ByteString.copyFromUtf8(" a b c"))))).build());
    assertThat(typed.tokens).isEqualTo(3);
    assertThat(typed.text()).hasToString(" a b c");

    assertThat(read(ModelStreamInferResponse.newBuilder().setInferResponse(eightTokens()).build()).tokens)
        .as("no count sent: unknown").isEqualTo(-1);
    assertThatThrownBy(() -> read(ModelStreamInferResponse.newBuilder().setInferResponse(eightTokens()
        .addOutputs(count).addRawOutputContents(ByteString.copyFrom(new byte[] {8, 0}))).build()))
        .isInstanceOf(KServeWire.MalformedMessage.class).hasMessageContaining("num_output_tokens");
  }

  private static ByteString rawBytes(String... elements) {
    ByteBuffer b = ByteBuffer.allocate(1024).order(ByteOrder.LITTLE_ENDIAN);
    for (String e : elements) {
      byte[] t = e.getBytes(StandardCharsets.UTF_8);
      b.putInt(t.length).put(t);
    }
    return ByteString.copyFrom(b.array(), 0, b.position());
  }

  private static StreamInferResponseReader read(ModelStreamInferResponse response) throws Exception {
    StreamInferResponseReader reader = new StreamInferResponseReader("text_output");
    byte[] bytes = response.toByteArray();
    reader.read(bytes, 0, bytes.length, true);
    return reader;
  }

  private static ModelInferResponse.InferOutputTensor output(String name) {
    return ModelInferResponse.InferOutputTensor.newBuilder().setName(name).setDatatype("BYTES").addShape(1).build();
  }

  @Test
  void readsTheNamedOutputFromRawContentsInTheOrderOfTheOutputs() throws Exception {
    ModelStreamInferResponse r = ModelStreamInferResponse.newBuilder().setInferResponse(ModelInferResponse.newBuilder()
        .setModelName("ensemble").setId("req-7")
        .putParameters("triton_final_response", InferParameter.newBuilder().setBoolParam(true).build())
        .putParameters("sequence_id", InferParameter.newBuilder().setInt64Param(3).build())
        .addOutputs(output("cum_log_probs")).addOutputs(output("text_output"))
        .addRawOutputContents(rawBytes("-1.5")).addRawOutputContents(rawBytes(" tok", "en"))).build();
    StreamInferResponseReader reader = read(r);
    assertThat(reader.errorMessage).isNull();
    assertThat(reader.hasOutput).isTrue();
    assertThat(reader.content).isTrue();
    assertThat(reader.finalResponse).isTrue();
    assertThat(reader.text()).hasToString(" token");
  }

  @Test
  void readsTypedBytesContentsAndTheErrorMessage() throws Exception {
    ModelStreamInferResponse typed = ModelStreamInferResponse.newBuilder().setInferResponse(ModelInferResponse
        .newBuilder().addOutputs(output("text_output").toBuilder().setContents(InferTensorContents.newBuilder()
            .addBytesContents(ByteString.copyFromUtf8("héllo"))))).build();
    assertThat(read(typed).text()).hasToString("héllo");
    assertThat(read(typed).finalResponse).isFalse();

    StreamInferResponseReader error = read(ModelStreamInferResponse.newBuilder().setErrorMessage("OOM").build());
    assertThat(error.errorMessage).isEqualTo("OOM");
    assertThat(error.hasOutput).isFalse();

    StreamInferResponseReader other = read(ModelStreamInferResponse.newBuilder().setInferResponse(ModelInferResponse
        .newBuilder().addOutputs(output("logits")).addRawOutputContents(rawBytes("x"))).build());
    assertThat(other.hasOutput).isFalse();
    assertThat(other.content).isFalse();
  }

  @Test
  void rejectsBytesThatAreNotTheMessage() {
    StreamInferResponseReader reader = new StreamInferResponseReader("text_output");
    byte[] truncated = Arrays.copyOf(ModelStreamInferResponse.newBuilder().setErrorMessage("a long message")
        .build().toByteArray(), 5);
    assertThatThrownBy(() -> reader.read(truncated, 0, truncated.length, false))
        .isInstanceOf(KServeWire.MalformedMessage.class).hasMessageContaining("runs past");
    byte[] rawCut = ModelStreamInferResponse.newBuilder().setInferResponse(ModelInferResponse.newBuilder()
        .addOutputs(output("text_output")).addRawOutputContents(ByteString.copyFrom(new byte[] {9, 0, 0, 0, 'a'})))
        .build().toByteArray();
    assertThatThrownBy(() -> reader.read(rawCut, 0, rawCut.length, false))
        .isInstanceOf(KServeWire.MalformedMessage.class).hasMessageContaining("runs past its tensor");
  }
}
