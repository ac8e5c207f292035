package io.infermark.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileWorkloadsTest {

  @TempDir
  Path dir;

  private static final String MOONCAKE = """
      {"timestamp": 0, "input_length": 1200, "output_length": 10, "hash_ids": [1, 2, 3]}
      {"timestamp": 250, "input_length": 1100, "output_length": 20, "hash_ids": [1, 2, 9]}
      {"timestamp": 250, "input_length": 300, "output_length": 5, "hash_ids": [7]}
      {"timestamp": 1000, "input_length": 600, "output_length": 5}
      """;

  @Test
  void traceReplaysTimestampsAtTheSpeedFactor() {
    Trace trace = Trace.parse(new StringReader(MOONCAKE), "t.jsonl");
    assertThat(trace.arrivals(1).schedule(100, Long.MAX_VALUE, 0))
        .containsExactly(0L, 250_000_000L, 250_000_000L, 1_000_000_000L);
    assertThat(trace.arrivals(2).schedule(100, Long.MAX_VALUE, 0))
        .containsExactly(0L, 125_000_000L, 125_000_000L, 500_000_000L);
    assertThat(trace.arrivals(2).nominalRate()).hasValue(6.0); // 3 gaps in 1 s, twice as fast
  }

  @Test
  void traceRequestsShareTextForSharedHashBlocksAndAskForTheOutputLength() {
    Trace trace = Trace.parse(new StringReader(MOONCAKE), "t.jsonl");
    Workload w = trace.workload();
    RequestSpec a = w.request(0, 0, GenerationParams.defaults());
    RequestSpec b = w.request(1, 0, GenerationParams.defaults());
    TokenCounter estimate = TokenCounter.estimate();
    assertThat(estimate.count(a.prompt())).isEqualTo(1200);
    assertThat(estimate.count(b.prompt())).isEqualTo(1100);
    assertThat(a.params().maxTokens()).hasValue(10);
    assertThat(a.params().ignoreEos()).isTrue();
    // Blocks 1 and 2 (1024 words) are common; block 3 vs 9 differ.
    String shared = SyntheticText.words(io.infermark.core.load.Randoms.mix(0, 1), 512) + " "
        + SyntheticText.words(io.infermark.core.load.Randoms.mix(0, 2), 512);
    assertThat(a.prompt().text()).startsWith(shared);
    assertThat(b.prompt().text()).startsWith(shared);
    assertThat(a.prompt().text().substring(shared.length())).isNotEqualTo(b.prompt().text().substring(shared.length()));
    assertThat(b.prompt().tags()).containsEntry(WorkloadTags.TRACE_LINE, "2")
        .containsEntry(WorkloadTags.OUTPUT_TOKENS_REQUESTED, "20");
  }

  @Test
  void badTracesFailNamingTheLine() {
    assertThatThrownBy(() -> Trace.parse(new StringReader("""
        {"timestamp": 10, "input_length": 5, "output_length": 5}
        {"timestamp": 9, "input_length": 5, "output_length": 5}
        """), "t.jsonl")).hasMessageContaining("t.jsonl line 2: timestamp 9 is earlier than the previous line's 10");
    assertThatThrownBy(() -> Trace.parse(new StringReader("\n\n"), "empty.jsonl"))
        .hasMessageContaining("empty.jsonl has no requests");
    assertThatThrownBy(() -> Trace.parse(new StringReader("{\"timestamp\": 1, \"output_length\": 5}"), "t"))
        .hasMessageContaining("t line 1: 'input_length' is missing");
    assertThatThrownBy(() -> Trace.parse(new StringReader("{oops"), "t"))
        .hasMessageContaining("t line 1 is not valid JSON");
    String zeroInput = "{\"timestamp\": 1, \"input_length\": 0, \"output_length\": 5}";
    assertThatThrownBy(() -> Trace.parse(new StringReader(zeroInput), "t"))
        .hasMessageContaining("input_length must be >= 1");
    assertThatThrownBy(() -> Trace.parse(new StringReader(MOONCAKE), "t").arrivals(0)).hasMessageContaining("speed");
  }

  @Test
  void jsonlDatasetReadsPromptsMessagesOutputLengthsAndTags() throws IOException {
    Path file = dir.resolve("d.jsonl");
    Files.writeString(file, """
        {"prompt": "What is TTFT?", "output_tokens": 32, "category": "qa"}

        {"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]}
        """);
    Dataset d = Dataset.jsonl(file);
    assertThat(d.entries()).hasSize(2);
    RequestSpec first = d.request(0, 0, GenerationParams.defaults());
    assertThat(first.prompt().text()).isEqualTo("What is TTFT?");
    assertThat(first.prompt().tags()).containsEntry("category", "qa");
    assertThat(first.params().maxTokens()).hasValue(32);
    RequestSpec second = d.request(1, 0, GenerationParams.defaults());
    assertThat(second.prompt().messages()).hasSize(2);
    assertThat(second.params()).isEqualTo(GenerationParams.defaults());
    assertThat(d.request(2, 0, GenerationParams.defaults()).prompt()).isEqualTo(first.prompt());
  }

  @Test
  void badDatasetsFailWithTheFileAndRow() throws IOException {
    Path empty = dir.resolve("empty.jsonl");
    Files.writeString(empty, "\n");
    assertThatThrownBy(() -> Dataset.jsonl(empty)).hasMessageContaining("empty.jsonl has no usable rows");
    Path bad = dir.resolve("bad.jsonl");
    Files.writeString(bad, "{\"prompt\": \"ok\"}\n{\"text\": \"no prompt\"}\n");
    assertThatThrownBy(() -> Dataset.jsonl(bad))
        .hasMessageContaining("bad.jsonl line 2 has neither 'prompt' nor 'messages'");
    Path badLength = dir.resolve("len.jsonl");
    Files.writeString(badLength, "{\"prompt\": \"ok\", \"output_tokens\": 0}\n");
    assertThatThrownBy(() -> Dataset.jsonl(badLength)).hasMessageContaining("'output_tokens' must be an integer >= 1");
    assertThatThrownBy(() -> Dataset.of(java.util.List.of())).hasMessageContaining("no usable rows");
  }

  @Test
  void shareGptTakesTheFirstHumanTurnAndItsReplyLength() throws IOException {
    Path file = dir.resolve("sg.json");
    Files.writeString(file, """
        [
          {"id": "a", "conversations": [{"from": "human", "value": "Tell me a joke"},
                                        {"from": "gpt", "value": "Why did the chicken cross the road?"}]},
          {"id": "b", "conversations": [{"from": "human", "value": "only a question"}]},
          {"id": "c", "conversations": [{"from": "system", "value": "x"}, {"from": "human", "value": "Hi"},
                                        {"from": "gpt", "value": "Hello there"}]}
        ]
        """);
    Dataset d = Dataset.shareGpt(file, TokenCounter.estimate());
    assertThat(d.entries()).extracting(e -> e.prompt().text()).containsExactly("Tell me a joke", "Hi");
    assertThat(d.entries().get(0).outputTokens()).hasValue(9); // 7 words + "?" ... by the estimate
    assertThat(d.entries().get(1).outputTokens()).hasValue(2);
    Path none = dir.resolve("none.json");
    Files.writeString(none, "[{\"conversations\": []}]");
    assertThatThrownBy(() -> Dataset.shareGpt(none, TokenCounter.estimate()))
        .hasMessageContaining("no ShareGPT conversation has a human turn");
    Path notArray = dir.resolve("obj.json");
    Files.writeString(notArray, "{}");
    assertThatThrownBy(() -> Dataset.shareGpt(notArray, TokenCounter.estimate()))
        .hasMessageContaining("expected a JSON array");
  }

  @Test
  void sharedPrefixGroupsShareTheirPrefixExactly() {
    SharedPrefix w = SharedPrefix.of(3, 200, 20);
    Prompt a = w.request(1, 0, GenerationParams.defaults()).prompt();
    Prompt b = w.request(4, 0, GenerationParams.defaults()).prompt();
    Prompt c = w.request(2, 0, GenerationParams.defaults()).prompt();
    String prefixA = a.text().substring(0, a.text().lastIndexOf(' ', a.text().length() - 1));
    assertThat(TokenCounter.estimate().count(a)).isEqualTo(220);
    String groupPrefix = SyntheticText.exactly(TokenCounter.estimate(), 200, io.infermark.core.load.Randoms.mix(0, 1));
    assertThat(a.text()).startsWith(groupPrefix);
    assertThat(b.text()).startsWith(groupPrefix).isNotEqualTo(a.text());
    assertThat(c.text()).doesNotStartWith(groupPrefix);
    assertThat(a.tags()).containsEntry(WorkloadTags.PREFIX_GROUP, "1");
    assertThat(prefixA).isNotEmpty();
  }

  @Test
  void withInputCountsRecordsEachPromptsClientCountAndKeepsOneAlreadyThere(@TempDir Path tmp) throws IOException {
    Path file = tmp.resolve("d.jsonl");
    Files.writeString(file, "{\"prompt\": \"Hello, world!\"}\n"
        + "{\"messages\": [{\"role\": \"system\", \"content\": \"the of\"}, {\"role\": \"user\", \"content\": \"and\"}]}\n"
        + "{\"prompt\": \"x\", \"input_tokens_achieved\": \"9\"}\n");
    Dataset d = Dataset.jsonl(file).withInputCounts(TokenCounter.openAi("cl100k_base"));

    assertThat(d.entries()).extracting(e -> e.prompt().tags().get(WorkloadTags.INPUT_TOKENS_ACHIEVED))
        .containsExactly("4", "3", "9");
    assertThat(d.entries().get(0).prompt().tags()).containsEntry(WorkloadTags.TOKENIZER, "cl100k_base");
  }
}
