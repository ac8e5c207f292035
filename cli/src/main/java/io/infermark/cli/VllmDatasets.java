package io.infermark.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.request.ContentPart;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.DatasetEntry;
import io.infermark.core.workload.ExactLength;
import io.infermark.core.workload.SyntheticText;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;

/**
 * The datasets of vLLM's current client beyond random and sharegpt, built as vLLM builds them (token counts with
 * infermark's tokenizer, {@link WorkloadOptions#counter()}): {@code custom} (JSONL of {"prompt"}),
 * {@code prefix_repetition} (shared prefixes), {@code sonnet} (lines of a poem file), {@code burstgpt} (the
 * BurstGPT CSV's GPT-4 request and response lengths), {@code spec_bench} (Spec-Bench JSONL), {@code txt-slices}
 * (token slices of a text file), {@code random-mm} (random text and random-pixel JPEG images) and {@code hf} from a
 * local JSON or JSONL file, and {@code timed_trace} ({@link VllmTimedTrace}). Hub downloads, pooling datasets and
 * audio or image datasets are refused with the reason.
 */
final class VllmDatasets {

  /** Every name {@code --dataset-name} takes, vLLM's and infermark's {@code jsonl}. */
  static final List<String> NAMES = List.of("random", "sharegpt", "jsonl", "custom", "prefix_repetition", "sonnet",
      "burstgpt", "spec_bench", "txt-slices", "random-mm", "hf", "random-rerank", "timed_trace", "custom_audio",
      "custom_image", "speed_bench");

  private static final ObjectMapper JSON = new ObjectMapper();

  private VllmDatasets() {}

  /** The rows of a vLLM dataset other than random and sharegpt. */
  static List<DatasetEntry> load(String name, WorkloadOptions w, int prompts) {
    VllmDatasetOptions o = w.vllmData;
    return switch (name) {
      case "custom" -> shuffled(custom(w.requirePath(), o.customOutputLen), w);
      case "prefix_repetition" -> shuffled(prefixRepetition(w, prompts), w);
      case "sonnet" -> sonnet(w, prompts);
      case "burstgpt" -> burstGpt(w, prompts);
      case "spec_bench" -> shuffled(specBench(w.requirePath(), o), w);
      case "txt-slices" -> txtSlices(w, prompts);
      case "random-mm" -> randomMm(w, prompts);
      case "hf" -> shuffled(hf(w), w);
      case "random-rerank" -> throw new IllegalArgumentException("--dataset-name random-rerank is vLLM's reranker "
          + "(pooling) benchmark; infermark benchmarks generation");
      case "timed_trace" -> w.timedTrace(prompts).rows(w.counter(), w.seed); // in file order, never shuffled
      case "custom_audio", "custom_image" -> throw new IllegalArgumentException("--dataset-name " + name + " sends "
          + "audio or images from a JSONL of media references; infermark's custom dataset is text only");
      case "speed_bench" -> throw new IllegalArgumentException("--dataset-name speed_bench renders NVIDIA's SPEED-Bench "
          + "prompts with the model's chat template on the client; export them as JSONL and use --dataset-name custom");
      default -> throw new IllegalArgumentException("--dataset-name must be one of " + String.join(", ", NAMES)
          + ", was '" + name + "'");
    };
  }

  /** The rows in an order drawn from {@code --seed}, as vLLM's client shuffles them; unchanged with --disable-shuffle. */
  static List<DatasetEntry> shuffled(List<DatasetEntry> rows, WorkloadOptions w) {
    if (w.vllmData.disableShuffle) {
      return rows;
    }
    List<DatasetEntry> copy = new ArrayList<>(rows);
    Collections.shuffle(copy, new Random(w.seed));
    return copy;
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CliException(Infermark.FAILED, "cannot read " + file + ": " + e.getMessage());
    }
  }

  private static JsonNode parse(Path file, String line, int number) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      throw new CliException(Infermark.FAILED, file + " line " + number + " is not JSON: " + e.getMessage());
    }
  }

  /** vLLM's custom dataset: one {"prompt": ...} object per line, every output {@code outputLen} tokens. */
  static List<DatasetEntry> custom(Path file, int outputLen) {
    if (outputLen != -1) { // -1: each row's own length, as vLLM
      positive("--custom-output-len", outputLen);
    }
    List<DatasetEntry> rows = new ArrayList<>();
    int n = 0;
    for (String line : lines(file)) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      JsonNode row = parse(file, line, n);
      if (!row.path("prompt").isTextual()) {
        throw new CliException(Infermark.FAILED, file + " line " + n + " has no \"prompt\" string (the custom "
            + "dataset is JSONL of {\"prompt\": ...})");
      }
      rows.add(new DatasetEntry(Prompt.user(row.path("prompt").asText()), outputLen != -1 ? OptionalInt.of(outputLen)
          : ownLength(row)));
    }
    return nonEmpty(rows, file);
  }

  /** A custom row's own output length ({@code output_tokens} or {@code output_len}); none: the server decides. */
  private static OptionalInt ownLength(JsonNode row) {
    for (String key : new String[] {"output_tokens", "output_len"}) {
      if (row.path(key).canConvertToInt() && row.path(key).asInt() > 0) {
        return OptionalInt.of(row.path(key).asInt());
      }
    }
    return OptionalInt.empty();
  }

  /**
   * vLLM's prefix_repetition: {@code num_prefixes} prefixes of {@code prefix_len} tokens, each followed by
   * {@code prompts / num_prefixes} different suffixes of {@code suffix_len} tokens.
   */
  static List<DatasetEntry> prefixRepetition(WorkloadOptions w, int prompts) {
    VllmDatasetOptions o = w.vllmData;
    positive("--prefix-repetition-prefix-len", o.prefixRepetitionPrefixLen);
    positive("--prefix-repetition-suffix-len", o.prefixRepetitionSuffixLen);
    positive("--prefix-repetition-num-prefixes", o.prefixRepetitionNumPrefixes);
    positive("--prefix-repetition-output-len", o.prefixRepetitionOutputLen);
    TokenCounter counter = w.counter();
    int perPrefix = Math.max(1, prompts / o.prefixRepetitionNumPrefixes);
    List<DatasetEntry> rows = new ArrayList<>();
    for (int p = 0; p < o.prefixRepetitionNumPrefixes; p++) {
      String prefix = SyntheticText.exactly(counter, o.prefixRepetitionPrefixLen, w.seed * 7919 + p);
      for (int s = 0; s < perPrefix; s++) {
        String suffix = SyntheticText.exactly(counter, o.prefixRepetitionSuffixLen, w.seed * 104_729 + p * 1_000_003L + s);
        rows.add(new DatasetEntry(ExactLength.tag(Prompt.user(prefix + " " + suffix).withTag("prefix", Integer.toString(p)),
            counter, o.prefixRepetitionPrefixLen + o.prefixRepetitionSuffixLen), OptionalInt.of(o.prefixRepetitionOutputLen)));
      }
    }
    return rows;
  }

  /**
   * vLLM's sonnet dataset: "Pick as many lines as you can from these poem lines:" followed by the file's first lines
   * up to {@code --sonnet-prefix-len} tokens (shared by every prompt) and random lines up to
   * {@code --sonnet-input-len}; {@code --sonnet-output-len} output tokens.
   */
  static List<DatasetEntry> sonnet(WorkloadOptions w, int prompts) {
    VllmDatasetOptions o = w.vllmData;
    List<String> poem = lines(w.requirePath()).stream().filter(l -> !l.isBlank()).map(l -> l + "\n").toList();
    if (poem.isEmpty()) {
      throw new CliException(Infermark.FAILED, w.datasetPath + " has no lines");
    }
    TokenCounter counter = w.counter();
    String base = "Pick as many lines as you can from these poem lines:\n";
    int baseTokens = counter.count(base);
    if (o.sonnetInputLen <= baseTokens || o.sonnetPrefixLen < baseTokens || o.sonnetPrefixLen > o.sonnetInputLen) {
      throw new IllegalArgumentException("the sonnet lengths need " + baseTokens + " < --sonnet-prefix-len (" 
          + o.sonnetPrefixLen + ") <= --sonnet-input-len (" + o.sonnetInputLen + ")");
    }
    positive("--sonnet-output-len", o.sonnetOutputLen);
    double perLine = poem.stream().mapToInt(counter::count).average().orElse(1);
    int prefixLines = (int) Math.round((o.sonnetPrefixLen - baseTokens) / perLine);
    int inputLines = (int) Math.round((o.sonnetInputLen - baseTokens) / perLine);
    StringBuilder prefix = new StringBuilder(base);
    for (int i = 0; i < prefixLines; i++) {
      prefix.append(poem.get(i % poem.size()));
    }
    SplittableRandom random = new SplittableRandom(w.seed);
    List<DatasetEntry> rows = new ArrayList<>();
    for (int r = 0; r < prompts; r++) {
      StringBuilder text = new StringBuilder(prefix);
      for (int i = prefixLines; i < inputLines; i++) {
        text.append(poem.get(random.nextInt(poem.size())));
      }
      rows.add(new DatasetEntry(Prompt.user(text.toString()), OptionalInt.of(o.sonnetOutputLen)));
    }
    return rows;
  }

  /**
   * vLLM's BurstGPT dataset: rows of the CSV whose Model is GPT-4 and whose response has tokens, sampled with the
   * seed; each prompt has the row's request tokens and asks for its response tokens.
   */
  static List<DatasetEntry> burstGpt(WorkloadOptions w, int prompts) {
    Path file = w.requirePath();
    List<String> lines = lines(file);
    if (lines.isEmpty()) {
      throw new CliException(Infermark.FAILED, file + " is empty");
    }
    List<String> header = List.of(lines.get(0).split(","));
    int model = header.indexOf("Model");
    int request = header.indexOf("Request tokens");
    int response = header.indexOf("Response tokens");
    if (model < 0 || request < 0 || response < 0) {
      throw new CliException(Infermark.FAILED, file + " is not a BurstGPT CSV: it needs the columns Model, Request "
          + "tokens and Response tokens");
    }
    List<int[]> lengths = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      String[] f = lines.get(i).split(",");
      if (f.length <= Math.max(model, Math.max(request, response)) || !f[model].strip().equals("GPT-4")) {
        continue;
      }
      try {
        int in = (int) Double.parseDouble(f[request].strip());
        int out = (int) Double.parseDouble(f[response].strip());
        if (out > 0 && in > 0) {
          lengths.add(new int[] {in, out});
        }
      } catch (NumberFormatException e) {
        throw new CliException(Infermark.FAILED, file + " line " + (i + 1) + " has a token count that is not a number");
      }
    }
    if (lengths.isEmpty()) {
      throw new CliException(Infermark.FAILED, file + " has no GPT-4 row with response tokens");
    }
    TokenCounter counter = w.counter();
    SplittableRandom random = new SplittableRandom(w.seed);
    List<DatasetEntry> rows = new ArrayList<>();
    for (int r = 0; r < prompts; r++) {
      int[] len = lengths.size() >= prompts && w.vllmData.disableShuffle ? lengths.get(r)
          : lengths.get(random.nextInt(lengths.size()));
      rows.add(new DatasetEntry(ExactLength.prompt(counter, len[0], w.seed * 31 + r), OptionalInt.of(len[1])));
    }
    return rows;
  }

  /** vLLM's spec_bench: Spec-Bench JSONL ({"turns": [...], "category": ...}), the first turn of each question. */
  static List<DatasetEntry> specBench(Path file, VllmDatasetOptions o) {
    positive("--spec-bench-output-len", o.specBenchOutputLen);
    List<DatasetEntry> rows = new ArrayList<>();
    int n = 0;
    for (String line : lines(file)) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      JsonNode row = parse(file, line, n);
      if (o.specBenchCategory != null && !o.specBenchCategory.equals(row.path("category").asText())) {
        continue;
      }
      JsonNode turns = row.path("turns");
      if (!turns.isArray() || turns.isEmpty() || !turns.get(0).isTextual()) {
        throw new CliException(Infermark.FAILED, file + " line " + n + " has no \"turns\" list of strings");
      }
      rows.add(new DatasetEntry(Prompt.user(turns.get(0).asText()), OptionalInt.of(o.specBenchOutputLen)));
    }
    return nonEmpty(rows, file);
  }

  /** vLLM's txt-slices: slices of {@code --random-input-len} tokens of a text file at random offsets. */
  static List<DatasetEntry> txtSlices(WorkloadOptions w, int prompts) {
    Path file = w.requirePath();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CliException(Infermark.FAILED, "cannot read " + file + ": " + e.getMessage());
    }
    String[] words = text.strip().split("\\s+");
    if (words.length < 2) {
      throw new CliException(Infermark.FAILED, file + " has too little text to slice");
    }
    TokenCounter counter = w.counter();
    SplittableRandom random = new SplittableRandom(w.seed);
    List<DatasetEntry> rows = new ArrayList<>();
    for (int r = 0; r < prompts; r++) {
      int start = random.nextInt(words.length);
      StringBuilder slice = new StringBuilder();
      for (int i = 0; counter.count(slice.toString()) < w.randomInputLen && i < words.length * 4; i++) {
        slice.append(i == 0 ? "" : " ").append(words[(start + i) % words.length]);
      }
      rows.add(new DatasetEntry(Prompt.user(slice.toString()), OptionalInt.of(w.randomOutputLen)));
    }
    return rows;
  }

  /**
   * vLLM's random-mm: random text prompts of {@code --random-input-len} tokens, each with images drawn from the
   * bucket config (sizes by probability), as random-pixel JPEGs sent as base64 data URLs in chat content parts.
   */
  static List<DatasetEntry> randomMm(WorkloadOptions w, int prompts) {
    VllmDatasetOptions o = w.vllmData;
    Map<int[], Double> buckets = buckets(o.randomMmBuckets);
    int imageLimit = limit(o.randomMmLimit, "image");
    double total = 0;
    for (Map.Entry<int[], Double> b : buckets.entrySet()) {
      if (b.getKey()[2] > 1 && b.getValue() > 0) {
        throw new IllegalArgumentException("--random-mm-bucket-config: video buckets (frames > 1) are not generated, "
            + "as in vLLM (\"only image sampling is supported\"); give them probability 0");
      }
      total += b.getKey()[2] == 1 ? b.getValue() : 0;
    }
    if (!(total > 0)) {
      throw new IllegalArgumentException("--random-mm-bucket-config has no image bucket with a probability above 0");
    }
    if (!(o.randomMmItemsRangeRatio >= 0 && o.randomMmItemsRangeRatio <= 1) || o.randomMmBaseItems < 0) {
      throw new IllegalArgumentException("--random-mm-num-mm-items-range-ratio must be in [0, 1] and "
          + "--random-mm-base-items-per-request >= 0");
    }
    int lo = (int) Math.floor(o.randomMmBaseItems * (1 - o.randomMmItemsRangeRatio));
    int hi = Math.min(imageLimit, (int) Math.ceil(o.randomMmBaseItems * (1 + o.randomMmItemsRangeRatio)));
    if (lo > hi) {
      throw new IllegalArgumentException("--random-mm items per request: the minimum " + lo + " exceeds the limit "
          + imageLimit);
    }
    TokenCounter counter = w.counter();
    SplittableRandom random = new SplittableRandom(w.seed);
    List<DatasetEntry> rows = new ArrayList<>();
    for (int r = 0; r < prompts; r++) {
      List<ContentPart> parts = new ArrayList<>();
      parts.add(ContentPart.text(SyntheticText.exactly(counter, w.randomInputLen, w.seed * 1_000_003L + r)));
      int items = lo == hi ? lo : random.nextInt(lo, hi + 1);
      for (int i = 0; i < items; i++) {
        int[] size = pick(buckets, total, random.nextDouble());
        parts.add(ContentPart.imageBase64("image/jpeg", jpeg(size[1], size[0], random.nextLong())));
      }
      rows.add(new DatasetEntry(Prompt.chat(Message.of("user", parts)), OptionalInt.of(w.randomOutputLen)));
    }
    return rows;
  }

  private static int[] pick(Map<int[], Double> buckets, double total, double u) {
    double acc = 0;
    int[] last = null;
    for (Map.Entry<int[], Double> b : buckets.entrySet()) {
      if (b.getKey()[2] != 1 || b.getValue() <= 0) {
        continue;
      }
      acc += b.getValue() / total;
      last = b.getKey();
      if (u < acc) {
        return last;
      }
    }
    return last;
  }

  /** vLLM's bucket config, a Python dict literal {(height, width, frames): probability, ...}. */
  static Map<int[], Double> buckets(String text) {
    Matcher m = Pattern.compile("\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)\\s*:\\s*([0-9.eE+-]+)").matcher(text);
    Map<int[], Double> out = new LinkedHashMap<>();
    while (m.find()) {
      out.put(new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))},
          Double.parseDouble(m.group(4)));
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("--random-mm-bucket-config takes {(height, width, frames): probability, ...}, "
          + "was '" + text + "'");
    }
    return out;
  }

  private static int limit(String json, String modality) {
    try {
      JsonNode n = JSON.readTree(json);
      return n.path(modality).isInt() ? n.path(modality).asInt() : Integer.MAX_VALUE;
    } catch (IOException e) {
      throw new IllegalArgumentException("--random-mm-limit-mm-per-prompt is not JSON: " + e.getMessage());
    }
  }

  /** A JPEG of random pixels (worst-case compression, as vLLM's synthetic images), base64. */
  static String jpeg(int width, int height, long seed) {
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    SplittableRandom random = new SplittableRandom(seed);
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        image.setRGB(x, y, random.nextInt(1 << 24));
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      ImageIO.write(image, "jpg", out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Base64.getEncoder().encodeToString(out.toByteArray());
  }

  /**
   * vLLM's hf dataset from a local JSON or JSONL file (a hub id is refused: nothing is downloaded). The prompt is
   * the first human turn of "conversations"/"messages", or the "prompt", "instruction", "problem", "question",
   * "input" or "text" field, or the first of "turns"; the output length is {@code --hf-output-len}, else the first
   * reply's length, else 256.
   */
  static List<DatasetEntry> hf(WorkloadOptions w) {
    Path file = w.datasetPath;
    if (file == null || !Files.exists(file)) {
      throw new IllegalArgumentException("--dataset-name hf needs --dataset-path pointing to a local JSON or JSONL "
          + "file: infermark does not download from the Hugging Face hub (a hub id such as '"
          + (file == null ? "org/name" : file) + "' is not a local file); download it and pass --hf-name for its format");
    }
    if (Files.isDirectory(file) || file.toString().matches("(?i).*\\.(parquet|arrow)$")) {
      throw new IllegalArgumentException("--dataset-path " + file + ": only a local .json or .jsonl file is read "
          + "(convert parquet or arrow to JSONL first)");
    }
    List<JsonNode> rows = new ArrayList<>();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new CliException(Infermark.FAILED, "cannot read " + file + ": " + e.getMessage());
    }
    if (text.startsWith("[")) {
      parse(file, text, 1).forEach(rows::add);
    } else {
      int n = 0;
      for (String line : text.split("\n")) {
        n++;
        if (!line.isBlank()) {
          rows.add(parse(file, line, n));
        }
      }
    }
    TokenCounter counter = w.counter();
    List<DatasetEntry> out = new ArrayList<>();
    for (JsonNode row : rows) {
      String[] turn = promptAndReply(row);
      if (turn == null) {
        continue;
      }
      int outputLen = w.vllmData.hfOutputLen != null ? w.vllmData.hfOutputLen
          : turn[1] != null ? Math.max(1, counter.count(turn[1])) : 256;
      out.add(new DatasetEntry(Prompt.user(turn[0]), OptionalInt.of(outputLen)));
    }
    if (out.isEmpty()) {
      throw new CliException(Infermark.FAILED, file + " has no row with a prompt (conversations, messages, prompt, "
          + "instruction, problem, question, input, text or turns)" + (w.vllmData.hfName == null ? ""
              : " for --hf-name " + w.vllmData.hfName));
    }
    return out;
  }

  private static String[] promptAndReply(JsonNode row) {
    for (String list : new String[] {"conversations", "messages"}) {
      JsonNode turns = row.path(list);
      if (turns.isArray() && !turns.isEmpty()) {
        String prompt = null;
        for (JsonNode t : turns) {
          String role = t.has("from") ? t.path("from").asText() : t.path("role").asText();
          String content = t.has("value") ? t.path("value").asText() : t.path("content").asText();
          boolean human = role.toLowerCase(Locale.ROOT).matches("human|user");
          if (prompt == null && human) {
            prompt = content;
          } else if (prompt != null && !human) {
            return new String[] {prompt, content};
          }
        }
        if (prompt != null) {
          return new String[] {prompt, null};
        }
      }
    }
    for (String field : new String[] {"prompt", "instruction", "problem", "question", "input", "text"}) {
      if (row.path(field).isTextual() && !row.path(field).asText().isBlank()) {
        String reply = row.path("output").isTextual() ? row.path("output").asText()
            : row.path("response").isTextual() ? row.path("response").asText()
                : row.path("solution").isTextual() ? row.path("solution").asText() : null;
        return new String[] {row.path(field).asText(), reply};
      }
    }
    JsonNode turns = row.path("turns");
    if (turns.isArray() && !turns.isEmpty() && turns.get(0).isTextual()) {
      return new String[] {turns.get(0).asText(), null};
    }
    return null;
  }

  private static List<DatasetEntry> nonEmpty(List<DatasetEntry> rows, Path file) {
    if (rows.isEmpty()) {
      throw new CliException(Infermark.FAILED, file + " has no prompts");
    }
    return rows;
  }

  private static void positive(String option, int v) {
    if (v < 1) {
      throw new IllegalArgumentException(option + " must be >= 1, was " + v);
    }
  }
}
