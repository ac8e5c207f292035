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
  private final boolean tritonTokenCounts;

  /** With {@code tritonTokenCounts} false the Triton endpoints refuse {@code return_num_output_tokens}. */
  RequestParser(ObjectMapper mapper, String model, int maxModelLength, boolean tritonTokenCounts) {
    this.mapper = mapper;
    this.model = model;
    this.maxModelLength = maxModelLength;
    this.tritonTokenCounts = tritonTokenCounts;
  }

  GenerationRequest parse(Endpoint endpoint, byte[] body) throws ApiError {
    if (endpoint != Endpoint.CHAT && endpoint != Endpoint.COMPLETIONS) {
      return parseProtocol(endpoint, readObject(body));
    }
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

  /**
   * The other protocols' requests: Anthropic ({@code messages}, {@code system}, required
   * {@code max_tokens}), Ollama ({@code messages} or {@code prompt}, {@code options.num_predict},
   * {@code stream} true unless false), TGI ({@code inputs}, {@code parameters.max_new_tokens},
   * {@code parameters.details}), llama.cpp ({@code prompt}, {@code n_predict}, {@code ignore_eos}),
   * Triton ({@code text_input}, {@code max_tokens}) and OpenAI Responses ({@code input},
   * {@code max_output_tokens}). TGI, llama.cpp and Triton name no model in the body.
   */
  private GenerationRequest parseProtocol(Endpoint endpoint, JsonNode root) throws ApiError {
    LongList hashes = new LongList();
    OptionalInt maxTokens;
    boolean stream;
    boolean details = false;
    boolean ignoreEos = false;
    switch (endpoint) {
      case ANTHROPIC_MESSAGES -> {
        JsonNode system = root.get("system");
        if (system != null && system.isTextual()) {
          PromptTokenizer.hashes(system.textValue(), "system".hashCode(), hashes);
        }
        chatPromptTokens(root, hashes);
        maxTokens = optionalPositiveInt(root, "max_tokens");
        if (maxTokens.isEmpty()) {
          throw ApiError.badRequest("max_tokens: Field required", "max_tokens");
        }
        stream = optionalBoolean(root, "stream");
        checkModel(root);
      }
      case OLLAMA_CHAT, OLLAMA_GENERATE -> {
        if (endpoint == Endpoint.OLLAMA_CHAT) {
          chatPromptTokens(root, hashes);
        } else {
          textPromptTokens(root, "prompt", hashes);
        }
        JsonNode options = root.path("options");
        JsonNode predict = options.get("num_predict");
        maxTokens = predict != null && predict.isIntegralNumber() && predict.intValue() < 0
            ? OptionalInt.empty() : options.isObject() ? optionalPositiveInt(options, "num_predict") : OptionalInt.empty();
        JsonNode s = root.get("stream");
        stream = s == null || s.isNull() || optionalBoolean(root, "stream");
        JsonNode m = root.get("model");
        if (m == null || !m.isTextual() || m.textValue().isEmpty()) {
          throw ApiError.badRequest("model is required", "model");
        }
        if (!m.textValue().equals(model)) {
          throw ApiError.notFound("model '" + m.textValue() + "' not found", "model");
        }
      }
      case TGI_GENERATE_STREAM, TGI_GENERATE -> {
        textPromptTokens(root, "inputs", hashes);
        JsonNode parameters = root.path("parameters");
        maxTokens = parameters.isObject() ? optionalPositiveInt(parameters, "max_new_tokens") : OptionalInt.empty();
        details = parameters.isObject() && optionalBoolean(parameters, "details");
        stream = endpoint.alwaysStreams();
      }
      case LLAMACPP_COMPLETION -> {
        textPromptTokens(root, "prompt", hashes);
        JsonNode predict = root.get("n_predict");
        maxTokens = predict != null && predict.isIntegralNumber() && predict.intValue() < 0
            ? OptionalInt.empty() : optionalPositiveInt(root, "n_predict");
        ignoreEos = optionalBoolean(root, "ignore_eos");
        stream = optionalBoolean(root, "stream");
      }
      case TRITON_GENERATE_STREAM, TRITON_GENERATE -> {
        textPromptTokens(root, "text_input", hashes);
        maxTokens = optionalPositiveInt(root, "max_tokens");
        stream = endpoint.alwaysStreams();
        // the input return_num_output_tokens, top level or among parameters; carried as include-usage
        JsonNode parameters = root.path("parameters");
        if (!tritonTokenCounts && (root.has("return_num_output_tokens")
            || parameters.isObject() && parameters.has("return_num_output_tokens"))) {
          // a model that does not declare the input (an older vLLM backend, TensorRT-LLM's stock ensemble)
          throw ApiError.badRequest("[request id: <id_unknown>] unexpected inference input "
              + "'return_num_output_tokens' for model '" + model + "'", "return_num_output_tokens");
        }
        details = optionalBoolean(root, "return_num_output_tokens")
            || parameters.isObject() && optionalBoolean(parameters, "return_num_output_tokens");
      }
      case OPENAI_RESPONSES -> {
        JsonNode input = root.get("input");
        if (input != null && input.isTextual()) {
          PromptTokenizer.hashes(input.textValue(), "user".hashCode(), hashes);
        } else {
          messageTokens(input, "input", hashes);
        }
        maxTokens = optionalPositiveInt(root, "max_output_tokens");
        stream = optionalBoolean(root, "stream");
        checkModel(root);
      }
      default -> throw new IllegalArgumentException("not a protocol endpoint: " + endpoint);
    }
    int promptTokens = hashes.size();
    if (promptTokens >= maxModelLength
        || (maxTokens.isPresent() && (long) promptTokens + maxTokens.getAsInt() > maxModelLength)) {
      throw ApiError.badRequest("This model's maximum context length is " + maxModelLength + " tokens; the request "
          + "has " + promptTokens + " input tokens and asks for " + (maxTokens.isPresent() ? maxTokens.getAsInt()
          : 0) + " more", "max_tokens");
    }
    return new GenerationRequest(endpoint, stream, details, false, maxTokens, ignoreEos, promptTokens,
        hashes.toArray());
  }

  private static void textPromptTokens(JsonNode root, String field, LongList hashes) throws ApiError {
    JsonNode text = root.get(field);
    if (text == null || !text.isTextual()) {
      throw ApiError.badRequest(field + " is required and must be a string", field);
    }
    PromptTokenizer.hashes(text.textValue(), 0, hashes);
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
    messageTokens(root.get("messages"), "messages", hashes);
  }

  private static void messageTokens(JsonNode messages, String field, LongList hashes) throws ApiError {
    if (messages == null || messages.isNull()) {
      throw ApiError.badRequest(field + " is required", field);
    }
    if (!messages.isArray() || messages.isEmpty()) {
      throw ApiError.badRequest(field + " must be a non-empty array", field);
    }
    for (JsonNode message : messages) {
      if (!message.isObject() || !message.path("role").isTextual()) {
        throw ApiError.badRequest("each message must be an object with a string role", field);
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
          String type = part.path("type").asText();
          if ((type.equals("text") || type.equals("input_text")) && part.path("text").isTextual()) {
            PromptTokenizer.hashes(part.get("text").textValue(), role, hashes);
          } else {
            mediaTokens(type, part, role, field, hashes);
          }
        }
      } else {
        throw ApiError.badRequest("message content must be a string or an array of parts", field);
      }
    }
  }

  /**
   * Charges an image or audio part's prompt tokens ({@link MediaTokens}): OpenAI's {@code image_url}
   * ({@code url} a string or {@code {"url": ...}}) and {@code input_audio} ({@code data}, {@code format}),
   * Anthropic's {@code image} ({@code source} of type {@code base64} or {@code url}). Each token's
   * hash is derived from the part's data, so the prefix cache recognises the same image again.
   * Other part types are not simulated and cost nothing.
   */
  private static void mediaTokens(String type, JsonNode part, long role, String field, LongList hashes)
      throws ApiError {
    String data;
    int tokens;
    try {
      switch (type) {
        case "image_url" -> {
          JsonNode url = part.path("image_url");
          data = url.isTextual() ? url.textValue() : url.path("url").asText("");
          if (data.isEmpty()) {
            throw ApiError.badRequest("an image_url part needs image_url.url", field);
          }
          tokens = MediaTokens.imageUrlTokens(data);
        }
        case "input_audio" -> {
          JsonNode audio = part.path("input_audio");
          data = audio.path("data").asText("");
          if (data.isEmpty() || !audio.path("format").isTextual()) {
            throw ApiError.badRequest("an input_audio part needs input_audio.data and input_audio.format", field);
          }
          tokens = MediaTokens.audioTokens(data, audio.get("format").textValue());
        }
        case "image" -> {
          JsonNode source = part.path("source");
          String sourceType = source.path("type").asText("");
          if (sourceType.equals("base64") && source.path("data").isTextual()) {
            data = source.get("data").textValue();
            tokens = MediaTokens.imageDataTokens(data);
          } else if (sourceType.equals("url") && source.path("url").isTextual()) {
            data = source.get("url").textValue();
            tokens = MediaTokens.imageUrlTokens(data);
          } else {
            throw ApiError.badRequest("an image block needs a source of type base64 (with data) or url (with url)",
                field);
          }
        }
        default -> {
          return;
        }
      }
    } catch (IllegalArgumentException e) {
      throw ApiError.badRequest(e.getMessage(), field);
    }
    long salt = Mix.mix64(role, data.hashCode() * 31L + data.length());
    for (int i = 0; i < tokens; i++) {
      hashes.add(Mix.mix64(salt, i));
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
