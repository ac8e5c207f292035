package io.infermark.metrics.report;

import static io.infermark.metrics.report.JsonFields.number;

import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.Percentile;
import io.infermark.metrics.cache.PrefixCacheSummary;
import java.io.IOException;
import java.util.Map;

/**
 * The {@code prefix_cache} block of the JSON report (see {@link JsonReport}): the run's, each turn's and each
 * session's cached prompt tokens and hit ratio, the ideal ratio beside them, and TTFT of hits and misses.
 */
final class PrefixCacheJson {

  static final String DEFINITION = "hit_ratio = sum(cached prompt tokens) / sum(prompt tokens) over requests whose "
      + "server reported both (tokens as the server counts them); ideal_hit_ratio = sum(tokens of the longest prefix "
      + "shared with an earlier-sent prompt) / sum(prompt tokens), counted client-side by ideal_tokenizer; a hit is a "
      + "request with cached > 0 (see docs/prefix-cache.md)";

  private PrefixCacheJson() {}

  /** Writes the block, or nothing when the summary has nothing to show. */
  static void write(JsonGenerator g, PrefixCacheSummary c) throws IOException {
    if (c.isEmpty()) {
      return;
    }
    g.writeObjectFieldStart("prefix_cache");
    g.writeStringField("definition", DEFINITION);
    group(g, c.run());
    if (c.idealTokenizer().isPresent()) {
      g.writeStringField("ideal_tokenizer", c.idealTokenizer().get());
    } else {
      g.writeNullField("ideal_tokenizer");
    }
    ttft(g, "ttft_hit_ms", c.ttftHit());
    ttft(g, "ttft_miss_ms", c.ttftMiss());
    groups(g, "by_turn", c.byTurn());
    groups(g, "by_session", c.bySession());
    g.writeEndObject();
  }

  private static void groups(JsonGenerator g, String name, Map<String, PrefixCacheSummary.Group> groups)
      throws IOException {
    g.writeObjectFieldStart(name);
    for (Map.Entry<String, PrefixCacheSummary.Group> e : groups.entrySet()) {
      g.writeObjectFieldStart(e.getKey());
      group(g, e.getValue());
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  private static void group(JsonGenerator g, PrefixCacheSummary.Group x) throws IOException {
    g.writeNumberField("requests", x.requests());
    g.writeNumberField("reporting_requests", x.reporting());
    g.writeNumberField("hits", x.hits());
    g.writeNumberField("misses", x.misses());
    g.writeNumberField("cached_tokens", x.cachedTokens());
    g.writeNumberField("prompt_tokens", x.promptTokens());
    number(g, "hit_ratio", x.hitRatio());
    g.writeNumberField("ideal_requests", x.idealRequests());
    g.writeNumberField("ideal_shared_tokens", x.idealSharedTokens());
    g.writeNumberField("ideal_prompt_tokens", x.idealPromptTokens());
    number(g, "ideal_hit_ratio", x.idealRatio());
  }

  private static void ttft(JsonGenerator g, String name, Distribution d) throws IOException {
    g.writeObjectFieldStart(name);
    g.writeNumberField("count", d.count());
    number(g, "mean", d.mean());
    for (Percentile p : Percentile.values()) {
      number(g, p.fieldName(), d.percentile(p.p()));
    }
    number(g, "max", d.max());
    g.writeEndObject();
  }
}
