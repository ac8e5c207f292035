package io.infermark.perturbation.validate;

import io.infermark.core.capture.RequestRecord;
import io.infermark.perturbation.Variant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Response validity of a request record, as a plain {@code Predicate<RequestRecord>} that SLO and
 * goodput code can use: a record is valid when the request succeeded and its captured text passes
 * the validator. Failed requests are invalid (errors count as misses).
 *
 * <p>Needs the response text: run the benchmark with {@code captureText(true)}. A successful record
 * without text is a configuration error and throws rather than counting as valid or invalid.
 */
public final class Validity implements Predicate<RequestRecord> {

  private final Function<RequestRecord, ResponseValidator> validatorOf;
  private final String description;

  private Validity(Function<RequestRecord, ResponseValidator> validatorOf, String description) {
    this.validatorOf = validatorOf;
    this.description = description;
  }

  /** The same validator for every record. */
  public static Validity of(ResponseValidator validator) {
    Objects.requireNonNull(validator, "validator");
    return new Validity(r -> validator, validator.toString());
  }

  /**
   * A validator per variant, chosen by the record's {@code variant} tag: for designs whose variants
   * expect different outputs (a mutated schema, an injected canary).
   *
   * @throws IllegalArgumentException when a record's variant is not among {@code variants}
   */
  public static Validity perVariant(List<Variant> variants, Function<Variant, ResponseValidator> validatorFor) {
    Map<String, ResponseValidator> byTag = new HashMap<>();
    for (Variant v : variants) {
      byTag.put(Integer.toString(v.index()), Objects.requireNonNull(validatorFor.apply(v), "validator of " + v));
    }
    return new Validity(r -> {
      String tag = r.tags().get(Variant.VARIANT_TAG);
      ResponseValidator v = tag == null ? null : byTag.get(tag);
      if (v == null) {
        throw new IllegalArgumentException("record #" + r.index() + " has variant tag '" + tag
            + "', which is not among the " + variants.size() + " variants given");
      }
      return v;
    }, "per variant of " + variants.size());
  }

  /** The verdict on one record. */
  public Verdict verdict(RequestRecord record) {
    if (!record.succeeded()) {
      return Verdict.fail("request failed: " + record.failure().orElseThrow().category());
    }
    String text = record.text().orElseThrow(() -> new IllegalStateException("record #" + record.index()
        + " has no captured text: run the benchmark with captureText(true) to validate responses"));
    return validatorOf.apply(record).validate(text);
  }

  @Override
  public boolean test(RequestRecord record) {
    return verdict(record).valid();
  }

  @Override
  public String toString() {
    return "Validity[" + description + "]";
  }
}
