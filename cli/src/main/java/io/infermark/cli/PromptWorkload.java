package io.infermark.cli;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.workload.DatasetEntry;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import java.util.List;

/**
 * Rows used in order, as vLLM's client sends them: each row's output length becomes its
 * {@code max_tokens} (unless the run fixed one) and {@code ignore_eos} stays as the run set it.
 */
final class PromptWorkload implements Workload {

  private final List<DatasetEntry> rows;
  private final boolean fixedMaxTokens;

  PromptWorkload(List<DatasetEntry> rows, boolean fixedMaxTokens) {
    if (rows.isEmpty()) {
      throw new IllegalArgumentException("the dataset has no prompts");
    }
    this.rows = rows instanceof VllmTimedTrace.Rows ? rows : List.copyOf(rows); // a trace's rows are built when sent
    this.fixedMaxTokens = fixedMaxTokens;
  }

  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    DatasetEntry row = rows.get((int) (index % rows.size()));
    GenerationParams params = fixedMaxTokens || row.outputTokens().isEmpty() ? defaults
        : defaults.toBuilder().maxTokens(row.outputTokens().getAsInt()).build();
    return new RequestSpec(row.prompt(), params);
  }

  /** The same rows with a system message before each prompt's messages (tags kept). */
  PromptWorkload withSystemMessage(String system) {
    List<DatasetEntry> out = new java.util.ArrayList<>(rows.size());
    for (DatasetEntry row : rows) {
      java.util.List<io.infermark.core.request.Message> messages = new java.util.ArrayList<>();
      messages.add(io.infermark.core.request.Message.system(system));
      messages.addAll(row.prompt().messages());
      io.infermark.core.request.Prompt p = io.infermark.core.request.Prompt.chat(messages);
      for (java.util.Map.Entry<String, String> tag : row.prompt().tags().entrySet()) {
        p = p.withTag(tag.getKey(), tag.getValue());
      }
      out.add(new DatasetEntry(p, row.outputTokens()));
    }
    return new PromptWorkload(out, fixedMaxTokens);
  }

  @Override
  public int distinctPrompts() {
    return rows.size();
  }

  @Override
  public String toString() {
    return "PromptWorkload[" + rows.size() + " prompts]";
  }
}
