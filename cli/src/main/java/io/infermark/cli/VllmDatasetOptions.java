package io.infermark.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The dataset flags of vLLM's current client ({@code vllm/benchmarks/datasets/arg_utils.py}), for the datasets
 * {@link VllmDatasets} builds: custom, prefix_repetition, sonnet, burstgpt, spec_bench, txt-slices, random-mm,
 * hf from a local file and timed_trace ({@link VllmTimedTrace}). Flags that only steer loading from the Hugging Face hub or pooling benchmarks are
 * accepted; docs/cli.md says what each does here.
 */
final class VllmDatasetOptions {

  @Option(names = "--no-stream", description = "vLLM: load a hub dataset without streaming. Accepted; nothing is "
      + "streamed from a hub here.")
  boolean noStream;

  @Option(names = "--no-oversample", description = "Do not repeat rows when the dataset has fewer than "
      + "--num-prompts: the run sends each row once (fewer requests), as vLLM.")
  boolean noOversample;

  @Option(names = "--skip-chat-template", description = "vLLM: do not render the chat template client-side. "
      + "Accepted; infermark never renders one (the server does).")
  boolean skipChatTemplate;

  @Option(names = "--disable-shuffle", description = "Keep the dataset's order (sharegpt, custom, hf, spec_bench, "
      + "burstgpt, prefix_repetition are shuffled by --seed otherwise, as in vLLM).")
  boolean disableShuffle;

  @Option(names = "--custom-output-len", defaultValue = "256", description = "Output tokens per custom prompt "
      + "(default: ${DEFAULT-VALUE}).")
  int customOutputLen;

  @Option(names = "--spec-bench-output-len", defaultValue = "256", description = "Output tokens per spec_bench "
      + "prompt (default: ${DEFAULT-VALUE}).")
  int specBenchOutputLen;

  @Option(names = "--spec-bench-category", description = "Only this spec_bench category.")
  String specBenchCategory;

  @Option(names = "--sonnet-input-len", defaultValue = "550", description = "Input tokens per sonnet prompt "
      + "(default: ${DEFAULT-VALUE}).")
  int sonnetInputLen;

  @Option(names = "--sonnet-output-len", defaultValue = "150", description = "Output tokens per sonnet prompt "
      + "(default: ${DEFAULT-VALUE}).")
  int sonnetOutputLen;

  @Option(names = "--sonnet-prefix-len", defaultValue = "200", description = "Shared prefix tokens of the sonnet "
      + "prompts (default: ${DEFAULT-VALUE}).")
  int sonnetPrefixLen;

  @Option(names = "--blazedit-min-distance", defaultValue = "0.0", description = "vLLM's Blazedit hub dataset "
      + "filter. Accepted; the local hf reader does not filter by edit distance.")
  double blazeditMinDistance;

  @Option(names = "--blazedit-max-distance", defaultValue = "1.0", description = "See --blazedit-min-distance.")
  double blazeditMaxDistance;

  @Option(names = "--random-batch-size", defaultValue = "1", description = "vLLM: inputs per embeddings request. "
      + "Only 1 (generation benchmarks).")
  int randomBatchSize;

  @Option(names = "--no-reranker", description = "vLLM: reranker benchmarks only. Accepted; no effect here.")
  boolean noReranker;

  @Option(names = "--random-mm-base-items-per-request", defaultValue = "1",
      description = "Images per random-mm request (default: ${DEFAULT-VALUE}).")
  int randomMmBaseItems;

  @Option(names = "--random-mm-num-mm-items-range-ratio", defaultValue = "0.0",
      description = "Items per request uniform in [floor(n(1-r)), ceil(n(1+r))] (default: ${DEFAULT-VALUE}).")
  double randomMmItemsRangeRatio;

  @Option(names = "--random-mm-limit-mm-per-prompt", defaultValue = "{\"image\": 255, \"video\": 0}",
      paramLabel = "JSON", description = "Per-modality caps (default: ${DEFAULT-VALUE}).")
  String randomMmLimit;

  @Option(names = "--random-mm-bucket-config", paramLabel = "DICT",
      defaultValue = "{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}",
      description = "Image sizes (height, width, frames) and their probabilities (default: ${DEFAULT-VALUE}).")
  String randomMmBuckets;

  @Option(names = "--hf-subset", description = "vLLM: subset of a hub dataset. Accepted; local files have none.")
  String hfSubset;

  @Option(names = "--hf-split", description = "vLLM: split of a hub dataset. Accepted; local files have none.")
  String hfSplit;

  @Option(names = "--hf-name", description = "The hub name of the local dataset file (--dataset-path), e.g. "
      + "likaixin/InstructCoder; picks its prompt column.")
  String hfName;

  @Option(names = "--hf-output-len", description = "Output tokens per hf prompt (default: the reply's length, or 256).")
  Integer hfOutputLen;

  @Option(names = "--prefix-repetition-prefix-len", defaultValue = "256", description = "Prefix tokens (default: "
      + "${DEFAULT-VALUE}).")
  int prefixRepetitionPrefixLen;

  @Option(names = "--prefix-repetition-suffix-len", defaultValue = "256", description = "Suffix tokens (default: "
      + "${DEFAULT-VALUE}).")
  int prefixRepetitionSuffixLen;

  @Option(names = "--prefix-repetition-num-prefixes", defaultValue = "10", description = "Distinct prefixes "
      + "(default: ${DEFAULT-VALUE}).")
  int prefixRepetitionNumPrefixes;

  @Option(names = "--prefix-repetition-output-len", defaultValue = "128", description = "Output tokens (default: "
      + "${DEFAULT-VALUE}).")
  int prefixRepetitionOutputLen;

  @Option(names = "--enable-multimodal-chat", hidden = true, description = "Refused: see docs/cli.md.")
  boolean enableMultimodalChat;

  @Option(names = "--custom-ensure-client-side-data", hidden = true, description = "Refused: see docs/cli.md.")
  boolean customEnsureClientSideData;

  @Option(names = "--timed-trace-chunk-hash-size", defaultValue = "16", paramLabel = "TOKENS",
      description = "timed_trace: tokens per hash id, one block of the prompt (default: ${DEFAULT-VALUE}, vLLM's; "
          + "Mooncake traces use 512).")
  int timedTraceChunkHashSize;

  @Option(names = "--timed-trace-sec-multiplier", defaultValue = "1", paramLabel = "X",
      description = "timed_trace: seconds per timestamp unit, e.g. 0.001 for milliseconds (Mooncake) (default: "
          + "${DEFAULT-VALUE}).")
  double timedTraceSecMultiplier;

  @Option(names = "--timed-trace-label-timestamp", defaultValue = "timestamp", paramLabel = "FIELD",
      description = "timed_trace: the field holding each line's timestamp (default: ${DEFAULT-VALUE}).")
  String timedTraceLabelTimestamp;

  @Option(names = "--timed-trace-label-input-length", defaultValue = "input_length", paramLabel = "FIELD",
      description = "timed_trace: the field holding the input tokens (default: ${DEFAULT-VALUE}).")
  String timedTraceLabelInputLength;

  @Option(names = "--timed-trace-label-output-length", defaultValue = "output_length", paramLabel = "FIELD",
      description = "timed_trace: the field holding the output tokens (default: ${DEFAULT-VALUE}).")
  String timedTraceLabelOutputLength;

  @Option(names = "--timed-trace-label-hash-ids", defaultValue = "hash_ids", paramLabel = "FIELD",
      description = "timed_trace: the field holding the block hash ids (default: ${DEFAULT-VALUE}).")
  String timedTraceLabelHashIds;

  @Option(names = {"--asr-max-audio-len-sec", "--asr-min-audio-len-sec"}, hidden = true,
      description = "Refused: see docs/cli.md.")
  List<String> asr = new ArrayList<>();

  @Option(names = "--bfcl-categories", hidden = true, description = "Refused: see docs/cli.md.")
  String bfclCategories;

  @Option(names = {"--speed-bench-dataset-subset", "--speed-bench-output-len", "--speed-bench-category"}, hidden = true,
      description = "Refused: see docs/cli.md.")
  List<String> speedBench = new ArrayList<>();

  /**
   * Refuses vLLM's flags whose datasets or transformations do not exist here, each with its reason (never "Unknown
   * option").
   */
  void refuseUnsupported() {
    if (!asr.isEmpty()) {
      throw new IllegalArgumentException("--asr-max-audio-len-sec/--asr-min-audio-len-sec filter vLLM's audio "
          + "transcription datasets (openai-audio backend); infermark benchmarks text generation streams");
    }
    if (bfclCategories != null) {
      throw new IllegalArgumentException("--bfcl-categories selects BFCL files downloaded from the Hugging Face hub; "
          + "infermark downloads nothing: export the rows to JSONL and use --dataset-name jsonl or custom");
    }
    if (!speedBench.isEmpty()) {
      throw new IllegalArgumentException("the --speed-bench-* flags steer --dataset-name speed_bench, which is not "
          + "supported (its prompts are rendered with the model's chat template on the client)");
    }
    if (enableMultimodalChat) {
      throw new IllegalArgumentException("--enable-multimodal-chat turns hub vision/audio datasets into multimodal "
          + "chat; infermark reads text datasets (random-mm sends images as chat content by itself)");
    }
    if (customEnsureClientSideData) {
      throw new IllegalArgumentException("--custom-ensure-client-side-data inlines the media of custom_image "
          + "datasets; infermark's custom dataset is text only");
    }
  }
}
