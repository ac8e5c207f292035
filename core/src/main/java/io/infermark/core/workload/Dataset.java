package io.infermark.core.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Prompts from a file, used in order: request {@code i} sends row {@code i mod size}, asking for the
 * row's reference output length when it has one.
 *
 * <ul>
 *   <li>{@link #jsonl(Path)}: one JSON object per line with {@code "prompt"} (a string) or
 *       {@code "messages"} (an array of {@code {"role", "content"}}), and optionally
 *       {@code "output_tokens"} (or {@code "max_tokens"}); any other string fields become tags.
 *   <li>{@link #shareGpt(Path, TokenCounter)}: a ShareGPT JSON array of
 *       {@code {"conversations": [{"from": "human", "value": ...}, {"from": "gpt", "value": ...}, ...]}}:
 *       the first human turn is the prompt and the reply after it sets the output length (counted
 *       with the given counter); conversations without such a pair are skipped, as vLLM's benchmark
 *       does.
 * </ul>
 *
 * <p>{@link #withInputCounts(TokenCounter)} records each prompt's length by a client tokenizer, for servers that
 * report no prompt tokens. Every reader fails with the file and row named for an empty dataset or a malformed row.
 */
public final class Dataset implements Workload {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<DatasetEntry> entries;
  private final String source;

  private Dataset(List<DatasetEntry> entries, String source) {
    if (entries.isEmpty()) {
      throw new IllegalArgumentException(source + " has no usable rows: a dataset needs at least one prompt");
    }
    this.entries = List.copyOf(entries);
    this.source = source;
  }

  /** A dataset of the given rows; at least one. */
  public static Dataset of(List<DatasetEntry> entries) {
    return new Dataset(entries, "the dataset");
  }

  /** Reads a JSONL dataset (see the class description). */
  public static Dataset jsonl(Path path) {
    List<DatasetEntry> rows = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      String line;
      int number = 0;
      while ((line = in.readLine()) != null) {
        number++;
        if (!line.isBlank()) {
          rows.add(jsonlRow(line, path + " line " + number));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read dataset " + path, e);
    }
    return new Dataset(rows, path.toString());
  }

  private static DatasetEntry jsonlRow(String line, String where) {
    JsonNode n = parse(line, where);
    if (!n.isObject()) {
      throw new IllegalArgumentException(where + " is not a JSON object");
    }
    Prompt prompt;
    if (n.hasNonNull("prompt")) {
      if (!n.get("prompt").isTextual() || n.get("prompt").asText().isEmpty()) {
        throw new IllegalArgumentException(where + ": 'prompt' must be a non-empty string");
      }
      prompt = Prompt.user(n.get("prompt").asText());
    } else if (n.hasNonNull("messages")) {
      prompt = Prompt.chat(messages(n.get("messages"), where));
    } else {
      throw new IllegalArgumentException(where + " has neither 'prompt' nor 'messages'");
    }
    var fields = n.fields();
    while (fields.hasNext()) {
      var f = fields.next();
      if (f.getValue().isTextual() && !f.getKey().equals("prompt")) {
        prompt = prompt.withTag(f.getKey(), f.getValue().asText());
      }
    }
    OptionalInt output = OptionalInt.empty();
    for (String field : new String[] {"output_tokens", "max_tokens"}) {
      JsonNode v = n.get(field);
      if (v != null && !v.isNull()) {
        if (!v.canConvertToInt() || v.asInt() < 1) {
          throw new IllegalArgumentException(where + ": '" + field + "' must be an integer >= 1, was " + v);
        }
        output = OptionalInt.of(v.asInt());
        break;
      }
    }
    return new DatasetEntry(prompt, output);
  }

  private static List<Message> messages(JsonNode array, String where) {
    if (!array.isArray() || array.isEmpty()) {
      throw new IllegalArgumentException(where + ": 'messages' must be a non-empty array");
    }
    List<Message> out = new ArrayList<>();
    for (JsonNode m : array) {
      if (!m.path("role").isTextual() || !m.path("content").isTextual()) {
        throw new IllegalArgumentException(where + ": every message needs string 'role' and 'content'");
      }
      out.add(new Message(m.get("role").asText(), m.get("content").asText()));
    }
    return out;
  }

  /** Reads a ShareGPT JSON file, counting reference output lengths with {@code counter}. */
  public static Dataset shareGpt(Path path, TokenCounter counter) {
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read dataset " + path, e);
    }
    JsonNode root = parse(text, path.toString());
    if (!root.isArray()) {
      throw new IllegalArgumentException(path + " is not a ShareGPT file: expected a JSON array of conversations");
    }
    List<DatasetEntry> rows = new ArrayList<>();
    int i = 0;
    for (JsonNode conversation : root) {
      String where = path + " conversation " + i++;
      JsonNode turns = conversation.get("conversations");
      if (turns == null || !turns.isArray()) {
        throw new IllegalArgumentException(where + " has no 'conversations' array");
      }
      for (int t = 0; t + 1 < turns.size(); t++) {
        JsonNode human = turns.get(t);
        JsonNode reply = turns.get(t + 1);
        if ("human".equals(human.path("from").asText()) && !human.path("value").asText().isEmpty()
            && !"human".equals(reply.path("from").asText()) && !reply.path("value").asText().isEmpty()) {
          Prompt p = Prompt.user(human.get("value").asText());
          if (conversation.path("id").isTextual()) {
            p = p.withTag("id", conversation.get("id").asText());
          }
          rows.add(new DatasetEntry(p, OptionalInt.of(Math.max(1, counter.count(reply.get("value").asText())))));
          break;
        }
      }
    }
    if (rows.isEmpty()) {
      throw new IllegalArgumentException(path + " has no usable rows: no ShareGPT conversation has a human turn "
          + "followed by a reply");
    }
    return new Dataset(rows, path + " (ShareGPT)");
  }

  private static JsonNode parse(String text, String where) {
    try {
      JsonNode n = JSON.readTree(text);
      if (n == null || n.isMissingNode()) {
        throw new IllegalArgumentException(where + " is empty");
      }
      return n;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(where + " is not valid JSON: " + e.getOriginalMessage());
    }
  }

  /**
   * The same rows with each prompt's length by {@code counter} recorded on it ({@link WorkloadTags#INPUT_TOKENS_ACHIEVED}
   * and {@link WorkloadTags#TOKENIZER}; a row that already has a count keeps it), so a run against a server that
   * reports no prompt tokens still counts its input tokens, as the client's count and labelled so. Counts the
   * prompts' contents, without the chat template the server adds.
   */
  public Dataset withInputCounts(TokenCounter counter) {
    java.util.Objects.requireNonNull(counter, "counter");
    List<DatasetEntry> counted = new ArrayList<>(entries.size());
    for (DatasetEntry e : entries) {
      Prompt p = e.prompt();
      if (!p.tags().containsKey(WorkloadTags.INPUT_TOKENS_ACHIEVED)) {
        p = p.withTag(WorkloadTags.INPUT_TOKENS_ACHIEVED, Integer.toString(counter.count(p)))
            .withTag(WorkloadTags.TOKENIZER, counter.name());
      }
      counted.add(new DatasetEntry(p, e.outputTokens()));
    }
    return new Dataset(counted, source);
  }

  /** The rows. */
  public List<DatasetEntry> entries() {
    return entries;
  }

  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    DatasetEntry e = entries.get((int) (index % entries.size()));
    return new RequestSpec(e.prompt(), e.outputTokens().isPresent()
        ? RequestSpec.exactOutput(defaults, e.outputTokens().getAsInt()) : defaults);
  }

  @Override
  public int distinctPrompts() {
    return entries.size();
  }

  @Override
  public String toString() {
    return "Dataset[" + entries.size() + " rows from " + source + "]";
  }
}
