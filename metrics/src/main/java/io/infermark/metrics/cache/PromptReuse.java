package io.infermark.metrics.cache;

import io.infermark.core.RunListener;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ideal prefix reuse a workload allows, computed on the client from the prompts in the order they were sent:
 * for each prompt, how many of its tokens repeat a prefix of some earlier prompt of the run. A server's prefix
 * cache can serve at most these tokens (more only if its tokenizer splits text differently), so the ratio of
 * shared to prompt tokens is the hit ratio an unbounded cache would reach.
 *
 * <p>Definition, per prompt {@code p} (see docs/prefix-cache.md):
 * <ol>
 *   <li>{@code p} is read as its sequence of messages (role, content); a text prompt is one message. Two prompts
 *       share a message when role and content are equal;
 *   <li>the shared prefix with an earlier prompt {@code q} is every leading message of {@code p} equal to
 *       {@code q}'s message at the same position, then, in the first message that differs (same role), the longest
 *       common prefix of the two contents <em>cut back to the last whitespace</em> inside it, so a word only
 *       partly shared does not count;
 *   <li>{@code shared(p)} is the token count, by the run's {@link TokenCounter}, of the longest such prefix over
 *       all earlier prompts (whole messages counted with {@link TokenCounter#count(String)}, the partial content
 *       with {@link TokenCounter#countRange}); {@code tokens(p)} is {@link TokenCounter#count(Prompt)}. Role
 *       markers and chat-template overhead count zero on both sides, as in {@code TokenCounter}.
 * </ol>
 * A prompt sent again whole has {@code shared = tokens}; the first prompt of a run has 0.
 *
 * <p>Use it as a {@link RunListener} ({@code Benchmark...listener(reuse)}): {@link #beforeSend} sees each request
 * as it is sent, so "earlier" is send order. It keeps every distinct prompt's text for the run (a sorted set; the
 * prompt with the longest common prefix is a neighbour of {@code p} in sorted order), so its memory is the run's
 * distinct prompt text. Thread-safe.
 */
public final class PromptReuse implements RunListener {

  private static final char ROLE_END = '\u0000';
  private static final char MESSAGE_END = '\u0001';

  private final TokenCounter counter;
  private final TreeSet<String> earlier = new TreeSet<>();
  private final Map<String, Sent> byRequest = new ConcurrentHashMap<>();

  private PromptReuse(TokenCounter counter) {
    this.counter = Objects.requireNonNull(counter, "counter");
  }

  /** A tracker counting tokens with {@code counter} (use the run's, e.g. the one that built its prompts). */
  public static PromptReuse counting(TokenCounter counter) {
    return new PromptReuse(counter);
  }

  /** The name of the counter the token counts come from. */
  public String tokenizer() {
    return counter.name();
  }

  /**
   * Records the request's prompt as sent now; returns the request unchanged. Only the shared prefix is found here,
   * on the thread that sends: its tokens are counted when {@link #of} first asks, so no tokenizer (nor the loading
   * of its vocabulary, a quarter of a second of CPU for cl100k_base) holds up a send.
   */
  @Override
  public InferenceRequest beforeSend(InferenceRequest request) {
    remember(request.id(), request.prompt());
    return request;
  }

  /**
   * Records {@code prompt} as the next one sent, under {@code requestId}, and returns its reuse against every
   * prompt recorded before it.
   */
  public Reuse record(String requestId, Prompt prompt) {
    return remember(requestId, prompt).reuse();
  }

  private Sent remember(String requestId, Prompt prompt) {
    Objects.requireNonNull(requestId, "requestId");
    String key = key(prompt);
    int lcp;
    synchronized (earlier) {
      lcp = Math.max(commonPrefix(key, earlier.floor(key)), commonPrefix(key, earlier.ceiling(key)));
      earlier.add(key);
    }
    Sent sent = new Sent(prompt, lcp);
    byRequest.put(requestId, sent);
    return sent;
  }

  /** The reuse recorded for a request id, if its request was sent (its tokens counted on the first call). */
  public Optional<Reuse> of(String requestId) {
    Sent sent = byRequest.get(requestId);
    return sent == null ? Optional.empty() : Optional.of(sent.reuse());
  }

  /** How many requests were recorded. */
  public int size() {
    return byRequest.size();
  }

  @Override
  public String toString() {
    return "PromptReuse{" + byRequest.size() + " prompts, " + counter.name() + "}";
  }

  /** Role and content of every message, each message closed by a character no text uses. */
  private static String key(Prompt prompt) {
    StringBuilder b = new StringBuilder();
    b.append(prompt.isChat() ? 'C' : 'T');
    for (Message m : prompt.messages()) {
      b.append(m.role()).append(ROLE_END).append(m.content()).append(MESSAGE_END);
    }
    return b.toString();
  }

  private static int commonPrefix(String a, String b) {
    if (b == null) {
      return 0;
    }
    int n = Math.min(a.length(), b.length());
    int i = 0;
    while (i < n && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    return i;
  }

  /**
   * Tokens of the prompt's first {@code lcp} key characters: whole messages, then a partial content cut before the
   * whitespace that ends its last whole shared word.
   */
  private int sharedTokens(Prompt prompt, int lcp) {
    int at = 1; // the 'C' / 'T' marker
    if (lcp < at) {
      return 0;
    }
    int tokens = 0;
    for (Message m : prompt.messages()) {
      int contentStart = at + m.role().length() + 1;
      String content = m.content();
      int end = contentStart + content.length() + 1;
      if (lcp >= end) {
        tokens += counter.count(content);
        at = end;
        continue;
      }
      if (lcp > contentStart) {
        int k = Math.min(lcp - contentStart, content.length());
        while (k > 0 && !Character.isWhitespace(content.charAt(k - 1))) {
          k--;
        }
        // and before the whitespace: in a BPE vocabulary the space opens the next word's token (" sat"), so
        // "the cat " would count a token for the space that the prompts do not share
        while (k > 0 && Character.isWhitespace(content.charAt(k - 1))) {
          k--;
        }
        tokens += k == 0 ? 0 : counter.countRange(content, 0, k);
      }
      break;
    }
    return tokens;
  }

  /** A prompt as sent and the characters of its key it shares with an earlier one; counted once, when asked. */
  private final class Sent {
    private Prompt prompt;
    private final int lcp;
    private Reuse reuse;

    Sent(Prompt prompt, int lcp) {
      this.prompt = prompt;
      this.lcp = lcp;
    }

    synchronized Reuse reuse() {
      if (reuse == null) {
        int tokens = counter.count(prompt);
        // A counter that is not additive may count a prefix above the whole; no prompt shares more than it has.
        reuse = new Reuse(Math.min(sharedTokens(prompt, lcp), tokens), tokens);
        prompt = null; // counted: the prompt is not held for it any longer
      }
      return reuse;
    }
  }

  /**
   * One prompt's reuse: {@code sharedPrefixTokens} of its {@code promptTokens} repeat a prefix of an earlier prompt.
   *
   * @param sharedPrefixTokens tokens of the longest prefix shared with an earlier prompt
   * @param promptTokens the prompt's tokens
   */
  public record Reuse(int sharedPrefixTokens, int promptTokens) {

    /** Checks the counts. */
    public Reuse {
      if (sharedPrefixTokens < 0 || promptTokens < 0) {
        throw new IllegalArgumentException("token counts must be >= 0: " + sharedPrefixTokens + ", " + promptTokens);
      }
    }
  }
}
