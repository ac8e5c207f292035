package io.infermark.core.workload;

import io.infermark.core.load.Randoms;
import io.infermark.core.request.ContentPart;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A workload that mixes text, image and audio requests by weight, all under one session id: request
 * {@code i} draws one entry with probability weight ÷ total weight (from {@code Randoms.mix(seed, i)},
 * so a request's choice depends on its index only) and sends its prompt with the run's parameters,
 * tagged {@link WorkloadTags#SESSION} (the session id), {@link WorkloadTags#TURN} (the index) and
 * {@link #MODALITY} ({@code text}, {@code image}, {@code audio} or {@code image+audio}, from the
 * prompt's parts), so reports can split TTFT by modality. Immutable and thread-safe.
 *
 * <pre>{@code
 * MultimodalMix mix = MultimodalMix.builder("session-1").
 *     add(6, Prompt.user("Summarise the meeting.")).
 *     add(3, Prompt.chat(Message.user(ContentPart.text("What is in it?"),
 *         ContentPart.imageUrl("https://example.com/cat.png")))).
 *     add(1, Prompt.chat(Message.user(ContentPart.text("Transcribe it."),
 *         ContentPart.audio(wavBase64, "wav")))).
 *     seed(7).build();
 * }</pre>
 */
public final class MultimodalMix implements Workload {

  /** The tag naming a request's modality: {@code text}, {@code image}, {@code audio} or {@code image+audio}. */
  public static final String MODALITY = "modality";

  private final String session;
  private final List<Prompt> prompts;
  private final double[] cumulative;
  private final long seed;

  private MultimodalMix(Builder b) {
    this.session = b.session;
    this.seed = b.seed;
    List<Prompt> tagged = new ArrayList<>(b.prompts.size());
    for (Prompt p : b.prompts) {
      tagged.add(p.withTag(WorkloadTags.SESSION, session).withTag(MODALITY, modality(p)));
    }
    this.prompts = List.copyOf(tagged);
    this.cumulative = new double[b.weights.size()];
    double total = 0;
    for (int i = 0; i < cumulative.length; i++) {
      total += b.weights.get(i);
      cumulative[i] = total;
    }
    for (int i = 0; i < cumulative.length; i++) {
      cumulative[i] /= total;
    }
  }

  /** A builder for a mix whose every request carries {@code session} as its session id. */
  public static Builder builder(String session) {
    return new Builder(session);
  }

  /** The modality of a prompt from its parts: {@code text}, {@code image}, {@code audio} or {@code image+audio}. */
  public static String modality(Prompt prompt) {
    boolean image = false;
    boolean audio = false;
    for (Message m : prompt.messages()) {
      for (ContentPart p : m.parts()) {
        image |= p instanceof ContentPart.ImageUrl || p instanceof ContentPart.ImageData;
        audio |= p instanceof ContentPart.Audio;
      }
    }
    return image && audio ? "image+audio" : image ? "image" : audio ? "audio" : "text";
  }

  /** The session id every request carries. */
  public String session() {
    return session;
  }

  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    double u = (Randoms.mix(seed, index) >>> 11) * 0x1.0p-53;
    int chosen = 0;
    while (chosen < cumulative.length - 1 && u >= cumulative[chosen]) {
      chosen++;
    }
    return new RequestSpec(prompts.get(chosen).withTag(WorkloadTags.TURN, Long.toString(index)), defaults);
  }

  @Override
  public int distinctPrompts() {
    return prompts.size();
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("MultimodalMix[session ").append(session);
    double previous = 0;
    for (int i = 0; i < prompts.size(); i++) {
      s.append(", ").append(prompts.get(i).tags().get(MODALITY)).append(' ')
          .append(String.format(java.util.Locale.ROOT, "%.3f", cumulative[i] - previous));
      previous = cumulative[i];
    }
    return s.append(", seed ").append(seed).append(']').toString();
  }

  /** Collects weighted prompts; at least one is needed. */
  public static final class Builder {
    private final String session;
    private final List<Prompt> prompts = new ArrayList<>();
    private final List<Double> weights = new ArrayList<>();
    private long seed;

    private Builder(String session) {
      Objects.requireNonNull(session, "session");
      if (session.isBlank()) {
        throw new IllegalArgumentException("session id must not be blank");
      }
      this.session = session;
    }

    /** Adds a prompt drawn with relative weight {@code weight} (finite, &gt; 0). */
    public Builder add(double weight, Prompt prompt) {
      Objects.requireNonNull(prompt, "prompt");
      if (!(weight > 0) || !Double.isFinite(weight)) {
        throw new IllegalArgumentException("weight must be finite and > 0, was " + weight);
      }
      prompts.add(prompt);
      weights.add(weight);
      return this;
    }

    /** The seed of the draws (default 0). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Returns the mix. */
    public MultimodalMix build() {
      if (prompts.isEmpty()) {
        throw new IllegalArgumentException("a mix needs at least one prompt (add)");
      }
      return new MultimodalMix(this);
    }
  }
}
