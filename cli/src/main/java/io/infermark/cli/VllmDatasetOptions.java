package io.infermark.cli;

import picocli.CommandLine.Option;

/**
 * The dataset flags of vLLM's current client ({@code vllm/benchmarks/datasets/arg_utils.py}), for the datasets
 * {@link VllmDatasets} builds: custom, prefix_repetition, sonnet, burstgpt, spec_bench, txt-slices, random-mm and
 * hf from a local file. Flags that only steer loading from the Hugging Face hub or pooling benchmarks are
 * accepted; docs/cli.md says what each does here.
 */
final class VllmDatasetOptions {

  @Option(names = "--no-stream", description = "vLLM: load a hub dataset without streaming. Accepted; nothing is "
      + "streamed from a hub here.")
  boolean noStream;

  @Option(names = "--no-oversample", description = "Do not repeat rows when the dataset has fewer than "
      + "--num-prompts: the run sends each row once.")
  boolean noOversample;

  @Option(names = "--skip-chat-template", description = "vLLM: do not render the chat template client-side. "
      + "Accepted; infermark never renders one (the server does).")
  boolean skipChatTemplate;

  @Option(names = "--disable-shuffle", description = "Keep the dataset's order (custom, hf, spec_bench, burstgpt, "
      + "prefix_repetition are shuffled by --seed otherwise, as in vLLM).")
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
}
