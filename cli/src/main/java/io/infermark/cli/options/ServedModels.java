package io.infermark.cli.options;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The model a server serves, asked as vLLM's client asks when {@code --model} is missing: {@code GET .../models}
 * (the OpenAI model list) and the first entry's {@code id}.
 */
final class ServedModels {

  /** The most of the model list read: a list of a few models is a few KB. */
  static final int MAX_BODY_BYTES = 1 << 20;
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  private ServedModels() {}

  /**
   * The first model the list at {@code url} names.
   *
   * @param url the model list's URL, e.g. {@code http://127.0.0.1:8000/v1/models}
   * @param apiKey sent as a bearer token when present
   * @param shown the URL as messages show it (no credentials)
   * @throws IllegalArgumentException if the server cannot be asked, answers an error, or lists no model
   */
  static String first(String url, Optional<String> apiKey, String shown) {
    String why;
    try {
      HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT)
          .followRedirects(HttpClient.Redirect.NORMAL).build();
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET()
          .header("Accept", "application/json");
      apiKey.ifPresent(k -> request.header("Authorization", "Bearer " + k));
      HttpResponse<InputStream> r = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      byte[] body;
      try (InputStream in = r.body()) {
        body = in.readNBytes(MAX_BODY_BYTES);
      }
      if (r.statusCode() != 200) {
        why = "it answered HTTP " + r.statusCode();
      } else {
        Optional<String> id = firstId(body);
        if (id.isPresent()) {
          return id.get();
        }
        why = "its answer names no model (expected {\"data\": [{\"id\": ...}]})";
      }
    } catch (IOException | IllegalArgumentException e) {
      String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      why = "it could not be asked: " + message.replace(url, shown).replaceAll("//[^/@\\s]*@", "//***@");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      why = "interrupted";
    }
    throw new IllegalArgumentException("--model is missing and the server's model list at " + shown + " gave none ("
        + why + "): name the model with --model");
  }

  /** The first {@code data[].id} of an OpenAI model list. */
  static Optional<String> firstId(byte[] body) {
    try {
      JsonNode data = JSON.readTree(body).path("data");
      if (data.isArray()) {
        for (JsonNode m : data) {
          String id = m.path("id").asText("");
          if (!id.isBlank()) {
            return Optional.of(id);
          }
        }
      }
    } catch (IOException e) {
      // not JSON: no model
    }
    return Optional.empty();
  }
}
