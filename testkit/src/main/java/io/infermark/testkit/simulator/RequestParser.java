package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.OptionalInt;

/**
 * Turns a request body into a {@link GenerationRequest}, or the {@link ApiError} a vLLM server
 * would answer: malformed JSON, a missing {@code messages}/{@code prompt}, a {@code max_tokens}
 * below 1 or past the model's context length (prompt + {@code max_tokens} over
 * {@link SimulatorConfig#maxModelLength()}), or wrongly typed fields are 400; a model other than
 * the served one is 404.
 *
 * <p>An absent {@code model} is accepted and means the served model, as in vLLM (which serves
 * its one model when the field is omitted). Fields the simulator does not model (temperature,
 * stop, tools, ...) are ignored.
 */
final class RequestParser {

  private final ObjectMapper mapper;
  private final String model;
  private final int maxModelLength;

  RequestParser(ObjectMapper mapper, String model, int maxModelLength) {
    this.mapper = mapper;
    this.model = model;
    this.maxModelLength = maxModelLength;
  }

  GenerationRequest parse(Endpoint endpoint, byte[] body) throws ApiError {
    JsonNode root = readObject(body);
    boolean stream = optionalBoolean(root, "stream");
    boolean includeUsage = false;
    boolean continuousUsage = false;
    JsonNode options = root.get("stream_options");
    if (options != null && !options.isNull()) {
      if (!options.isObject()) {
        throw ApiError.badRequest("stream_options must be an object", "stream_options");
      }
      if (!stream) {
        throw ApiError.badRequest("stream_options can only be set when stream is true", "stream_options");
      }
      includeUsage = optionalBoolean(options, "include_usage");
      continuousUsage = optionalBoolean(options, "continuous_usage_stats");
    }
    OptionalInt maxTokens = optionalPositiveInt(root, "max_tokens");
    if (endpoint == Endpoint.CHAT) {
      // OpenAI's newer name wins over the deprecated one, as in vLLM.
      OptionalInt maxCompletion = optionalPositiveInt(root, "max_completion_tokens");
      if (maxCompletion.isPresent()) {
        maxTokens = maxCompletion;
      }
    }
    boolean ignoreEos = optionalBoolean(root, "ignore_eos");
    JsonNode n = root.get("n");
    if (n != null && !n.isNull() && !(n.canConvertToInt() && n.isIntegralNumber() && n.intValue() == 1)) {
      throw ApiError.badRequest("the simulator only supports n=1, was " + n, "n");
    }
    LongList hashes = new LongList();
    if (endpoint == Endpoint.CHAT) {
      chatPromptTokens(root, hashes);
    } else {
      completionPromptTokens(root, hashes);
    }
    checkModel(root);
    int promptTokens = hashes.size();
    if (maxTokens.isPresent() && (long) promptTokens + maxTokens.getAsInt() > maxModelLength) {
      throw ApiError.badRequest("This model's maximum context length is " + maxModelLength + " tokens. However, "
          + "you requested " + ((long) promptTokens + maxTokens.getAsInt()) + " tokens (" + promptTokens
          + " in the messages, " + maxTokens.getAsInt() + " in the completion). Please reduce the length of the "
          + "messages or completion.", "max_tokens");
    }
    if (promptTokens >= maxModelLength) {
      throw ApiError.badRequest("This model's maximum context length is " + maxModelLength + " tokens. However, "
          + "your request has " + promptTokens + " input tokens. Please reduce the length of the input messages.",
          endpoint == Endpoint.CHAT ? "messages" : "prompt");
    }
    return new GenerationRequest(endpoint, stream, includeUsage, continuousUsage, maxTokens, ignoreEos,
        promptTokens, hashes.toArray());
  }

  private JsonNode readObject(byte[] body) throws ApiError {
    JsonNode root;
    try {
      root = mapper.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiError.badRequest("Request body is not valid JSON: " + e.getOriginalMessage(), null);
    } catch (IOException e) {
      throw ApiError.badRequest("Request body is not valid JSON: " + e.getMessage(), null);
    }
    if (root == null || root.isMissingNode()) {
      throw ApiError.badRequest("Request body is empty; send a JSON object", null);
    }
    if (!root.isObject()) {
      throw ApiError.badRequest("Request body must be a JSON object, was " + root.getNodeType(), null);
    }
    return root;
  }

  private void checkModel(JsonNode root) throws ApiError {
    JsonNode m = root.get("model");
    if (m == null || m.isNull()) {
      return;
    }
    if (!m.isTextual()) {
      throw ApiError.badRequest("model must be a string", "model");
    }
    if (!m.textValue().equals(model)) {
      throw ApiError.notFound("The model `" + m.textValue() + "` does not exist. This simulator serves `"
          + model + "`.", "model");
    }
  }

  private static void chatPromptTokens(JsonNode root, LongList hashes) throws ApiError {
    JsonNode messages = root.get("messages");
    if (messages == null || messages.isNull()) {
      throw ApiError.badRequest("messages is required for chat completions", "messages");
    }
    if (!messages.isArray() || messages.isEmpty()) {
      throw ApiError.badRequest("messages must be a non-empty array", "messages");
    }
    for (JsonNode message : messages) {
      if (!message.isObject() || !message.path("role").isTextual()) {
        throw ApiError.badRequest("each message must be an object with a string role", "messages");
      }
      long role = message.get("role").textValue().hashCode();
      JsonNode content = message.get("content");
      if (content == null || content.isNull()) {
        continue; // an assistant message carrying only tool calls
      }
      if (content.isTextual()) {
        PromptTokenizer.hashes(content.textValue(), role, hashes);
      } else if (content.isArray()) {
        for (JsonNode part : content) {
          if ("text".equals(part.path("type").asText()) && part.path("text").isTextual()) {
            PromptTokenizer.hashes(part.get("text").textValue(), role, hashes);
          }
        }
      } else {
        throw ApiError.badRequest("message content must be a string or an array of parts", "messages");
      }
    }
  }

  private static void completionPromptTokens(JsonNode root, LongList hashes) throws ApiError {
    JsonNode prompt = root.get("prompt");
    if (prompt == null || prompt.isNull()) {
      throw ApiError.badRequest("prompt is required for completions", "prompt");
    }
    if (prompt.isTextual()) {
      PromptTokenizer.hashes(prompt.textValue(), 0, hashes);
      return;
    }
    if (prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
      PromptTokenizer.hashes(prompt.get(0).textValue(), 0, hashes);
      return;
    }
    throw ApiError.badRequest("prompt must be a string (or an array of one string); batched and "
        + "token-id prompts are not simulated", "prompt");
  }

  private static boolean optionalBoolean(JsonNode object, String field) throws ApiError {
    JsonNode v = object.get(field);
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw ApiError.badRequest(field + " must be a boolean, was " + v, field);
    }
    return v.booleanValue();
  }

  private static OptionalInt optionalPositiveInt(JsonNode object, String field) throws ApiError {
    JsonNode v = object.get(field);
    if (v == null || v.isNull()) {
      return OptionalInt.empty();
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw ApiError.badRequest(field + " must be an integer, was " + v, field);
    }
    if (v.intValue() < 1) {
      throw ApiError.badRequest(field + " must be at least 1, was " + v.intValue(), field);
    }
    return OptionalInt.of(v.intValue());
  }
}
