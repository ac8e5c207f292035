package io.infermark.core.workload;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import java.util.List;

/** Prompts used in turn; see {@link Workload#cycle(List)}. */
final class CycleWorkload implements Workload {
  private final List<Prompt> prompts;

  CycleWorkload(List<Prompt> prompts) {
    if (prompts.isEmpty()) {
      throw new IllegalArgumentException("the prompt set is empty: give at least one prompt");
    }
    this.prompts = List.copyOf(prompts);
  }

  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    return new RequestSpec(prompts.get((int) (index % prompts.size())), defaults);
  }

  @Override
  public int distinctPrompts() {
    return prompts.size();
  }

  @Override
  public String toString() {
    return prompts.size() + " prompts";
  }
}
