package io.infermark.metrics.cache;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.Distribution;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What the server's prefix (KV) cache did for a run, from the cached prompt tokens each response reported: tokens
 * and hit ratio for the run, per session and per turn (by the {@link WorkloadTags#SESSION} and
 * {@link WorkloadTags#TURN} tags), TTFT of hits apart from misses, and, when the prompts were tracked by a
 * {@link PromptReuse}, the ideal ratio the workload allows beside the measured one. Immutable.
 *
 * <p>Definitions (units: tokens, ratios 0 to 1, TTFT in ms; see docs/prefix-cache.md):
 * <ul>
 *   <li>counted requests: measured (not warmup or cooldown) and successful;
 *   <li>a request <em>reports</em> when the server gave both its cached prompt tokens
 *       ({@link #cachedPromptTokens(RequestRecord)}) and its prompt tokens ({@link #promptTokens(RequestRecord)});
 *   <li>hit ratio = Σ cached / Σ prompt tokens over the reporting requests (token-weighted); empty when none
 *       reported;
 *   <li>a <em>hit</em> is a reporting request with cached &gt; 0, a <em>miss</em> one with cached = 0;
 *       {@link #ttftHit()} and {@link #ttftMiss()} are their TTFTs;
 *   <li>ideal ratio = Σ {@link PromptReuse.Reuse#sharedPrefixTokens()} / Σ {@link PromptReuse.Reuse#promptTokens()}
 *       over the counted requests the tracker saw, counted by its token counter (not the server's tokenizer).
 * </ul>
 */
public final class PrefixCacheSummary {

  /** The server timing llama.cpp reports its cached prompt tokens in. */
  public static final String LLAMACPP_CACHE_N = "timings.cache_n";
  /** The server timing llama.cpp reports its computed (not cached) prompt tokens in. */
  public static final String LLAMACPP_PROMPT_N = "timings.prompt_n";

  private final Group run;
  private final Map<String, Group> bySession;
  private final Map<String, Group> byTurn;
  private final Distribution ttftHit;
  private final Distribution ttftMiss;
  private final Optional<String> idealTokenizer;

  private PrefixCacheSummary(Group run, Map<String, Group> bySession, Map<String, Group> byTurn, Distribution ttftHit,
      Distribution ttftMiss, Optional<String> idealTokenizer) {
    this.run = run;
    this.bySession = bySession;
    this.byTurn = byTurn;
    this.ttftHit = ttftHit;
    this.ttftMiss = ttftMiss;
    this.idealTokenizer = idealTokenizer;
  }

  /** The measured accounting of {@code records}, with linear percentiles and no ideal ratio. */
  public static PrefixCacheSummary of(List<RequestRecord> records) {
    return of(records, QuantileMethod.LINEAR, Optional.empty());
  }

  /**
   * The accounting of {@code records}, with the ideal ratio from {@code reuse} (the tracker that saw the run's
   * requests sent) when given.
   */
  public static PrefixCacheSummary of(List<RequestRecord> records, QuantileMethod method, Optional<PromptReuse> reuse) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(reuse, "reuse");
    Tally all = new Tally();
    Map<String, Tally> sessions = new TreeMap<>(NUMERIC_FIRST);
    Map<String, Tally> turns = new TreeMap<>(NUMERIC_FIRST);
    List<Double> hit = new ArrayList<>();
    List<Double> miss = new ArrayList<>();
    for (RequestRecord r : records) {
      if (!r.measured() || !r.succeeded()) {
        continue;
      }
      OptionalInt cached = cachedPromptTokens(r);
      OptionalInt prompt = promptTokens(r);
      boolean reports = cached.isPresent() && prompt.isPresent();
      Optional<PromptReuse.Reuse> ideal = reuse.isPresent() && !r.requestId().isEmpty()
          ? reuse.get().of(r.requestId()) : Optional.empty();
      all.add(reports, cached, prompt, ideal);
      String session = r.tags().get(WorkloadTags.SESSION);
      if (session != null) {
        sessions.computeIfAbsent(session, k -> new Tally()).add(reports, cached, prompt, ideal);
      }
      String turn = r.tags().get(WorkloadTags.TURN);
      if (turn != null) {
        turns.computeIfAbsent(turn, k -> new Tally()).add(reports, cached, prompt, ideal);
      }
      OptionalLong ttft = r.chunks().firstTokenOffsetNanos();
      if (reports && ttft.isPresent()) {
        (cached.getAsInt() > 0 ? hit : miss).add(ttft.getAsLong() / 1e6);
      }
    }
    return new PrefixCacheSummary(all.group(), groups(sessions), groups(turns), distribution(hit, method),
        distribution(miss, method), reuse.map(PromptReuse::tokenizer));
  }

  /**
   * The prompt tokens the server reported as served from its cache: {@code usage} cached tokens (OpenAI/vLLM/SGLang
   * {@code prompt_tokens_details.cached_tokens}, Responses {@code input_tokens_details.cached_tokens}, Anthropic
   * {@code cache_read_input_tokens}), else llama.cpp's {@code timings.cache_n}; empty when the server said nothing.
   */
  public static OptionalInt cachedPromptTokens(RequestRecord r) {
    OptionalInt usage = r.usage().cachedPromptTokens();
    if (usage.isPresent()) {
      return usage;
    }
    Double cacheN = r.serverTimings().get(LLAMACPP_CACHE_N);
    return cacheN == null || !(cacheN >= 0) ? OptionalInt.empty() : OptionalInt.of((int) Math.round(cacheN));
  }

  /**
   * The prompt tokens the server reported, cached ones included: {@code usage} prompt tokens, else llama.cpp's
   * {@code timings.prompt_n + timings.cache_n}; empty when the server said nothing.
   */
  public static OptionalInt promptTokens(RequestRecord r) {
    OptionalInt usage = r.usage().promptTokens();
    if (usage.isPresent()) {
      return usage;
    }
    Double cacheN = r.serverTimings().get(LLAMACPP_CACHE_N);
    Double promptN = r.serverTimings().get(LLAMACPP_PROMPT_N);
    if (cacheN == null || promptN == null || !(cacheN >= 0) || !(promptN >= 0)) {
      return OptionalInt.empty();
    }
    return OptionalInt.of((int) Math.round(cacheN + promptN));
  }

  /** The whole run's accounting. */
  public Group run() {
    return run;
  }

  /** Per {@link WorkloadTags#SESSION} tag value, in numeric order where values are numbers; empty without sessions. */
  public Map<String, Group> bySession() {
    return bySession;
  }

  /** Per {@link WorkloadTags#TURN} tag value (turn k over every session), in numeric order; empty without turns. */
  public Map<String, Group> byTurn() {
    return byTurn;
  }

  /** TTFT (ms) of the reporting requests with cached &gt; 0. */
  public Distribution ttftHit() {
    return ttftHit;
  }

  /** TTFT (ms) of the reporting requests with cached = 0. */
  public Distribution ttftMiss() {
    return ttftMiss;
  }

  /** The token counter's name the ideal ratio was counted with; empty when no ideal was computed. */
  public Optional<String> idealTokenizer() {
    return idealTokenizer;
  }

  /** True when there is nothing to show: no request reported cached tokens and no ideal ratio was computed. */
  public boolean isEmpty() {
    return run.reporting() == 0 && run.idealRequests() == 0;
  }

  /** One line: the run's ratios and counts. */
  @Override
  public String toString() {
    return "PrefixCacheSummary{" + run + ", " + bySession.size() + " sessions, " + byTurn.size() + " turns}";
  }

  private static Map<String, Group> groups(Map<String, Tally> tallies) {
    Map<String, Group> out = new TreeMap<>(NUMERIC_FIRST);
    tallies.forEach((k, v) -> out.put(k, v.group()));
    return Collections.unmodifiableMap(out);
  }

  private static Distribution distribution(List<Double> values, QuantileMethod method) {
    double[] a = new double[values.size()];
    for (int i = 0; i < a.length; i++) {
      a[i] = values.get(i);
    }
    return a.length == 0 ? Distribution.empty(method) : Distribution.of(a, method);
  }

  /** Numbers in numeric order before other strings, which sort as strings. */
  private static final Comparator<String> NUMERIC_FIRST = (a, b) -> {
    Long x = number(a);
    Long y = number(b);
    if (x != null && y != null) {
      int c = Long.compare(x, y);
      return c != 0 ? c : a.compareTo(b);
    }
    if (x != null || y != null) {
      return x != null ? -1 : 1;
    }
    return a.compareTo(b);
  };

  private static Long number(String s) {
    if (s.isEmpty() || s.length() > 18) {
      return null;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return null;
      }
    }
    return Long.parseLong(s);
  }

  private static final class Tally {
    int requests;
    int reporting;
    int hits;
    long cached;
    long prompt;
    int idealRequests;
    long idealShared;
    long idealPrompt;

    void add(boolean reports, OptionalInt cachedTokens, OptionalInt promptTokens, Optional<PromptReuse.Reuse> ideal) {
      requests++;
      if (reports) {
        reporting++;
        int c = cachedTokens.getAsInt();
        hits += c > 0 ? 1 : 0;
        cached += c;
        prompt += promptTokens.getAsInt();
      }
      if (ideal.isPresent()) {
        idealRequests++;
        idealShared += ideal.get().sharedPrefixTokens();
        idealPrompt += ideal.get().promptTokens();
      }
    }

    Group group() {
      return new Group(requests, reporting, hits, cached, prompt, idealRequests, idealShared, idealPrompt);
    }
  }

  /**
   * The accounting of a group of requests (the run, one session, one turn).
   *
   * @param requests counted requests (measured, successful)
   * @param reporting those whose server reported cached and prompt tokens
   * @param hits reporting requests with cached tokens &gt; 0
   * @param cachedTokens Σ cached prompt tokens over the reporting requests
   * @param promptTokens Σ prompt tokens over the reporting requests (cached included)
   * @param idealRequests counted requests whose prompt the {@link PromptReuse} tracker saw
   * @param idealSharedTokens Σ tokens of their prompts that repeat a prefix of an earlier prompt (tracker's counter)
   * @param idealPromptTokens Σ tokens of their prompts (tracker's counter)
   */
  public record Group(int requests, int reporting, int hits, long cachedTokens, long promptTokens, int idealRequests,
      long idealSharedTokens, long idealPromptTokens) {

    /** Cached / prompt tokens over the reporting requests; empty when none reported or they had no prompt tokens. */
    public OptionalDouble hitRatio() {
      return promptTokens > 0 ? OptionalDouble.of((double) cachedTokens / promptTokens) : OptionalDouble.empty();
    }

    /** Ideal shared / prompt tokens; empty without tracked prompts. */
    public OptionalDouble idealRatio() {
      return idealPromptTokens > 0 ? OptionalDouble.of((double) idealSharedTokens / idealPromptTokens)
          : OptionalDouble.empty();
    }

    /** Reporting requests with cached = 0. */
    public int misses() {
      return reporting - hits;
    }
  }
}
