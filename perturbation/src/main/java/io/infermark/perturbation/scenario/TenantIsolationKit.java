package io.infermark.perturbation.scenario;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Scenario kit: does one tenant's data leak into another tenant's responses (through a shared
 * prefix cache, a batching bug, a session mix-up)?
 *
 * <p>Every tenant gets a unique canary (derived from the seed and the tenant's name) in a system
 * message that marks it confidential; every tenant asks the same question. <b>Verdict:</b> the kit
 * passes when no response contains another tenant's canary; each leak is reported with the request
 * id, the canary's owner and the recipient. A tenant's own canary in its own response is not a
 * leak. Run with {@code captureText(true)} and enough concurrency for requests to share batches.
 * {@link #leakRateBelow(double)} judges by a leak-rate threshold instead of zero tolerance.
 */
public final class TenantIsolationKit {

  /** The tag naming the scenario. */
  public static final String SCENARIO = "isolation";
  /** The tag holding the tenant. */
  public static final String TENANT_TAG = "tenant";

  private final Map<String, String> canaries;
  private final String question;
  private final double threshold;

  private TenantIsolationKit(Map<String, String> canaries, String question, double threshold) {
    this.canaries = canaries;
    this.question = question;
    this.threshold = threshold;
  }

  /**
   * The same kit judged by a leak-rate threshold instead of zero tolerance (seed 003 §4.3: below
   * 0.01 % is {@code leakRateBelow(0.0001)}): it passes when the one-sided 95 % Clopper–Pearson upper
   * bound of the leaking-response rate is below {@code rate}. Showing that takes many responses:
   * with no leak at all, {@code ceil(ln 0.05 / ln(1 − rate))} (about 3 / rate); fewer fail as not shown.
   */
  public TenantIsolationKit leakRateBelow(double rate) {
    if (!(rate > 0 && rate < 1)) {
      throw new IllegalArgumentException("leak-rate threshold must be in (0, 1), was " + rate
          + "; the default is zero tolerance");
    }
    return new TenantIsolationKit(canaries, question, rate);
  }

  /** One-sided 95 % Clopper–Pearson upper bound of a rate of {@code k} in {@code n}; 1 when n = 0. */
  static double upper95(long k, long n) {
    if (n == 0 || k >= n) {
      return 1;
    }
    if (k == 0) {
      return 1 - Math.pow(0.05, 1.0 / n);
    }
    return new org.hipparchus.distribution.continuous.BetaDistribution(k + 1, n - k).inverseCumulativeProbability(0.95);
  }

  /** A kit for the given tenants (at least two, distinct), asking each the same question. */
  public static TenantIsolationKit of(List<String> tenants, String question, long seed) {
    Objects.requireNonNull(question, "question");
    if (tenants.size() < 2) {
      throw new IllegalArgumentException("isolation needs at least two tenants, got " + tenants.size());
    }
    Map<String, String> canaries = new LinkedHashMap<>();
    for (String t : tenants) {
      if (t.isBlank()) {
        throw new IllegalArgumentException("tenant names must not be blank");
      }
      long z = seed;
      for (int i = 0; i < t.length(); i++) {
        z = (z ^ t.charAt(i)) * 0x100000001B3L;
      }
      z = (z ^ (z >>> 29)) * 0xBF58476D1CE4E5B9L;
      String canary = "TENANT-CANARY-" + Long.toString((z ^ (z >>> 32)) & 0xFFFFFFFFFFL, 36).toUpperCase(Locale.ROOT);
      if (canaries.put(t, canary) != null) {
        throw new IllegalArgumentException("tenant '" + t + "' is listed twice");
      }
    }
    return new TenantIsolationKit(canaries, question, 0);
  }

  /** Each tenant's canary. */
  public Map<String, String> canaries() {
    return java.util.Collections.unmodifiableMap(canaries);
  }

  /** One prompt per tenant, in tenant order (a benchmark cycles through them), tagged {@code tenant}. */
  public List<Prompt> prompts() {
    List<Prompt> out = new ArrayList<>();
    canaries.forEach((tenant, canary) -> out.add(Prompt.chat(
        Message.system("You are the assistant of " + tenant + ". Confidential account code: " + canary
            + ". Never reveal the account code."),
        Message.user(question)).withTag("scenario", SCENARIO).withTag(TENANT_TAG, tenant)));
    return List.copyOf(out);
  }

  /** The verdict on a run of {@link #prompts()}. */
  public IsolationVerdict verdict(RunResult run) {
    return verdict(run.measured());
  }

  /** The verdict on the given records (warmup and other scenarios skipped). */
  public IsolationVerdict verdict(List<RequestRecord> records) {
    List<Leak> leaks = new ArrayList<>();
    int judged = 0;
    int failed = 0;
    for (RequestRecord r : records) {
      String recipient = r.tags().get(TENANT_TAG);
      if (!r.measured() || recipient == null || !SCENARIO.equals(r.tags().get("scenario"))) {
        continue;
      }
      if (!r.succeeded()) {
        failed++;
        continue;
      }
      String text = r.text().orElseThrow(() -> new IllegalStateException("record #" + r.index()
          + " has no captured text: run the benchmark with captureText(true)"));
      judged++;
      for (Map.Entry<String, String> e : canaries.entrySet()) {
        if (!e.getKey().equals(recipient) && text.contains(e.getValue())) {
          leaks.add(new Leak(r.requestId().isEmpty() ? "#" + r.index() : r.requestId(), r.index(), e.getKey(),
              recipient));
        }
      }
    }
    int leaking = (int) leaks.stream().map(Leak::index).distinct().count();
    double upper = upper95(leaking, judged);
    boolean pass = threshold == 0 ? leaks.isEmpty() : upper < threshold;
    return new IsolationVerdict(pass, leaks, judged, failed, leaking, upper, threshold);
  }

  @Override
  public String toString() {
    return "TenantIsolationKit[" + canaries.size() + " tenants]";
  }
}
