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
 */
public final class TenantIsolationKit {

  /** The tag naming the scenario. */
  public static final String SCENARIO = "isolation";
  /** The tag holding the tenant. */
  public static final String TENANT_TAG = "tenant";

  private final Map<String, String> canaries;
  private final String question;

  private TenantIsolationKit(Map<String, String> canaries, String question) {
    this.canaries = canaries;
    this.question = question;
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
    return new TenantIsolationKit(canaries, question);
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
    return new IsolationVerdict(leaks.isEmpty(), leaks, judged, failed);
  }

  @Override
  public String toString() {
    return "TenantIsolationKit[" + canaries.size() + " tenants]";
  }
}
