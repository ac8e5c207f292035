package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * vLLM's current {@code bench serve} flags, one test per family: what each puts on the wire (request bodies and
 * headers as a server received them) or what it does to the run and its result file.
 */
class VllmFlagsTest {

  @TempDir
  Path dir;

  private static final ObjectMapper JSON = new ObjectMapper();

  private List<String> bench(WireCapture server, String... extra) {
    List<String> args = new ArrayList<>(List.of("bench", "--backend", "openai-chat", "--base-url", server.baseUrl(),
        "--model", "m", "--random-input-len", "16", "--random-output-len", "4", "--num-prompts", "4",
        "--max-concurrency", "2", "--progress", "none", "--no-html", "--result-dir", dir.toString(),
        "--result-filename", "r.json"));
    for (int i = 0; i < extra.length; i++) {
      int at = args.indexOf(extra[i]);
      boolean valued = i + 1 < extra.length && !extra[i + 1].startsWith("--");
      if (at >= 0 && valued && at + 1 < args.size() && !args.get(at + 1).startsWith("--")) {
        args.set(at + 1, extra[++i]); // a later value replaces the default above, as a user would edit it
      } else {
        args.add(extra[i]);
      }
    }
    return args;
  }

  private static Outcome run(List<String> args) {
    return InfermarkCliTest.run(args.toArray(String[]::new));
  }

  private JsonNode result(String name) throws IOException {
    return JSON.readTree(dir.resolve(name).toFile());
  }

  @Test
  void samplingParametersExtraBodyLogprobsAndHeadersReachEveryRequest() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server, "--top-p", "0.9", "--top-k", "20", "--min-p", "0.05", "--frequency-penalty", "0.1",
          "--presence-penalty", "0.2", "--repetition-penalty", "1.1", "--extra-body", "{\"top_k\": 5, \"custom\": \"x\"}",
          "--logprobs", "3", "--chat-template-kwargs", "{\"enable_thinking\": false}", "--header", "x-tenant=blue",
          "--output-len", "7"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      List<WireCapture.Received> all = server.received();
      assertThat(all).hasSize(1 + 4); // the test request and the run
      for (WireCapture.Received r : all) {
        JsonNode b = r.body();
        assertThat(b.get("top_p").asDouble()).isEqualTo(0.9);
        assertThat(b.get("top_k").asInt()).as("--extra-body wins over --top-k, as in vLLM").isEqualTo(5);
        assertThat(b.get("min_p").asDouble()).isEqualTo(0.05);
        assertThat(b.get("frequency_penalty").asDouble()).isEqualTo(0.1);
        assertThat(b.get("presence_penalty").asDouble()).isEqualTo(0.2);
        assertThat(b.get("repetition_penalty").asDouble()).isEqualTo(1.1);
        assertThat(b.get("custom").asText()).isEqualTo("x");
        // vLLM's chat requests carry neither logprobs nor chat_template_kwargs (the latter is client-side only)
        assertThat(b.has("logprobs")).isFalse();
        assertThat(b.has("top_logprobs")).isFalse();
        assertThat(b.has("chat_template_kwargs")).isFalse();
        assertThat(b.has("temperature")).as("no --temperature: none sent, as vLLM").isFalse();
        assertThat(b.has("max_tokens")).isFalse();
        assertThat(b.get("max_completion_tokens").asInt()).as("--output-len sets the random output length")
            .isEqualTo(7);
        assertThat(b.get("ignore_eos").asBoolean()).as("vLLM: random prompts ignore EOS").isTrue();
        assertThat(r.header("x-tenant")).isEqualTo("blue");
      }
      assertThat(o.err()).contains("--logprobs: not sent on chat requests", "--chat-template-kwargs: not sent");
      assertThat(o.out()).doesNotContain("blue");
      assertThat(Files.readString(dir.resolve("r.json"))).doesNotContain("blue");
    }
  }

  @Test
  void completionsGetLogprobsAsACount() throws IOException {
    try (WireCapture server = new WireCapture()) {
      List<String> args = bench(server, "--logprobs", "2");
      args.set(args.indexOf("openai-chat"), "openai");
      Outcome o = run(args);

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(server.received()).allSatisfy(r -> {
        assertThat(r.path()).isEqualTo("/v1/completions");
        assertThat(r.body().get("logprobs").asInt()).isEqualTo(2);
        assertThat(r.body().get("repetition_penalty").asDouble()).as("vLLM's completions default").isEqualTo(1.0);
        assertThat(r.body().has("temperature")).isFalse();
      });
    }
  }

  @Test
  void requestIdsAndLoraModulesAreAssignedAsVllmAssignsThem() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server, "--request-id-prefix", "bench-abc-", "--lora-modules", "a", "b",
          "--lora-assignment", "round-robin", "--max-concurrency", "1"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      List<WireCapture.Received> run = server.received().subList(1, 5);
      assertThat(run).extracting(r -> r.header("X-Request-Id"))
          .containsExactly("bench-abc-0", "bench-abc-1", "bench-abc-2", "bench-abc-3");
      assertThat(run).allSatisfy(r -> assertThat(r.headerCount("X-Request-Id")).isEqualTo(1));
      assertThat(run).extracting(r -> r.body().get("model").asText()).containsExactly("a", "b", "a", "b");
    }
  }

  @Test
  void warmupsComeAfterTheTestRequestAndTheReadyCheckWaitsForALoadingServer() throws IOException {
    try (WireCapture loading = new WireCapture(2, List.of())) {
      Outcome o = run(bench(loading, "--num-warmups", "3", "--ready-check-timeout-sec", "30"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).contains("Waiting up to 30 s", "Warming up with 3 requests", "Warmup run completed");
      assertThat(loading.received()).hasSize(2 + 1 + 3 + 4); // two 503s, the test request, warm-ups, the run
      assertThat(result("r.json").get("completed").asInt()).as("warm-ups are not counted").isEqualTo(4);
    }
    try (WireCapture loading = new WireCapture(1, List.of())) {
      Outcome o = run(bench(loading));

      assertThat(o.code()).as("one attempt without --ready-check-timeout-sec").isEqualTo(Infermark.FAILED);
      assertThat(o.err()).contains("the initial test request to ", " failed", "HTTP 503");
    }
  }

  @Test
  void rampUpRaisesTheRateOverTheRequestsAndNamesTheFileAsVllm() throws IOException {
    VllmRampArrivals linear = new VllmRampArrivals("linear", 10, 100, 10, 1.0);
    assertThat(linear.rate(0)).isEqualTo(10);
    assertThat(linear.rate(9)).isEqualTo(100);
    assertThat(linear.rate(3)).isEqualTo(40);
    VllmRampArrivals exponential = new VllmRampArrivals("exponential", 10, 1000, 3, 1.0);
    assertThat(exponential.rate(1)).isCloseTo(100, org.assertj.core.api.Assertions.within(1e-9));
    long[] at = linear.schedule(10, Long.MAX_VALUE, 1);
    assertThat(at).hasSize(10).isSorted();
    assertThat(at[0]).as("the first request waits its own gap, as in vLLM").isPositive();

    try (WireCapture server = new WireCapture()) {
      List<String> args = bench(server, "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "20",
          "--ramp-up-end-rps", "80", "--label", "nightly");
      args.remove("--result-filename");
      args.remove("r.json");
      Outcome o = run(args);

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      Path file;
      try (var files = Files.list(dir)) {
        file = files.filter(f -> f.getFileName().toString().matches("nightly-ramp-up-linear-20qps-80qps-concurrency2-m-"
            + "\\d{8}-\\d{6}\\.json")).findFirst().orElseThrow();
      }
      JsonNode json = JSON.readTree(file.toFile());
      assertThat(json.get("label").asText()).isEqualTo("nightly");
      assertThat(json.get("ramp_up_strategy").asText()).isEqualTo("linear");
      assertThat(json.get("ramp_up_start_rps").asInt()).isEqualTo(20);
      assertThat(json.get("ramp_up_end_rps").asInt()).isEqualTo(80);
      List<Integer> rps = new ArrayList<>();
      json.get("rps_change_events").forEach(e -> rps.add(e.get("rps").asInt()));
      // requests 0..3 at 20, 40, 60, 80 req/s: one event per whole-number rate from 20 to 80
      assertThat(rps).hasSize(61).startsWith(20, 21).endsWith(79, 80);
    }
    assertThat(run(List.of("bench", "--model", "m", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1",
        "--ramp-up-end-rps", "5", "--request-rate", "3")).err()).contains("do not give --request-rate");
  }

  @Test
  void appendResultAddsALinePerRun() throws IOException {
    try (WireCapture server = new WireCapture()) {
      assertThat(run(bench(server, "--append-result")).code()).isZero();
      assertThat(run(bench(server, "--append-result")).code()).isZero();
    }
    List<String> lines = Files.readAllLines(dir.resolve("r.json"));
    assertThat(lines).hasSize(2);
    for (String line : lines) {
      assertThat(JSON.readTree(line).get("completed").asInt()).isEqualTo(4);
    }
  }

  @Test
  void probesRunBesideTheLoadAndAreReportedApart() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server, "--probe-request-rate", "50", "--num-prompts", "20", "--request-rate", "40"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      JsonNode json = result("r.json");
      assertThat(json.get("probe_completed").asInt()).isPositive();
      assertThat(json.get("probe_failed").asInt()).isZero();
      assertThat(json.get("probe_p99_e2el_ms").asDouble()).isBetween(json.get("probe_median_e2el_ms").asDouble(),
          json.get("probe_max_e2el_ms").asDouble());
      assertThat(json.get("completed").asInt()).as("probes are not counted in the run").isEqualTo(20);
      long probes = server.received().stream().filter(r -> maxTokens(r.body()) == 1).count();
      assertThat(probes).isEqualTo(json.get("probe_completed").asLong());
    }
  }

  @Test
  void speculativeDecodingStatisticsComeFromTheServersCountersAcrossTheRun() throws IOException {
    String before = "# HELP x\nvllm:spec_decode_num_drafts_total{model_name=\"m\"} 10\n"
        + "vllm:spec_decode_num_draft_tokens_total{model_name=\"m\"} 40\n"
        + "vllm:spec_decode_num_accepted_tokens_total{model_name=\"m\"} 25\n"
        + "vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name=\"m\",position=\"0\"} 9\n"
        + "vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name=\"m\",position=\"1\"} 7\n";
    String after = before.replace("} 10\n", "} 30\n").replace("} 40\n", "} 120\n").replace("} 25\n", "} 85\n")
        .replace("\"0\"} 9", "\"0\"} 27").replace("\"1\"} 7", "\"1\"} 20");
    try (WireCapture server = new WireCapture(0, List.of(before, after))) {
      Outcome o = run(bench(server));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      JsonNode json = result("r.json");
      // 20 drafts, 80 draft tokens, 60 accepted: 75 %, 1 + 60 / 20 = 4; positions 18 / 20 and 13 / 20
      assertThat(json.get("spec_decode_acceptance_rate").asDouble()).isEqualTo(75.0);
      assertThat(json.get("spec_decode_acceptance_length").asDouble()).isEqualTo(4.0);
      assertThat(json.get("spec_decode_num_drafts").asInt()).isEqualTo(20);
      assertThat(json.get("spec_decode_draft_tokens").asInt()).isEqualTo(80);
      assertThat(json.get("spec_decode_accepted_tokens").asInt()).isEqualTo(60);
      assertThat(json.get("spec_decode_per_position_acceptance_rates")).extracting(JsonNode::asDouble)
          .containsExactly(0.9, 0.65);
    }
    try (WireCapture plain = new WireCapture()) {
      assertThat(run(bench(plain)).code()).isZero();
      assertThat(result("r.json").has("spec_decode_acceptance_rate")).as("no counters, no keys").isFalse();
    }
  }

  @Test
  void withoutATokenizerOnlyE2elGetsStatisticsAndTheTimelineIsWritten() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server, "--skip-tokenizer-init", "--percentile-metrics", "ttft,e2el", "--plot-timeline",
          "--timeline-itl-thresholds", "0,1000"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      JsonNode json = result("r.json");
      assertThat(json.get("tokenizer_id").isNull()).isTrue();
      assertThat(json.has("mean_e2el_ms")).isTrue();
      assertThat(json.has("mean_ttft_ms")).isFalse();
      String timeline = Files.readString(dir.resolve("r.timeline.html"));
      assertThat(timeline).contains("Request timeline", "\"type\":\"timeline\"", "\"itlThresholds\":[0.0,1000.0]",
          "green below 0 ms, orange up to 1000 ms");
      // every gap of this local server is below 1 s and not below 0 ms: one orange segment (class 1) per request
      assertThat(timeline).containsPattern("\\[\\[[0-9.E-]+,[0-9.E-]+,1\\]\\]");
    }
  }

  @Test
  void flagsWithoutMeaningHereAreRefusedWithTheirReason() {
    Map<List<String>, String> refusals = new java.util.LinkedHashMap<>();
    refusals.put(List.of("--use-beam-search"), "--use-beam-search is not supported");
    refusals.put(List.of("--profile"), "--profile is not supported");
    refusals.put(List.of("--self-timed"), "only supported with --dataset-name timed_trace");
    refusals.put(List.of("--dataset-name", "hf", "--dataset-path", "lmarena-ai/VisionArena-Chat"),
        "does not download from the Hugging Face hub");
    refusals.put(List.of("--dataset-name", "random-rerank"), "reranker (pooling) benchmark");
    refusals.put(List.of("--random-batch-size", "4"), "embeddings benchmarks");
    // the newest serve.py's flags that were "Unknown option" before: each refused with its reason
    refusals.put(List.of("--asr-max-audio-len-sec", "30"), "audio transcription");
    refusals.put(List.of("--bfcl-categories", "simple"), "downloaded from the Hugging Face hub");
    refusals.put(List.of("--speed-bench-category", "qa"), "--dataset-name speed_bench");
    refusals.put(List.of("--enable-multimodal-chat"), "multimodal chat");
    refusals.put(List.of("--custom-ensure-client-side-data"), "custom_image");
    refusals.put(List.of("--dataset-name", "custom_image"), "text only");
    refusals.put(List.of("--dataset-name", "speed_bench"), "SPEED-Bench");
    refusals.put(List.of("--num-prompts", "-1"), "generates prompts");
    refusals.forEach((flags, reason) -> {
      List<String> args = new ArrayList<>(List.of("bench", "--base-url", "http://127.0.0.1:1", "--model", "m"));
      args.addAll(flags);
      Outcome o = run(args);
      assertThat(o.code()).as("%s: %s", flags, o.err()).isEqualTo(Infermark.USAGE);
      assertThat(o.err()).as("%s", flags).contains(reason);
      assertThat(o.err().lines().count()).as("one line").isEqualTo(1);
    });
  }

  @Test
  void vllmsDatasetsAreBuiltFromTheirFiles() throws IOException {
    Path custom = Files.writeString(dir.resolve("custom.jsonl"), "{\"prompt\": \"first\"}\n{\"prompt\": \"second\"}\n");
    Path sonnet = Files.writeString(dir.resolve("sonnet.txt"), String.join("\n", java.util.Collections.nCopies(40,
        "Shall I compare thee to a summer's day, thou art more lovely and more temperate")));
    Path burst = Files.writeString(dir.resolve("burst.csv"), "Timestamp,Model,Request tokens,Response tokens,"
        + "Total tokens,Log Type\n0,ChatGPT,10,20,30,Conversation log\n1,GPT-4,12,9,21,Conversation log\n"
        + "2,GPT-4,14,0,14,Conversation log\n");
    Path spec = Files.writeString(dir.resolve("spec.jsonl"), "{\"category\": \"math\", \"turns\": [\"2+2?\"]}\n"
        + "{\"category\": \"coding\", \"turns\": [\"sort a list\"]}\n");
    Path text = Files.writeString(dir.resolve("book.txt"), "It was the best of times it was the worst of times "
        .repeat(50));
    Path hf = Files.writeString(dir.resolve("coder.jsonl"), "{\"instruction\": \"write fizzbuzz\", \"output\": "
        + "\"for i in range(100): pass\"}\n");
    try (WireCapture server = new WireCapture()) {
      Map<String, List<String>> runs = new java.util.LinkedHashMap<>();
      runs.put("custom", List.of("--dataset-path", custom.toString(), "--custom-output-len", "9"));
      runs.put("sonnet", List.of("--dataset-path", sonnet.toString(), "--sonnet-input-len", "120",
          "--sonnet-prefix-len", "60", "--sonnet-output-len", "11"));
      runs.put("burstgpt", List.of("--dataset-path", burst.toString()));
      runs.put("spec_bench", List.of("--dataset-path", spec.toString(), "--spec-bench-category", "coding"));
      runs.put("txt-slices", List.of("--dataset-path", text.toString()));
      runs.put("hf", List.of("--dataset-path", hf.toString(), "--hf-name", "likaixin/InstructCoder",
          "--hf-output-len", "13"));
      runs.put("prefix_repetition", List.of("--prefix-repetition-prefix-len", "8", "--prefix-repetition-suffix-len",
          "4", "--prefix-repetition-num-prefixes", "2", "--prefix-repetition-output-len", "6"));
      runs.put("random-mm", List.of("--random-mm-bucket-config", "{(8, 16, 1): 1.0}",
          "--random-mm-base-items-per-request", "2"));
      for (Map.Entry<String, List<String>> e : runs.entrySet()) {
        int before = server.received().size();
        List<String> args = bench(server, "--dataset-name", e.getKey());
        args.addAll(e.getValue());
        Outcome o = run(args);
        assertThat(o.code()).as("%s: %s", e.getKey(), o.out() + o.err()).isZero();
        List<JsonNode> bodies = server.received().subList(before + 1, server.received().size()).stream()
            .map(WireCapture.Received::body).toList();
        assertThat(bodies).as(e.getKey()).hasSize(4);
        switch (e.getKey()) {
          case "custom" -> assertThat(bodies).allSatisfy(b -> {
            assertThat(maxTokens(b)).isEqualTo(9);
            assertThat(content(b)).isIn("first", "second");
          });
          case "sonnet" -> assertThat(bodies).allSatisfy(b -> {
            assertThat(content(b)).startsWith("Pick as many lines as you can from these poem lines:\nShall I compare");
            assertThat(maxTokens(b)).isEqualTo(11);
          });
          case "burstgpt" -> assertThat(bodies).as("the one GPT-4 row with a response")
              .allSatisfy(b -> assertThat(maxTokens(b)).isEqualTo(9));
          case "spec_bench" -> assertThat(bodies).allSatisfy(b -> assertThat(content(b)).isEqualTo("sort a list"));
          case "txt-slices" -> assertThat(bodies).allSatisfy(b -> assertThat(content(b)).contains("times"));
          case "hf" -> assertThat(bodies).allSatisfy(b -> {
            assertThat(content(b)).isEqualTo("write fizzbuzz");
            assertThat(maxTokens(b)).isEqualTo(13);
          });
          case "prefix_repetition" -> {
            Set<String> prefixes = bodies.stream().map(b -> content(b).substring(0, 12)).collect(Collectors.toSet());
            assertThat(prefixes).as("two shared prefixes").hasSize(2);
            assertThat(bodies).allSatisfy(b -> assertThat(maxTokens(b)).isEqualTo(6));
          }
          default -> assertThat(bodies).allSatisfy(b -> {
            JsonNode parts = b.get("messages").get(0).get("content");
            assertThat(parts).hasSize(3); // the text and two images
            assertThat(parts.get(1).get("image_url").get("url").asText()).startsWith("data:image/jpeg;base64,");
          });
        }
      }
    }
  }

  @Test
  void shareGptIsShuffledBySeedUnlessDisabledAsInVllm() throws IOException {
    StringBuilder file = new StringBuilder("[");
    for (int i = 0; i < 6; i++) {
      file.append(i == 0 ? "" : ",").append("{\"conversations\": [{\"from\": \"human\", \"value\": \"question ")
          .append(i).append("\"}, {\"from\": \"gpt\", \"value\": \"an answer of some words\"}]}");
    }
    Path sharegpt = Files.writeString(dir.resolve("sharegpt.json"), file.append("]").toString());
    List<List<String>> orders = new ArrayList<>();
    try (WireCapture server = new WireCapture()) {
      for (String shuffle : new String[] {"--disable-shuffle", "--seed", "--seed"}) {
        int before = server.received().size();
        List<String> args = bench(server, "--dataset-name", "sharegpt", "--dataset-path", sharegpt.toString(),
            "--num-prompts", "6", "--max-concurrency", "1");
        args.add(shuffle);
        if (shuffle.equals("--seed")) {
          args.add("3");
        }
        assertThat(run(args).code()).isZero();
        orders.add(server.received().subList(before + 1, before + 7).stream().map(r -> content(r.body())).toList());
      }
    }
    try (WireCapture server = new WireCapture()) {
      List<String> args = bench(server, "--dataset-name", "sharegpt", "--dataset-path", sharegpt.toString(),
          "--num-prompts", "10", "--no-oversample");
      Outcome o = run(args);
      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).contains("--no-oversample: the dataset has 6 prompts; sending each once");
      assertThat(result("r.json").get("completed").asInt()).isEqualTo(6);
      assertThat(result("r.json").get("num_prompts").asInt()).isEqualTo(6);
    }
    List<String> fileOrder = List.of("question 0", "question 1", "question 2", "question 3", "question 4",
        "question 5");
    assertThat(orders.get(0)).isEqualTo(fileOrder);
    assertThat(orders.get(1)).containsExactlyInAnyOrderElementsOf(fileOrder).isNotEqualTo(fileOrder);
    assertThat(orders.get(2)).as("the same seed, the same order").isEqualTo(orders.get(1));
  }

  /** A chat message's text: vLLM's client (and infermark's, by default) sends it as a list of content parts. */
  private static String content(JsonNode body) {
    return Optional.ofNullable(body.get("messages")).map(m -> {
      JsonNode c = m.get(0).get("content");
      return c.isArray() ? c.get(0).get("text").asText() : c.asText();
    }).orElseGet(() -> body.get("prompt").asText());
  }

  /** The generation limit: {@code max_completion_tokens} on chat (as vLLM's client), {@code max_tokens} otherwise. */
  private static int maxTokens(JsonNode body) {
    return body.has("max_completion_tokens") ? body.get("max_completion_tokens").asInt()
        : body.get("max_tokens").asInt();
  }
}
