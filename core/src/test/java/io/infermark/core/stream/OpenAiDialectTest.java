package io.infermark.core.stream;

import static io.infermark.core.capture.ChunkKind.CONTENT;
import static io.infermark.core.capture.ChunkKind.EMPTY;
import static io.infermark.core.capture.ChunkKind.REASONING;
import static io.infermark.core.capture.ChunkKind.ROLE;
import static io.infermark.core.capture.ChunkKind.TOOL_CALL;
import static io.infermark.core.capture.ChunkKind.USAGE;
import static io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS;
import static io.infermark.core.stream.Feeding.allSplits;
import static io.infermark.core.stream.Feeding.fixture;
import static io.infermark.core.stream.Feeding.sseEventCount;
import static io.infermark.core.stream.Feeding.sseEventEnds;
import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Usage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenAiDialectTest {

  private static final StreamDialect DIALECT = StreamDialect.OPENAI;

  private static String chunk(String delta) {
    return "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" + delta
        + ",\"finish_reason\":null}]}";
  }

  static byte[] sse(String... payloads) {
    StringBuilder sb = new StringBuilder();
    for (String p : payloads) {
      sb.append("data: ").append(p).append("\n\n");
    }
    return utf8(sb.toString());
  }

  private static List<ChunkKind> kinds(Object... runs) {
    List<ChunkKind> kinds = new ArrayList<>();
    for (int i = 0; i < runs.length; i += 2) {
      kinds.addAll(Collections.nCopies((Integer) runs[i], (ChunkKind) runs[i + 1]));
    }
    return kinds;
  }

  // ---- fixtures ----

  @Test
  void openAiTextStreamHasRoleThirtyContentChunksFinishAndUsage() {
    byte[] body = fixture("openai-chat-text-usage.txt");
    assertThat(sseEventCount(body)).isEqualTo(34);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).isEqualTo(kinds(1, ROLE, 30, CONTENT, 1, EMPTY, 1, USAGE));
    assertThat(r.content()).isEqualTo("I'm unable to provide real-time weather updates. To get the current weather in"
        + " San Francisco, I recommend checking a reliable weather website or a weather app.");
    assertThat(r.reasoning()).isEmpty();
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(14).completionTokens(30).totalTokens(44)
        .reasoningTokens(0).build());
    assertThat(r.finishReasons).containsExactly("stop");
    assertThat(r.tokens()).allMatch(t -> t == UNKNOWN_TOKENS);
    assertThat(r.completed()).isTrue();
    assertThat(r.failure()).isNull();
  }

  @Test
  void chunkArrivesWhenTheBlankLineEndingItsEventIsRead() {
    byte[] body = fixture("openai-chat-text-usage.txt");
    RecordingObserver r = allSplits(DIALECT, body);
    List<Long> eventEnds = sseEventEnds(body);
    assertThat(r.chunkTimes()).isEqualTo(eventEnds.subList(0, 33));
    assertThat(r.completedAt()).isEqualTo(eventEnds.get(33));
  }

  @Test
  void parallelToolCallsAreTokenBearingAndKeepIdsNamesAndArgumentsPerIndex() {
    byte[] body = fixture("openai-chat-parallel-tool-calls.txt");
    assertThat(sseEventCount(body)).isEqualTo(26);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).isEqualTo(kinds(1, ROLE, 22, TOOL_CALL, 1, EMPTY, 1, USAGE));
    assertThat(r.count(CONTENT)).isZero();
    assertThat(r.content()).isEmpty();
    assertThat(r.tool(0)).hasSize(12);
    assertThat(r.tool(0).get(0)).isEqualTo(
        new RecordingObserver.ToolFragment(0, "call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", ""));
    assertThat(r.toolId(0)).isEqualTo("call_JMW1whyEaYG438VE1OIflxA2");
    assertThat(r.toolName(0)).isEqualTo("GetWeatherArgs");
    assertThat(r.toolArguments(0)).isEqualTo("{\"city\": \"Edinburgh\", \"country\": \"GB\", \"units\": \"c\"}");
    assertThat(r.tool(1)).hasSize(10);
    assertThat(r.toolId(1)).isEqualTo("call_DNYTawLBoN8fj3KN6qU9N1Ou");
    assertThat(r.toolName(1)).isEqualTo("get_stock_price");
    assertThat(r.toolArguments(1)).isEqualTo("{\"ticker\": \"AAPL\", \"exchange\": \"NASDAQ\"}");
    assertThat(r.tool(1).subList(1, 10)).allMatch(f -> f.id().isEmpty() && f.name().isEmpty());
    assertThat(r.finishReasons).containsExactly("tool_calls");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(149).completionTokens(60).totalTokens(209)
        .reasoningTokens(0).build());
    assertThat(r.completed()).isTrue();
  }

  @Test
  void vllmChatStreamReadsUsageInVllmKeyOrder() {
    byte[] body = fixture("vllm-chat-stream-usage.txt");
    assertThat(sseEventCount(body)).isEqualTo(7);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(ROLE, CONTENT, CONTENT, CONTENT, CONTENT, USAGE);
    assertThat(r.texts).containsExactly("Here", "'s", " a", " poem");
    assertThat(r.content()).isEqualTo("Here's a poem");
    assertThat(r.finishReasons).containsExactly("length");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(42).completionTokens(4).totalTokens(46).build());
    assertThat(r.completed()).isTrue();
  }

  @Test
  void vllmReasoningContentChunksAreReasoningAndPrecedeContent() {
    byte[] body = fixture("vllm-chat-reasoning.txt");
    assertThat(sseEventCount(body)).isEqualTo(17);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).isEqualTo(kinds(1, ROLE, 8, REASONING, 6, CONTENT, 1, USAGE));
    assertThat(r.reasoning()).isEqualTo("Okay, the user asks to count.");
    assertThat(r.content()).isEqualTo("\n\nUn, deux, trois");
    assertThat(r.finishReasons).containsExactly("length");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(42).completionTokens(15).totalTokens(57).build());
    assertThat(r.completed()).isTrue();
  }

  @Test
  void legacyCompletionsTextIsContentAndNullUsageIsIgnored() {
    byte[] body = fixture("vllm-completions-stream-usage.txt");
    assertThat(sseEventCount(body)).isEqualTo(7);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).isEqualTo(kinds(5, CONTENT, 1, USAGE));
    assertThat(r.content()).isEqualTo(" John, and I am");
    assertThat(r.usages).hasSize(1);
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(6).completionTokens(5).totalTokens(11).build());
    assertThat(r.finishReasons).containsExactly("length");
    assertThat(r.completed()).isTrue();
  }

  @Test
  void vllmMidStreamErrorWithPythonSpacingFailsAndIgnoresTheFollowingDone() {
    byte[] body = fixture("vllm-error-midstream.txt");
    assertThat(sseEventCount(body)).isEqualTo(5);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(ROLE, CONTENT, CONTENT);
    assertThat(r.content()).isEqualTo("Here's");
    assertThat(r.completed()).isFalse();
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo(
        "BadRequestError: EngineCore encountered an issue. See stack trace (above) for the root cause.");
    assertThat(r.failedAt()).isEqualTo(sseEventEnds(body).get(3));
  }

  @Test
  void sglangSeparateFinishChunkIsEmptyAndTopLevelReasoningTokensAreRead() {
    byte[] body = fixture("sglang-chat-stream-usage.txt");
    assertThat(sseEventCount(body)).isEqualTo(11);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).isEqualTo(kinds(1, ROLE, 7, CONTENT, 1, EMPTY, 1, USAGE));
    assertThat(r.content()).isEqualTo("The capital of France is Paris.");
    assertThat(r.reasoning()).isEmpty();
    assertThat(r.finishReasons).containsExactly("stop");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(14).completionTokens(8).totalTokens(22)
        .reasoningTokens(0).build());
    assertThat(r.completed()).isTrue();
  }

  @Test
  void tgiChatRepeatsRoleOnEveryDeltaButContentMakesEachChunkContent() {
    byte[] body = fixture("tgi-chat-stream-usage.txt");
    assertThat(sseEventCount(body)).isEqualTo(12);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).isEqualTo(kinds(10, CONTENT, 1, USAGE));
    assertThat(r.content()).isEqualTo("**Deep Learning: An Overview**\n=====================================\n\n");
    assertThat(r.finishReasons).containsExactly("length");
    // the finish reason rides on the last content chunk, before the usage chunk
    assertThat(r.untimedCalls).containsSubsequence("chunk CONTENT -1", "text CONTENT \n\n", "finish length",
        "chunk USAGE -1");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(40).completionTokens(10).totalTokens(50).build());
    assertThat(r.completed()).isTrue();
  }

  @Test
  void llamaCppFinishChunkUsageIsNotMistakenForPerChunkTokensAndTimingsAreReported() {
    byte[] body = fixture("llamacpp-chat-stream-b4764.txt");
    assertThat(sseEventCount(body)).isEqualTo(3);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(CONTENT, EMPTY);
    assertThat(r.tokens()).containsExactly(UNKNOWN_TOKENS, UNKNOWN_TOKENS);
    assertThat(r.content()).isEqualTo("Hello");
    assertThat(r.finishReasons).containsExactly("length");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(43).completionTokens(1).totalTokens(44).build());
    assertThat(r.serverTimings).containsEntry("timings.prompt_n", List.of(43.0))
        .containsEntry("timings.prompt_ms", List.of(246.082))
        .containsEntry("timings.prompt_per_token_ms", List.of(5.722837209302326))
        .containsEntry("timings.prompt_per_second", List.of(174.73850180021293))
        .containsEntry("timings.predicted_n", List.of(1.0))
        .containsEntry("timings.predicted_ms", List.of(0.028))
        .containsEntry("timings.predicted_per_token_ms", List.of(0.028))
        .containsEntry("timings.predicted_per_second", List.of(35714.28571428571))
        .hasSize(8);
    assertThat(r.completed()).isTrue();
  }

  @Test
  void ollamaCompatibleReasoningChunkWithRoleIsReasoning() {
    byte[] body = fixture("ollama-openai-compat-reasoning-usage.txt");
    assertThat(sseEventCount(body)).isEqualTo(5);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(REASONING, CONTENT, EMPTY, USAGE);
    assertThat(r.reasoning()).isEqualTo("reasoning");
    assertThat(r.content()).isEqualTo("final answer");
    assertThat(r.finishReasons).containsExactly("stop");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(3).completionTokens(2).totalTokens(5).build());
    assertThat(r.completed()).isTrue();
  }

  @Test
  void crlfFramedStreamParsesLikeLfFramedStream() {
    byte[] lf = fixture("openai-chat-text-usage.txt");
    byte[] crlf = utf8(new String(lf, java.nio.charset.StandardCharsets.UTF_8).replace("\n", "\r\n"));
    RecordingObserver a = allSplits(DIALECT, lf);
    RecordingObserver b = allSplits(DIALECT, crlf);
    assertThat(b.untimedCalls).isEqualTo(a.untimedCalls);
  }

  // ---- classification ----

  @Test
  void roleOnlyChunkIsNotTokenBearing() {
    RecordingObserver r = allSplits(DIALECT, sse(
        chunk("{\"role\":\"assistant\",\"content\":\"\"}"),
        chunk("{\"role\":\"assistant\",\"content\":null}"),
        chunk("{\"content\":\"Hi\"}"),
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(ROLE, ROLE, CONTENT);
    assertThat(ROLE.isTokenBearing()).isFalse();
  }

  @Test
  void emptyContentWithRoleAfterTokensIsEmptyNotRole() {
    // TGI's EOS chunk repeats the role with empty content and carries the finish reason.
    RecordingObserver r = allSplits(DIALECT, sse(
        chunk("{\"role\":\"assistant\",\"content\":\"Hi\"}"),
        "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":\"stop\"}]}",
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(CONTENT, EMPTY);
    assertThat(r.finishReasons).containsExactly("stop");
  }

  @Test
  void refusalIsContent() {
    RecordingObserver r = allSplits(DIALECT, sse(chunk("{\"refusal\":\"I can't\"}"), "[DONE]"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.content()).isEqualTo("I can't");
  }

  @Test
  void chunkWithReasoningAndContentIsContentAndReportsBothTexts() {
    RecordingObserver r = allSplits(DIALECT, sse(
        chunk("{\"reasoning_content\":\"think\",\"content\":\"say\"}"),
        chunk("{\"reasoning\":\"more\"}"),
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(CONTENT, REASONING);
    assertThat(r.untimedCalls).containsSubsequence("chunk CONTENT -1", "text REASONING think", "text CONTENT say");
    assertThat(r.reasoning()).isEqualTo("thinkmore");
  }

  @Test
  void toolCallChunkWithEmptyArgumentsIsStillToolCall() {
    RecordingObserver r = allSplits(DIALECT, sse(
        chunk("{\"tool_calls\":[{\"index\":0,\"id\":\"0\",\"type\":\"function\",\"function\":{\"name\":null,"
            + "\"arguments\":\"\"}}]}"),
        chunk("{\"tool_calls\":[]}"),
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(TOOL_CALL, EMPTY);
    assertThat(r.toolFragments).containsExactly(new RecordingObserver.ToolFragment(0, "0", "", ""));
  }

  @Test
  void toolArgumentsSentAsAnObjectAreReportedAsJsonText() {
    RecordingObserver r = allSplits(DIALECT, sse(
        chunk("{\"tool_calls\":[{\"index\":2,\"function\":{\"name\":\"f\",\"arguments\":{\"a\": [1, 2]}}}]}"),
        "[DONE]"));
    assertThat(r.toolFragments).containsExactly(new RecordingObserver.ToolFragment(2, "", "f", "{\"a\": [1, 2]}"));
  }

  /**
   * OpenAI streams call fragments with the index beside the function; Ollama's whole calls differ
   * (see OllamaDialectTest), which is why the two dialects keep their own tool-call readers.
   */
  @Test
  void toolCallIndexIsBesideTheFunctionAndScalarArgumentsAreLeftOut() {
    RecordingObserver r = allSplits(DIALECT, sse(
        chunk("{\"tool_calls\":[{\"index\":3,\"id\":\"c1\",\"function\":{\"index\":9,\"name\":\"f\","
            + "\"arguments\":null}},{\"index\":4,\"function\":{\"arguments\":5}}]}"),
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(TOOL_CALL);
    assertThat(r.toolFragments).containsExactly(
        new RecordingObserver.ToolFragment(3, "c1", "f", ""),
        new RecordingObserver.ToolFragment(4, "", "", ""));
  }

  @Test
  void everyChoiceOfAMultiChoiceChunkIsConsidered() {
    RecordingObserver r = allSplits(DIALECT, sse(
        "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"},"
            + "{\"index\":1,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"length\"}]}",
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.finishReasons).containsExactly("stop", "length");
  }

  @Test
  void textIsDecodedWithEscapesAndSurrogatePairs() {
    RecordingObserver r = allSplits(DIALECT, sse(
        chunk("{\"content\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\"\\n\\t\\\\ \\/ é😀\"}"), "[DONE]"));
    assertThat(r.content()).isEqualTo("café 😀 \"q\"\n\t\\ / é😀");
  }

  @Test
  void emptyFinishReasonIsNotReported() {
    // TGI's legacy completions send "finish_reason": "" on every non-final chunk.
    RecordingObserver r = allSplits(DIALECT, sse(
        "{\"choices\":[{\"index\":0,\"text\":\"a\",\"finish_reason\":\"\"}]}",
        "{\"choices\":[{\"index\":0,\"text\":\"b\",\"finish_reason\":\"eos_token\"}]}",
        "[DONE]"));
    assertThat(r.finishReasons).containsExactly("eos_token");
  }

  // ---- per-chunk tokens and usage ----

  @Test
  void continuousUsageGivesPerChunkTokenCounts() {
    String u = ",\"usage\":{\"prompt_tokens\":5,\"total_tokens\":%d,\"completion_tokens\":%d}}";
    RecordingObserver r = allSplits(DIALECT, sse(
        chunk("{\"role\":\"assistant\",\"content\":\"\"}").replaceFirst("}$", "") + String.format(u, 5, 0),
        chunk("{\"content\":\"Hel\"}").replaceFirst("}$", "") + String.format(u, 6, 1),
        chunk("{\"content\":\"lo there\"}").replaceFirst("}$", "") + String.format(u, 8, 3),
        "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]" + String.format(u, 8, 3),
        "{\"choices\":[]" + String.format(u, 8, 3),
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(ROLE, CONTENT, CONTENT, EMPTY, USAGE);
    assertThat(r.tokens()).containsExactly(0, 1, 2, 0, 0);
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(5).completionTokens(3).totalTokens(8).build());
  }

  @Test
  void singleUsageReportGivesNoPerChunkTokens() {
    RecordingObserver r = allSplits(DIALECT, fixture("vllm-chat-stream-usage.txt"));
    assertThat(r.tokens()).allMatch(t -> t == UNKNOWN_TOKENS);
  }

  @Test
  void usageAcceptsAnyKeyOrderNullsAndCachedTokens() {
    RecordingObserver r = allSplits(DIALECT, sse(
        "{\"choices\":[],\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":32,\"audio_tokens\":null},"
            + "\"total_tokens\":null,\"completion_tokens\":7,\"completion_tokens_details\":"
            + "{\"reasoning_tokens\":3},\"prompt_tokens\":40}}",
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(USAGE);
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(40).completionTokens(7).reasoningTokens(3)
        .cachedPromptTokens(32).build());
  }

  // ---- errors and ends ----

  @Test
  void errorObjectInDataFailsWithItsTypeAndMessage() {
    RecordingObserver r = allSplits(DIALECT, sse(
        chunk("{\"content\":\"a\"}"),
        "{\"error\":{\"message\":\"Input validation error\",\"http_status_code\":422}}",
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo("Input validation error");
  }

  @Test
  void errorStringInDataFails() {
    RecordingObserver r = allSplits(DIALECT, sse("{\"error\":\"model overloaded\"}"));
    assertThat(r.chunks).isEmpty();
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo("model overloaded");
  }

  @Test
  void nullErrorKeyIsNotAFailure() {
    RecordingObserver r = allSplits(DIALECT, sse(chunk("{\"content\":\"a\"}").replaceFirst("}$", ",\"error\":null}"),
        "[DONE]"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.completed()).isTrue();
  }

  @Test
  void errorEventTypeFails() {
    RecordingObserver r = allSplits(DIALECT, utf8("event: error\ndata: {\"message\":\"run failed\"}\n\n"));
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo("run failed");
  }

  @Test
  void llamaCppNonStandardErrorFieldIsAStreamError() {
    RecordingObserver r = allSplits(DIALECT, utf8(
        "data: " + chunk("{\"content\":\"a\"}") + "\n\n"
            + "error: {\"code\":500,\"message\":\"context shift is disabled\",\"type\":\"server_error\"}\n\n"
            + "data: [DONE]\n\n"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo("server_error: context shift is disabled");
    assertThat(r.completed()).isFalse();
  }

  @Test
  void invalidJsonIsAMalformedStreamAndStopsParsing() {
    RecordingObserver r = allSplits(DIALECT, sse(chunk("{\"content\":\"a\"}"), "{\"choices\":[{\"delta\":}]}",
        chunk("{\"content\":\"b\"}"), "[DONE]"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().message()).startsWith("invalid JSON in event: unexpected '}', expected a value");
  }

  @Test
  void trailingGarbageAfterTheJsonIsAMalformedStream() {
    RecordingObserver r = allSplits(DIALECT, sse(chunk("{\"content\":\"a\"}") + "}", "[DONE]"));
    assertThat(r.chunks).isEmpty();
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
  }

  @Test
  void eofWithoutDoneAfterAFinishReasonCompletesAtEof() {
    byte[] body = sse(chunk("{\"content\":\"a\"}"),
        "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
    RecordingObserver r = allSplits(DIALECT, body);
    assertThat(r.completed()).isTrue();
    assertThat(r.completedAt()).isEqualTo(body.length + 1L);
  }

  @Test
  void eofWithoutDoneOrFinishReasonIsAMalformedStream() {
    byte[] body = sse(chunk("{\"content\":\"a\"}"));
    RecordingObserver r = allSplits(DIALECT, body);
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().message()).isEqualTo("stream ended before [DONE]");
    assertThat(r.failedAt()).isEqualTo(body.length + 1L);
  }

  @Test
  void emptyBodyIsAMalformedStream() {
    RecordingObserver r = allSplits(DIALECT, new byte[0]);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
  }

  @Test
  void anythingAfterDoneIsIgnored() {
    RecordingObserver r = allSplits(DIALECT, sse(chunk("{\"content\":\"a\"}"), "[DONE]", chunk("{\"content\":\"b\"}"),
        "not json"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.completed()).isTrue();
    assertThat(r.failure()).isNull();
  }

  @Test
  void keepAliveCommentsAndWhitespaceOnlyDataProduceNothing() {
    RecordingObserver r = allSplits(DIALECT, utf8(": ping\n\n:\n\ndata:  \n\ndata: " + chunk("{\"content\":\"a\"}")
        + "\n\n: keep-alive\n\ndata: [DONE]\n\n"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.completed()).isTrue();
  }

  @Test
  void axum06DataWithoutSpaceParsesTheSame() {
    RecordingObserver r = allSplits(DIALECT, utf8("data:" + chunk("{\"content\":\"a\"}") + "\n\ndata:[DONE]\n\n"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.completed()).isTrue();
  }
  // ---- usage carried per choice ----

  private static String completionChunk(int index, String text, String finish, String usage) {
    return "{\"id\":\"\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\","
        + "\"system_fingerprint\":\"3.0\",\"choices\":[{\"index\":" + index + ",\"text\":\"" + text
        + "\",\"logprobs\":null,\"finish_reason\":\"" + finish + "\"}]" + (usage == null ? "" : ",\"usage\":" + usage)
        + "}";
  }

  @Test
  void perPromptUsageOfSeveralPromptsIsSummed() {
    // TGI's legacy completions with two prompts: chunks interleave by choice index, and each
    // prompt's final chunk carries its own usage; there is no request-wide usage chunk.
    RecordingObserver r = allSplits(DIALECT, sse(
        completionChunk(0, " a", "", null),
        completionChunk(1, " b", "", null),
        completionChunk(0, " c", "length",
            "{\"prompt_tokens\":3,\"completion_tokens\":10,\"total_tokens\":13}"),
        completionChunk(1, " d", "eos_token",
            "{\"prompt_tokens\":19,\"completion_tokens\":30,\"total_tokens\":49}"),
        "[DONE]"));
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(22).completionTokens(40).totalTokens(62).build());
    assertThat(r.tokens()).containsOnly(UNKNOWN_TOKENS); // usage on final chunks only says nothing per chunk
    assertThat(r.completed()).isTrue();
  }

  private static String choiceChunk(int index, String text, int completion) {
    return "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":" + index
        + ",\"delta\":{\"content\":\"" + text + "\"},\"finish_reason\":null}],\"usage\":{\"prompt_tokens\":5,"
        + "\"total_tokens\":" + (5 + completion) + ",\"completion_tokens\":" + completion + "}}";
  }

  @Test
  void continuousUsageWithTwoChoicesCountsEachChunkAgainstItsOwnChoice() {
    // vLLM with n=2 and continuous_usage_stats: each chunk's usage is its own choice's running count.
    RecordingObserver r = allSplits(DIALECT, sse(
        choiceChunk(0, "a", 1), choiceChunk(1, "b", 1), choiceChunk(0, "c", 3), choiceChunk(1, "d", 2),
        "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,"
            + "\"total_tokens\":10,\"completion_tokens\":5}}",
        "[DONE]"));
    assertThat(r.tokens()).containsExactly(1, 1, 2, 1, 0);
    // The request-wide usage chunk is the server's own total (the prompt counted once).
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(5).completionTokens(5).totalTokens(10).build());
  }
}
