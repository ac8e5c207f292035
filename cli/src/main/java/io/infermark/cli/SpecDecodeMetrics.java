package io.infermark.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * vLLM's speculative-decoding counters, read from the server's Prometheus {@code /metrics} before and after a run
 * as vLLM's client reads them: every {@code vllm:spec_decode*_total} sample summed by name ({@code num_drafts},
 * {@code num_draft_tokens}, {@code num_accepted_tokens}, and {@code num_accepted_tokens_per_pos} by its
 * {@code position} label). A server without them (or without {@code /metrics}) gives none, and the result file
 * then has no {@code spec_decode_*} keys.
 *
 * @param drafts drafts proposed
 * @param draftTokens draft tokens proposed
 * @param acceptedTokens draft tokens accepted
 * @param acceptedPerPosition accepted tokens by position in the draft
 */
record SpecDecodeMetrics(long drafts, long draftTokens, long acceptedTokens, Map<Integer, Long> acceptedPerPosition) {

  /** The most of a {@code /metrics} page read (vLLM's is tens of KiB); a longer page is read as having none. */
  static final int MAX_PAGE_BYTES = 8 << 20;

  /**
   * Reads the counters from a server's root URL; empty when it has none, does not answer in 5 s or sends more than
   * {@link #MAX_PAGE_BYTES}. Read with the JDK's {@code HttpURLConnection}, not its {@code HttpClient}, whose start
   * (its selector thread, the default TLS context with every CA certificate parsed) was a sixth of a small run's
   * start-up even for a plain-HTTP server.
   */
  static Optional<SpecDecodeMetrics> scrape(String rootUrl) {
    HttpURLConnection c = null;
    try {
      c = (HttpURLConnection) URI.create(rootUrl + "/metrics").toURL().openConnection();
      c.setConnectTimeout(5_000);
      c.setReadTimeout(5_000);
      c.setInstanceFollowRedirects(false);
      if (c.getResponseCode() != 200) {
        return Optional.empty();
      }
      try (InputStream in = c.getInputStream()) {
        byte[] page = in.readNBytes(MAX_PAGE_BYTES + 1);
        return page.length > MAX_PAGE_BYTES ? Optional.empty()
            : parse(new String(page, StandardCharsets.UTF_8));
      }
    } catch (IOException | IllegalArgumentException | ClassCastException e) {
      return Optional.empty();
    } finally {
      if (c != null) {
        c.disconnect();
      }
    }
  }

  /** The counters in a Prometheus text exposition; empty when it has no {@code vllm:spec_decode*_total} sample. */
  static Optional<SpecDecodeMetrics> parse(String text) {
    long drafts = 0;
    long draftTokens = 0;
    long accepted = 0;
    Map<Integer, Long> perPos = new TreeMap<>();
    boolean found = false;
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#") || !line.startsWith("vllm:spec_decode")) {
        continue;
      }
      String[] parts = line.split("\\s+");
      String name = parts[0].split("\\{")[0];
      if (!name.endsWith("_total") || parts.length < 2) {
        continue;
      }
      found = true;
      long value;
      try {
        value = (long) Double.parseDouble(parts[parts.length - 1]);
      } catch (NumberFormatException e) {
        continue;
      }
      if (name.contains("num_drafts")) {
        drafts += value;
      } else if (name.contains("num_draft_tokens")) {
        draftTokens += value;
      } else if (name.contains("num_accepted_tokens_per_pos")) {
        int at = line.indexOf("position=\"");
        if (at >= 0) {
          int from = at + "position=\"".length();
          try {
            perPos.merge(Integer.parseInt(line.substring(from, line.indexOf('"', from))), value, Long::sum);
          } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            // a malformed label: skipped, as vLLM skips it
          }
        }
      } else if (name.contains("num_accepted_tokens")) {
        accepted += value;
      }
    }
    return found ? Optional.of(new SpecDecodeMetrics(drafts, draftTokens, accepted, perPos)) : Optional.empty();
  }

  /**
   * The result keys vLLM writes for the run between two readings: acceptance rate (%), acceptance length
   * ({@code 1 + accepted / drafts}), the counts and the per-position rates (accepted at a position / drafts); empty
   * when no draft token was proposed in between.
   */
  static Map<String, Object> resultKeys(SpecDecodeMetrics before, SpecDecodeMetrics after) {
    long drafts = after.drafts - before.drafts;
    long draftTokens = after.draftTokens - before.draftTokens;
    long accepted = after.acceptedTokens - before.acceptedTokens;
    Map<String, Object> m = new LinkedHashMap<>();
    if (draftTokens <= 0) {
      return m;
    }
    List<Double> perPos = new ArrayList<>();
    if (drafts > 0) {
      TreeSet<Integer> positions = new TreeSet<>(before.acceptedPerPosition.keySet());
      positions.addAll(after.acceptedPerPosition.keySet());
      for (int pos : positions) {
        long b = before.acceptedPerPosition.getOrDefault(pos, 0L);
        long a = after.acceptedPerPosition.getOrDefault(pos, b);
        perPos.add((double) (a - b) / drafts);
      }
    }
    m.put("spec_decode_acceptance_rate", 100.0 * accepted / draftTokens);
    m.put("spec_decode_acceptance_length", drafts > 0 ? 1 + (double) accepted / drafts : 0.0);
    m.put("spec_decode_num_drafts", drafts);
    m.put("spec_decode_draft_tokens", draftTokens);
    m.put("spec_decode_accepted_tokens", accepted);
    m.put("spec_decode_per_position_acceptance_rates", perPos);
    return m;
  }
}
