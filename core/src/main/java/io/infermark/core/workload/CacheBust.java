package io.infermark.core.workload;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.Randoms;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Makes every prompt of a workload start with a segment of its own, so a server's prefix cache can reuse no prefix of
 * it: measures cold prompts on a server whose cache cannot be switched off, or the cost of a cache miss beside a run
 * that hits.
 *
 * <pre>{@code
 * Benchmark.target(t).workload(CacheBust.of(SharedPrefix.of(8, 2048, 128), runNonce)).load(...).run();
 * }</pre>
 *
 * <p>The {@code n}-th prompt handed out (from 0, counted over every call of {@link #request} and every stream's
 * {@code next}, so a CLI's test request and warm-ups before the run, which restart the schedule's indexes, get markers
 * of their own) gets {@link #marker(long) marker(n)} = {@code "[" + 16 hex digits of Randoms.mix(nonce, n) + "] "},
 * put before the content of the prompt's first message (the text of a text prompt); a first message with media parts gets the marker as a
 * system message of its own before it. The prompt keeps its tags and gains {@link WorkloadTags#CACHE_BUST} (the
 * marker's hex digits). Two runs with the same nonce send the same markers, so use a new nonce per run (the CLI's
 * {@code --cache-bust} draws one) when the server may still hold the previous run's prompts. Closed-loop streams
 * (sessions) are wrapped too: every turn is busted, so a session's history is never reused either.
 */
public final class CacheBust implements Workload {

  private final Workload inner;
  private final long nonce;
  private final java.util.concurrent.atomic.AtomicLong handedOut = new java.util.concurrent.atomic.AtomicLong();

  private CacheBust(Workload inner, long nonce) {
    this.inner = Objects.requireNonNull(inner, "inner");
    this.nonce = nonce;
  }

  /** {@code inner} with a unique leading segment on every request's prompt, derived from {@code nonce}. */
  public static CacheBust of(Workload inner, long nonce) {
    return new CacheBust(inner, nonce);
  }

  /** The marker of the {@code n}-th prompt handed out, e.g. {@code [1f0c...] }. */
  public String marker(long n) {
    return "[" + hex(n) + "] ";
  }

  private String hex(long n) {
    return String.format(Locale.ROOT, "%016x", Randoms.mix(nonce, n));
  }

  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    return bust(inner.request(index, intendedNanos, defaults));
  }

  @Override
  public StreamSource stream(int stream) {
    StreamSource source = inner.stream(stream);
    return new StreamSource() {
      @Override
      public RequestSpec next(long index, long elapsedNanos, GenerationParams defaults) {
        return bust(source.next(index, elapsedNanos, defaults));
      }

      @Override
      public void completed(RequestRecord record) {
        source.completed(record);
      }
    };
  }

  @Override
  public int distinctPrompts() {
    return inner.distinctPrompts();
  }

  @Override
  public boolean needsText() {
    return inner.needsText();
  }

  private RequestSpec bust(RequestSpec spec) {
    long n = handedOut.getAndIncrement();
    Prompt p = spec.prompt();
    String marker = marker(n);
    Prompt busted;
    if (!p.isChat()) {
      busted = Prompt.text(marker + p.text());
    } else {
      List<Message> messages = new ArrayList<>(p.messages());
      Message first = messages.get(0);
      if (first.hasMedia()) {
        messages.add(0, Message.system(marker.strip()));
      } else {
        messages.set(0, new Message(first.role(), marker + first.content()));
      }
      busted = Prompt.chat(messages);
    }
    for (Map.Entry<String, String> tag : p.tags().entrySet()) {
      busted = busted.withTag(tag.getKey(), tag.getValue());
    }
    return new RequestSpec(busted.withTag(WorkloadTags.CACHE_BUST, hex(n)), spec.params());
  }

  @Override
  public String toString() {
    return "CacheBust[" + inner + "]";
  }
}
