package io.infermark.perturbation.validate;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.request.GenerationParams;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Structured-output requests from a JSON schema: the OpenAI-compatible
 * {@code response_format: {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}} body
 * field (accepted by OpenAI, vLLM, SGLang and llama.cpp's server), built from the same schema a
 * {@link Validators#jsonSchema(JsonNode)} validator checks responses against.
 */
public final class ResponseFormat {

  /** The body field's name. */
  public static final String FIELD = "response_format";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private ResponseFormat() {}

  /**
   * The {@code response_format} value for a schema.
   *
   * @param name the schema's name (letters, digits, {@code _} and {@code -}, at most 64, as OpenAI requires)
   * @param schema a JSON schema object
   * @param strict whether the server must follow the schema exactly
   */
  public static Map<String, Object> jsonSchema(String name, JsonNode schema, boolean strict) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(schema, "schema");
    if (name.isEmpty() || name.length() > 64
        || !name.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '-')) {
      throw new IllegalArgumentException("response format name must be 1-64 letters, digits, '_' or '-', was '"
          + name + "'");
    }
    if (!schema.isObject()) {
      throw new IllegalArgumentException("response format schema must be a JSON object, was " + schema.getNodeType());
    }
    Map<String, Object> jsonSchema = new LinkedHashMap<>();
    jsonSchema.put("name", name);
    jsonSchema.put("schema", MAPPER.convertValue(schema, new TypeReference<Map<String, Object>>() {}));
    jsonSchema.put("strict", strict);
    Map<String, Object> format = new LinkedHashMap<>();
    format.put("type", "json_schema");
    format.put("json_schema", jsonSchema);
    return format;
  }

  /** {@code params} with a strict {@code response_format} for {@code schema} under {@code name}. */
  public static GenerationParams apply(GenerationParams params, String name, JsonNode schema) {
    Objects.requireNonNull(params, "params");
    return params.toBuilder().extraBody(FIELD, jsonSchema(name, schema, true)).build();
  }
}
