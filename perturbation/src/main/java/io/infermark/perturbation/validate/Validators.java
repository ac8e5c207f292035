package io.infermark.perturbation.validate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Response validators: JSON Schema (networknt json-schema-validator, draft 2020-12 unless the
 * schema's {@code $schema} says otherwise), regex on the whole text or on a JSON field, numeric
 * ranges, exact match and custom predicates. JSON checks find the JSON with {@link JsonResponses}.
 */
public final class Validators {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

  private Validators() {}

  /** Valid when the response holds JSON that {@code schema} accepts; the reason lists the first errors. */
  public static ResponseValidator jsonSchema(JsonNode schema) {
    Objects.requireNonNull(schema, "schema");
    if (!schema.isObject() && !schema.isBoolean()) {
      throw new IllegalArgumentException("a JSON schema must be an object or a boolean, was " + schema.getNodeType());
    }
    Schema compiled = REGISTRY.getSchema(schema.deepCopy());
    return new Named("jsonSchema", response -> {
      JsonNode json = JsonResponses.parse(response).orElse(null);
      if (json == null) {
        return Verdict.fail("no JSON in the response");
      }
      List<Error> errors = compiled.validate(json);
      if (errors.isEmpty()) {
        return Verdict.pass();
      }
      StringBuilder reason = new StringBuilder("schema: ");
      for (int i = 0; i < Math.min(3, errors.size()); i++) {
        reason.append(i == 0 ? "" : "; ").append(errors.get(i).toString());
      }
      if (errors.size() > 3) {
        reason.append("; and ").append(errors.size() - 3).append(" more");
      }
      return Verdict.fail(reason.toString());
    });
  }

  /** {@link #jsonSchema(JsonNode)} from JSON text. */
  public static ResponseValidator jsonSchema(String schemaJson) {
    try {
      return jsonSchema(MAPPER.readTree(schemaJson));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("JSON schema is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** Valid when {@code regex} is found anywhere in the response, e.g. {@code ORDER-\d{6}}. */
  public static ResponseValidator regex(String regex) {
    Pattern p = Pattern.compile(regex);
    return new Named("regex(" + regex + ")", response -> p.matcher(response).find() ? Verdict.pass()
        : Verdict.fail("no match for /" + regex + "/"));
  }

  /**
   * Valid when the JSON field at {@code pointer} (RFC 6901, e.g. {@code /order/id}) is a scalar
   * whose text matches {@code regex} entirely.
   */
  public static ResponseValidator regexField(String pointer, String regex) {
    checkPointer(pointer);
    Pattern p = Pattern.compile(regex);
    return new Named("regexField(" + pointer + ", " + regex + ")", response -> {
      JsonNode field = field(response, pointer);
      if (field == null) {
        return Verdict.fail("no JSON field " + pointer);
      }
      return p.matcher(field.asText()).matches() ? Verdict.pass()
          : Verdict.fail(pointer + " does not match /" + regex + "/");
    });
  }

  /** Valid when the whole response (trimmed) is a number in {@code [min, max]}. */
  public static ResponseValidator numericRange(double min, double max) {
    checkRange(min, max);
    return new Named("numericRange[" + min + ", " + max + "]", response -> inRange(response.strip(), min, max, "response"));
  }

  /** Valid when the JSON field at {@code pointer} is a number (or numeric string) in {@code [min, max]}. */
  public static ResponseValidator numericRange(String pointer, double min, double max) {
    checkPointer(pointer);
    checkRange(min, max);
    return new Named("numericRange(" + pointer + ")[" + min + ", " + max + "]", response -> {
      JsonNode field = field(response, pointer);
      if (field == null) {
        return Verdict.fail("no JSON field " + pointer);
      }
      return inRange(field.asText(), min, max, pointer);
    });
  }

  /** Valid when the response, with leading and trailing whitespace removed, equals {@code expected}'s. */
  public static ResponseValidator exact(String expected) {
    String e = Objects.requireNonNull(expected, "expected").strip();
    return new Named("exact", response -> response.strip().equals(e) ? Verdict.pass()
        : Verdict.fail("differs from the expected text"));
  }

  /** Valid when {@code predicate} accepts the response; {@code name} is the failure reason. */
  public static ResponseValidator predicate(String name, Predicate<String> predicate) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(predicate, "predicate");
    return new Named(name, response -> predicate.test(response) ? Verdict.pass() : Verdict.fail("failed " + name));
  }

  /** Valid when every validator passes; the first failure is reported. */
  public static ResponseValidator allOf(ResponseValidator... validators) {
    if (validators.length == 0) {
      throw new IllegalArgumentException("allOf needs at least one validator");
    }
    ResponseValidator all = validators[0];
    for (int i = 1; i < validators.length; i++) {
      all = all.and(validators[i]);
    }
    return all;
  }

  private static Verdict inRange(String text, double min, double max, String what) {
    double v;
    try {
      v = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      return Verdict.fail(what + " is not a number");
    }
    return v >= min && v <= max ? Verdict.pass() : Verdict.fail(what + " " + v + " outside [" + min + ", " + max + "]");
  }

  private static JsonNode field(String response, String pointer) {
    JsonNode json = JsonResponses.parse(response).orElse(null);
    if (json == null) {
      return null;
    }
    JsonNode field = json.at(pointer);
    return field.isMissingNode() || field.isContainerNode() || field.isNull() ? null : field;
  }

  private static void checkPointer(String pointer) {
    Objects.requireNonNull(pointer, "pointer");
    if (!pointer.startsWith("/")) {
      throw new IllegalArgumentException("JSON pointer must start with '/', was '" + pointer + "'");
    }
  }

  private static void checkRange(double min, double max) {
    if (Double.isNaN(min) || Double.isNaN(max) || min > max) {
      throw new IllegalArgumentException("numeric range needs min <= max, was [" + min + ", " + max + "]");
    }
  }

  /** A validator with a name for toString(). */
  private record Named(String name, ResponseValidator delegate) implements ResponseValidator {
    @Override
    public Verdict validate(String response) {
      return delegate.validate(response);
    }

    @Override
    public String toString() {
      return "Validator[" + name + "]";
    }
  }
}
