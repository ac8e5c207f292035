package io.infermark.core.stream;

import static io.infermark.core.capture.ChunkKind.CONTENT;
import static io.infermark.core.capture.ChunkKind.EMPTY;
import static io.infermark.core.capture.ChunkKind.REASONING;
import static io.infermark.core.capture.ChunkKind.TOOL_CALL;
import static io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS;
import static io.infermark.core.stream.Feeding.allSplits;
import static io.infermark.core.stream.Feeding.fixture;
import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Usage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OllamaDialectTest {

  private static final StreamDialect DIALECT = StreamDialect.OLLAMA_NDJSON;

  private static final String FINAL_GENERATE = "{\"model\":\"llama3.2\",\"created_at\":\"2025-10-26T17:15:24.2Z\","
      + "\"response\":\"\",\"done\":true,\"done_reason\":\"length\",\"context\":[1,2,3],"
      + "\"total_duration\":4883583458,\"load_duration\":1334875,\"prompt_eval_count\":26,"
      + "\"prompt_eval_duration\":342546000,\"eval_count\":282,\"eval_duration\":4535599000}";

  @Test
  void generateDocsStreamConcatenatesResponsesAndCompletesOnTheDoneLine() {
    byte[] body = fixture("ollama-generate-ndjson-docs.txt");
    assertThat(new String(body, StandardCharsets.UTF_8).lines().count()).isEqualTo(7);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(CONTENT, CONTENT, CONTENT, CONTENT, CONTENT, CONTENT, CONTENT);
    assertThat(r.tokens()).allMatch(t -> t == UNKNOWN_TOKENS);
    assertThat(r.content()).isEqualTo("That's a fantastic question!");
    assertThat(r.finishReasons).containsExactly("stop");
    assertThat(r.usages).isEmpty(); // the docs abbreviate the final line's metrics
    assertThat(r.serverTimings).isEmpty();
    assertThat(r.completed()).isTrue();
    assertThat(r.completedAt()).isEqualTo(lineEnds(body).get(6));
    assertThat(r.chunkTimes()).isEqualTo(lineEnds(body));
  }

  @Test
  void finalLineReportsUsageDurationsAndDoneReason() {
    byte[] body = utf8("{\"model\":\"m\",\"response\":\"Hi\",\"done\":false}\n" + FINAL_GENERATE + "\n");
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(CONTENT, EMPTY);
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(26).completionTokens(282).build());
    assertThat(r.serverTimings).containsEntry("total_duration", List.of(4883583458.0))
        .containsEntry("load_duration", List.of(1334875.0))
        .containsEntry("prompt_eval_duration", List.of(342546000.0))
        .containsEntry("eval_duration", List.of(4535599000.0))
        .hasSize(4);
    assertThat(r.finishReasons).containsExactly("length");
    assertThat(r.untimedCalls).endsWith("complete");
  }

  @Test
  void chatThinkingIsReasoningAndToolCallsAreToolCalls() {
    byte[] body = utf8(
        "{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Hmm\"},\"done\":false}\n"
            + "{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":"
            + "\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}}]},\"done\":false}\n"
            + "{\"message\":{\"role\":\"assistant\",\"content\":\"\\u003cb\\u003e ok\"},\"done\":false}\n"
            + "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\","
            + "\"prompt_eval_count\":3,\"eval_count\":4}\n");
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(REASONING, TOOL_CALL, CONTENT, EMPTY);
    assertThat(r.reasoning()).isEqualTo("Hmm");
    assertThat(r.content()).isEqualTo("<b> ok");
    assertThat(r.toolFragments).containsExactly(
        new RecordingObserver.ToolFragment(0, "", "get_weather", "{\"city\":\"Paris\"}"));
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(3).completionTokens(4).build());
  }

  /**
   * Ollama sends whole calls with the index inside the function, and reports any arguments value
   * that is not a string as its JSON text; OpenAI's fragments differ (see OpenAiDialectTest).
   */
  @Test
  void toolCallIndexIsInsideTheFunctionAndAnyArgumentsValueIsJsonText() {
    byte[] body = utf8(
        "{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":["
            + "{\"id\":\"c1\",\"index\":7,\"function\":{\"index\":2,\"name\":\"f\",\"arguments\":null}},"
            + "{\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"a\\\":1}\"}},"
            + "{\"function\":{\"arguments\":5}}]},\"done\":false}\n"
            + "{\"response\":\"\",\"done\":true}\n");
    RecordingObserver r = allSplits(DIALECT, body);
    assertThat(r.kinds()).containsExactly(TOOL_CALL, EMPTY);
    assertThat(r.toolFragments).containsExactly(
        new RecordingObserver.ToolFragment(2, "c1", "f", "null"),
        new RecordingObserver.ToolFragment(1, "", "g", "{\"a\":1}"),
        new RecordingObserver.ToolFragment(2, "", "", "5"));
  }

  @Test
  void crlfLineEndingsAndBlankLinesAreTolerated() {
    byte[] body = utf8("\r\n{\"response\":\"a\",\"done\":false}\r\n\r\n\n{\"response\":\"b\",\"done\":true}\r\n");
    RecordingObserver r = allSplits(DIALECT, body);
    assertThat(r.kinds()).containsExactly(CONTENT, CONTENT);
    assertThat(r.content()).isEqualTo("ab");
    assertThat(r.completed()).isTrue();
  }

  @Test
  void lastLineWithoutNewlineIsStillRead() {
    byte[] body = utf8("{\"response\":\"a\",\"done\":false}\n{\"response\":\"\",\"done\":true}");
    RecordingObserver r = allSplits(DIALECT, body);
    assertThat(r.kinds()).containsExactly(CONTENT, EMPTY);
    assertThat(r.completedAt()).isEqualTo(body.length + 1L);
  }

  @Test
  void errorLineIsAStreamError() {
    byte[] body = utf8("{\"response\":\"a\",\"done\":false}\n{\"error\":\"an error was encountered while running"
        + " the model: unexpected EOF\"}\n");
    RecordingObserver r = allSplits(DIALECT, body);
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo("an error was encountered while running the model: unexpected EOF");
  }

  @Test
  void eofBeforeDoneIsAMalformedStream() {
    RecordingObserver r = allSplits(DIALECT, utf8("{\"response\":\"a\",\"done\":false}\n"));
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().message()).isEqualTo("stream ended before the done:true line");
  }

  @Test
  void invalidJsonLineIsAMalformedStream() {
    RecordingObserver r = allSplits(DIALECT, utf8("{\"response\":\"a\",\"done\":false}\n{\"response\":\n"
        + "{\"response\":\"\",\"done\":true}\n"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.completed()).isFalse();
  }

  private static List<Long> lineEnds(byte[] body) {
    List<Long> ends = new ArrayList<>();
    for (int i = 0; i < body.length; i++) {
      if (body[i] == '\n') {
        ends.add(i + 1L);
      }
    }
    return ends;
  }
}
