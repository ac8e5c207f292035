package io.infermark.cli;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.Dataset;
import io.infermark.core.workload.DatasetEntry;
import io.infermark.core.workload.ExactLength;
import io.infermark.core.workload.SyntheticText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import picocli.CommandLine.Option;

/**
 * What to send, with {@code vllm bench serve}'s dataset flags and seed 002's {@code --max-tokens} and
 * {@code --temperature}.
 */
final class WorkloadOptions {

  @Option(names = "--dataset-name", defaultValue = "random",
      description = "random (synthetic prompts of exact token lengths, the default), sharegpt (a ShareGPT JSON "
          + "file), jsonl (one {\"prompt\"} or {\"messages\"} object per line, optional \"output_tokens\"), or vLLM's "
          + "custom, prefix_repetition, sonnet, burstgpt, spec_bench, txt-slices, random-mm, hf (a local file), timed_trace "
          + "(a JSONL request trace replayed at its timestamps).")
  String datasetName;

  @Option(names = "--dataset-path", paramLabel = "FILE", description = "The dataset's file (sharegpt, jsonl, a trace, ...).")
  Path datasetPath;

  @Option(names = "--random-input-len", defaultValue = "1024", description = "Input tokens per random prompt (default: ${DEFAULT-VALUE}).")
  int randomInputLen;

  @Option(names = "--random-output-len", defaultValue = "128", description = "Output tokens asked of each random prompt (default: ${DEFAULT-VALUE}).")
  int randomOutputLen;

  @Option(names = "--random-range-ratio", defaultValue = "0.0", paramLabel = "R|JSON",
      description = "Lengths uniform in [len*(1-r), len*(1+r)], r in [0, 1); or vLLM's JSON form "
          + "'{\"input\": 0.3, \"output\": 0.5}' for each length its own (default: ${DEFAULT-VALUE}).")
  String randomRangeRatio;

  @Option(names = "--length-mix", split = ",", paramLabel = "N,N,...",
      description = "Random prompts: input lengths taken in turn instead of --random-input-len, so the run sends "
          + "each an equal share, e.g. 128,1024,4096 for seed 002's short, medium and long contexts (--random-range-"
          + "ratio varies each).")
  List<Integer> lengthMix;

  @Option(names = "--random-prefix-len", defaultValue = "0", description = "Shared prefix tokens before each random prompt (default: ${DEFAULT-VALUE}).")
  int randomPrefixLen;

  @Option(names = "--shared-prefix-ratio", paramLabel = "R",
      description = "Random prompts: the share R in [0, 1] of --random-input-len that is one prefix shared by every "
          + "prompt (the rest each prompt's own); instead of --random-prefix-len. See docs/prefix-cache.md.")
  Double sharedPrefixRatio;

  @Option(names = "--cache-bust", description = "Start every prompt with a segment of its own (a marker drawn per run), "
      + "so the server's prefix cache can reuse nothing: cold prompts. See docs/prefix-cache.md.")
  boolean cacheBust;

  @Option(names = "--sharegpt-output-len", paramLabel = "N", description = "Output tokens for every ShareGPT prompt instead of its reply's length.")
  Integer sharegptOutputLen;

  @Option(names = {"--max-tokens"}, paramLabel = "N", description = "max_tokens of every request (overrides the dataset's output lengths).")
  Integer maxTokens;

  @Option(names = "--temperature", description = "Sampling temperature (default: none sent, the server's own, as "
      + "vLLM's client; --temperature 0 for greedy).")
  Double temperature;

  @Option(names = "--ignore-eos", description = "Ask the server to ignore EOS so it generates exactly max_tokens (vLLM, SGLang).")
  boolean ignoreEos;

  @Option(names = "--tokenizer", paramLabel = "NAME",
      description = "Tokenizer name written to results; prompts are counted with it when it is an OpenAI model or "
          + "encoding JTokkit knows (cl100k_base, o200k_base, gpt-4o), with cl100k_base otherwise.")
  String tokenizer;

  @Option(names = "--seed", defaultValue = "0", description = "Seed of prompts and arrivals (default: ${DEFAULT-VALUE}).")
  long seed;

  /**
   * Why the tokenizer that counts the prompts ({@link #counter()}) is not the model's own, or empty when
   * it is: {@code --tokenizer} named an OpenAI encoding or model JTokkit knows (the user chose it), or,
   * without {@code --tokenizer}, the model is an OpenAI model JTokkit knows. Otherwise the prompts'
   * token lengths are cl100k_base counts of text the model tokenizes its own way.
   */
  java.util.Optional<String> tokenizerWarning(String model) {
    TokenCounter counting = counter();
    if (tokenizer != null) {
      if (resolves(tokenizer)) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of("prompt token lengths are counted with " + counting.name() + ", not with "
          + tokenizer + " (JTokkit has only OpenAI vocabularies): input lengths are approximate for this model; "
          + "the result's tokenizer_id says " + counting.name());
    }
    if (resolves(model) && TokenCounter.openAiModel(model).name().equals(counting.name())) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of("prompt token lengths are counted with " + counting.name() + ", not with "
        + model + "'s own tokenizer: input lengths are approximate for this model (name an OpenAI encoding or "
        + "model with --tokenizer if one matches); the result's tokenizer_id says " + counting.name());
  }

  private static boolean resolves(String name) {
    try {
      TokenCounter.openAi(name);
      return true;
    } catch (RuntimeException notAnEncoding) {
      try {
        TokenCounter.openAiModel(name);
        return true;
      } catch (RuntimeException notAModel) {
        return false;
      }
    }
  }

  @picocli.CommandLine.Mixin
  VllmDatasetOptions vllmData = new VllmDatasetOptions();

  /**
   * vLLM's {@code --input-len} and {@code --output-len}: the general lengths, copied to every dataset's own flag as
   * vLLM's client copies them.
   */
  void generalLengths(Integer inputLen, Integer outputLen) {
    if (inputLen != null) {
      randomInputLen = inputLen;
    }
    if (outputLen != null) {
      randomOutputLen = outputLen;
      sharegptOutputLen = outputLen;
      vllmData.customOutputLen = outputLen;
      vllmData.hfOutputLen = outputLen;
      vllmData.specBenchOutputLen = outputLen;
      vllmData.prefixRepetitionOutputLen = outputLen;
    }
  }

  /** {@code rows} with a unique leading segment per request when {@code --cache-bust} asks for it. */
  io.infermark.core.workload.Workload cacheBust(io.infermark.core.workload.Workload rows) {
    return cacheBust ? io.infermark.core.workload.CacheBust.of(rows, new java.security.SecureRandom().nextLong()) : rows;
  }

  /** The counter prompts are built and measured with. */
  TokenCounter counter() {
    if (tokenizer != null) {
      try {
        return TokenCounter.openAi(tokenizer);
      } catch (RuntimeException notAnEncoding) {
        try {
          return TokenCounter.openAiModel(tokenizer);
        } catch (RuntimeException notAModel) {
          // a Hugging Face name: count with the common OpenAI vocabulary
        }
      }
    }
    return TokenCounter.openAi("cl100k_base");
  }

  /** The parameters every request starts from. */
  GenerationParams params() {
    GenerationParams.Builder b = GenerationParams.builder().ignoreEos(ignoreEos);
    if (temperature != null) {
      b.temperature(temperature);
    }
    if (maxTokens != null) {
      positive("--max-tokens", maxTokens);
      b.maxTokens(maxTokens);
    }
    return b.build();
  }

  /** The rows: {@code prompts} synthetic ones, or the dataset file's. */
  PromptWorkload workload(int prompts) {
    vllmData.refuseUnsupported();
    if (vllmData.randomBatchSize != 1) {
      throw new IllegalArgumentException("--random-batch-size applies to vLLM's embeddings benchmarks; infermark "
          + "benchmarks generation, one input per request");
    }
    if (datasetPath != null && List.of("random", "random-mm", "random-rerank", "prefix_repetition").contains(datasetName)) {
      throw new IllegalArgumentException("--dataset-name " + datasetName + " takes no --dataset-path (as in vLLM): "
          + "name the file's format instead (sharegpt, custom, hf, ...)");
    }
    List<DatasetEntry> rows = switch (datasetName) {
      case "random" -> random(prompts);
      case "sharegpt" -> {
        // input counted by the client too: a server that reports no usage still gets its input tokens counted
        TokenCounter counter = counter();
        Dataset d = Dataset.shareGpt(requirePath(), counter).withInputCounts(counter);
        List<DatasetEntry> conversations = sharegptOutputLen == null ? d.entries() : d.entries().stream()
            .map(e -> new DatasetEntry(e.prompt(), OptionalInt.of(positive("--sharegpt-output-len", sharegptOutputLen))))
            .toList();
        yield VllmDatasets.shuffled(conversations, this); // as vLLM's client, unless --disable-shuffle
      }
      case "jsonl" -> Dataset.jsonl(requirePath()).withInputCounts(counter()).entries();
      default -> VllmDatasets.load(datasetName, this, prompts);
    };
    return new PromptWorkload(rows, maxTokens != null);
  }

  private VllmTimedTrace timedTrace;

  /** The first {@code lines} lines of the {@code timed_trace} file, read once per line count. */
  VllmTimedTrace timedTrace(int lines) {
    if (timedTrace == null || lines != lastTraceLimit) {
      timedTrace = VllmTimedTrace.read(requirePath(), vllmData, lines);
      lastTraceLimit = lines;
    }
    return timedTrace;
  }

  private int lastTraceLimit;

  Path requirePath() {
    if (datasetPath == null) {
      // a flag missing from the command line: a usage error (exit 2), unlike a file that cannot be read (exit 3)
      throw new IllegalArgumentException("--dataset-name " + datasetName + " needs --dataset-path FILE");
    }
    if (!Files.isReadable(datasetPath)) {
      throw new CliException(Infermark.FAILED, "--dataset-path " + datasetPath + " is not a readable file");
    }
    return datasetPath;
  }

  private List<DatasetEntry> random(int prompts) {
    positive("--random-input-len", randomInputLen);
    positive("--random-output-len", randomOutputLen);
    double[] ratio = rangeRatios();
    if (randomPrefixLen < 0) {
      throw new IllegalArgumentException("--random-prefix-len must be >= 0, was " + randomPrefixLen);
    }
    int prefixLen = randomPrefixLen;
    int inputLen = randomInputLen;
    int[] mix = lengthMix == null ? new int[] {randomInputLen}
        : lengthMix.stream().mapToInt(n -> positive("--length-mix", n)).toArray();
    if (sharedPrefixRatio != null && lengthMix != null) {
      throw new IllegalArgumentException("give --length-mix or --shared-prefix-ratio, not both (the ratio is of "
          + "--random-input-len)");
    }
    if (sharedPrefixRatio != null) {
      if (!(sharedPrefixRatio >= 0 && sharedPrefixRatio <= 1)) {
        throw new IllegalArgumentException("--shared-prefix-ratio must be in [0, 1], was " + sharedPrefixRatio);
      }
      if (randomPrefixLen != 0) {
        throw new IllegalArgumentException("give --shared-prefix-ratio or --random-prefix-len, not both");
      }
      int shared = (int) Math.round(sharedPrefixRatio * randomInputLen);
      if (shared == randomInputLen) {
        throw new IllegalArgumentException("--shared-prefix-ratio " + sharedPrefixRatio + " of --random-input-len "
            + randomInputLen + " leaves no token of a prompt's own: use a ratio below 1 or a longer input");
      }
      prefixLen = shared;
      inputLen = randomInputLen - shared;
      mix[0] = inputLen;
    }
    TokenCounter counter = counter();
    SplittableRandom random = new SplittableRandom(seed);
    String prefix = prefixLen == 0 ? "" : SyntheticText.exactly(counter, prefixLen, seed ^ 0x5DEECE66DL) + " ";
    List<DatasetEntry> rows = new ArrayList<>(prompts);
    for (int i = 0; i < prompts; i++) {
      int in = around(random, mix[i % mix.length], ratio[0]);
      int out = around(random, randomOutputLen, ratio[1]);
      String text = prefix + SyntheticText.exactly(counter, in, seed * 1_000_003L + i);
      rows.add(new DatasetEntry(ExactLength.tag(Prompt.user(text), counter, prefixLen + in), OptionalInt.of(out)));
    }
    return rows;
  }

  /** vLLM's range: uniform in [len * (1 - r), len * (1 + r)], at least 1. */
  private static int around(SplittableRandom random, int len, double r) {
    if (r == 0) {
      return len;
    }
    int lo = Math.max(1, (int) (len * (1 - r)));
    int hi = Math.max(lo, (int) (len * (1 + r)));
    return random.nextInt(lo, hi + 1);
  }

  private static int positive(String option, int v) {
    if (v < 1) {
      throw new IllegalArgumentException(option + " must be >= 1, was " + v);
    }
    return v;
  }

  /**
   * {@code --random-range-ratio}: one ratio for both lengths, or vLLM's JSON {@code {"input": r, "output": r}} (a
   * missing key is 0); each in [0, 1).
   */
  double[] rangeRatios() {
    String v = randomRangeRatio.strip();
    double[] r = new double[2];
    if (v.startsWith("{")) {
      com.fasterxml.jackson.databind.JsonNode json;
      try {
        json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(v);
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException("--random-range-ratio is not valid JSON: " + v);
      }
      java.util.Iterator<String> keys = json.fieldNames();
      while (keys.hasNext()) {
        String k = keys.next();
        if (!k.equals("input") && !k.equals("output") || !json.get(k).isNumber()) {
          throw new IllegalArgumentException("--random-range-ratio as JSON takes {\"input\": r, \"output\": r}, was " + v);
        }
      }
      r[0] = json.path("input").asDouble(0);
      r[1] = json.path("output").asDouble(0);
    } else {
      try {
        r[0] = r[1] = Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--random-range-ratio takes a number in [0, 1) or JSON "
            + "{\"input\": r, \"output\": r}, was '" + v + "'");
      }
    }
    for (double x : r) {
      if (!(x >= 0 && x < 1)) {
        throw new IllegalArgumentException("--random-range-ratio must be in [0, 1), was " + v);
      }
    }
    return r;
  }
}
