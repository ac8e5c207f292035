package io.infermark.cli.options;

import io.infermark.core.protocol.AnthropicTarget;
import io.infermark.core.protocol.HttpTarget;
import io.infermark.core.protocol.LlamaCppTarget;
import io.infermark.core.protocol.OllamaTarget;
import io.infermark.core.protocol.OpenAiResponsesTarget;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.protocol.Target;
import io.infermark.core.protocol.TgiTarget;
import io.infermark.core.protocol.TritonGrpcTarget;
import io.infermark.core.protocol.TritonTarget;
import io.infermark.core.transport.netty.HttpVersionPolicy;
import io.infermark.core.transport.netty.NettyTransport;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where to send requests, with {@code vllm bench serve}'s flags ({@code --base-url}, {@code --host},
 * {@code --port}, {@code --endpoint}, {@code --backend}, {@code --model}, {@code --served-model-name})
 * and seed 002's {@code --url}. The API key comes from an environment variable, never the command line.
 */
public final class TargetOptions {

  /** Options with their defaults, filled in by picocli as a mixin. */
  public TargetOptions() {}

  /** vLLM's backends that speak the OpenAI completions or chat API. */
  public static final List<String> OPENAI_BACKENDS = List.of("vllm", "openai", "openai-chat", "sglang", "lmdeploy",
      "scalellm");
  /**
   * Backends with a protocol of their own: vLLM's {@code tgi} and {@code tensorrt-llm} (Triton's generate
   * endpoint), and infermark's other targets. The URL is the server's root ({@code --base-url}, {@code --url} or
   * {@code --host}/{@code --port}); {@code --endpoint} does not apply.
   */
  static final List<String> NATIVE_BACKENDS = List.of("tgi", "tensorrt-llm", "triton", "anthropic", "ollama",
      "ollama-generate", "llama.cpp", "openai-responses", "triton-grpc", "triton-grpc-vllm");
  /** Every backend name {@code --backend} takes. */
  static final List<String> BACKENDS = java.util.stream.Stream.concat(OPENAI_BACKENDS.stream(),
      NATIVE_BACKENDS.stream()).toList();

  @Option(names = "--base-url", paramLabel = "URL",
      description = "Server base URL, the endpoint path is appended (vLLM's --base-url), e.g. http://127.0.0.1:8000.")
  String baseUrl;

  @Option(names = "--url", paramLabel = "URL",
      description = "Base URL with /v1 (http://host:8000/v1, chat by default) or a full "
          + ".../chat/completions or .../completions URL, used exactly as given; instead of --base-url/--endpoint.")
  String url;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Server host without --base-url (default: "
      + "${DEFAULT-VALUE}); a URL (Locust's --host) is taken as --url, and one ending in /chat means its "
      + "/chat/completions.")
  String host;

  @Option(names = "--port", defaultValue = "8000", description = "Server port without --base-url (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--endpoint", paramLabel = "PATH",
      description = "API path, sent exactly as given: /v1/completions (default), /v1/chat/completions (default for "
          + "openai-chat), /chat/completions for a server mounted at its root, or any prefix.")
  String endpoint;

  @Option(names = "--backend", defaultValue = "vllm",
      description = "Backend: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}). vllm, openai, openai-chat, sglang, "
          + "lmdeploy and scalellm speak the OpenAI API; tgi (/generate_stream), tensorrt-llm and triton "
          + "(/v2/models/MODEL/generate_stream), anthropic (/v1/messages), ollama (/api/chat), ollama-generate "
          + "(/api/generate), llama.cpp (/completion) and openai-responses (/v1/responses) their own; triton-grpc "
          + "(TensorRT-LLM's tensors) and triton-grpc-vllm (the vLLM backend's) stream over gRPC "
          + "(GRPCInferenceService/ModelStreamInfer; Triton's gRPC port is 8001).",
      completionCandidates = Backends.class)
  String backend;

  @Option(names = "--model", description = "Model name (sent in each request unless --served-model-name). Without it, "
      + "an OpenAI-compatible backend uses the first model the server lists at .../models, as vLLM's client does.")
  String model;

  @Option(names = "--served-model-name", paramLabel = "NAME", description = "Model name sent in requests, if not --model.")
  String servedModelName;

  @Option(names = "--transport", defaultValue = "netty",
      description = "HTTP client: netty (event loop, default) or okhttp (thread per request).")
  String transport;

  @Option(names = "--http2", paramLabel = "MODE",
      description = "Speak HTTP/2 (netty transport): h2 (TLS, negotiated by ALPN), h2c (cleartext, prior knowledge) "
          + "or auto (h2 where a TLS server chooses it, HTTP/1.1 otherwise). Default: HTTP/1.1.")
  String http2;

  @Option(names = "--http2-streams", paramLabel = "N", defaultValue = "100",
      description = "With --http2: most concurrent streams per connection (default: ${DEFAULT-VALUE}; the server's "
          + "SETTINGS may allow fewer); more in flight open more connections.")
  int http2Streams;

  @Option(names = "--grpc-keepalive-ms", paramLabel = "MS", defaultValue = "0",
      description = "With a triton-grpc backend: send an HTTP/2 keepalive PING after MS without a read while calls "
          + "are in flight, closing the connection if it is not answered in 20 s (default: off).")
  long grpcKeepAliveMillis;

  @Option(names = "--triton-token-counts", paramLabel = "MODE", defaultValue = "auto",
      description = "With a Triton backend (tensorrt-llm, triton, triton-grpc, triton-grpc-vllm): ask for each "
          + "response's token count with the input return_num_output_tokens (on) or not (off); auto (default): on "
          + "for tensorrt-llm, triton and triton-grpc-vllm, off for triton-grpc. Turn it off for a model that does "
          + "not take the input (an older vLLM backend, TensorRT-LLM's stock ensemble over gRPC).")
  String tritonTokenCounts;

  @Option(names = "--api-key-env", paramLabel = "VAR", defaultValue = "OPENAI_API_KEY",
      description = "Environment variable holding the API key, sent as a bearer token (default: ${DEFAULT-VALUE}).")
  String apiKeyEnv;

  @Option(names = {"--insecure-tls", "--insecure"},
      description = "Do not verify the server's TLS certificate or host name (vLLM's --insecure). Every record, "
          + "report and the console say the servers were not authenticated.")
  boolean insecureTls;

  /** The backend names for --help. */
  static final class Backends implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return BACKENDS.iterator();
    }
  }

  /**
   * Speaks the OpenAI chat API, as {@code --backend openai-chat} ({@code /v1/chat/completions}): for commands whose
   * prompts are chats (system messages, turns), called when the command line chose no backend, endpoint or URL.
   */
  public void chatApi() {
    backend = "openai-chat";
  }

  /** Whether requests go to the chat endpoint. */
  public boolean chat() {
    return resolved().chat;
  }

  /** The backend name written to results: openai-chat for chat when --url was used without --backend. */
  public String backendName() {
    return resolved().backend;
  }

  /** The URL requests go to (never credentials), for messages: exactly the URL the target posts to. */
  public String describe() {
    Resolved r = resolved();
    String base = r.base.replaceAll("//[^/@]*@", "//***@");
    if (NATIVE_BACKENDS.contains(r.backend)) {
      return base + " (" + r.backend + ")";
    }
    return base + (r.chat ? "/chat/completions" : "/completions");
  }

  /**
   * What the options say: for the OpenAI backends {@code base} is everything before {@code /chat/completions} or
   * {@code /completions}, kept exactly as given (an empty path is a server mounted at the root, not {@code /v1}).
   */
  private record Resolved(String base, boolean chat, String backend) {}

  private Resolved resolved() {
    String url = this.url;
    if (url == null && host.contains("://")) {
      // Locust's --host is a URL (vLLM's a host name): a URL there is taken as --url; a .../chat one is the chat API
      if (baseUrl != null) {
        throw new IllegalArgumentException("give --host URL (Locust's) or --base-url, not both");
      }
      String h = strip(host);
      url = h.endsWith("/chat") ? h + "/completions" : h;
    }
    String b = backend.toLowerCase(Locale.ROOT);
    if (!BACKENDS.contains(b)) {
      throw new IllegalArgumentException("backend '" + backend + "' is not supported; use one of "
          + String.join(", ", BACKENDS));
    }
    if (NATIVE_BACKENDS.contains(b)) {
      if (url != null && baseUrl != null) {
        throw new IllegalArgumentException("give --url or --base-url, not both");
      }
      String prefix = "";
      if (endpoint != null) {
        // vLLM's docs give the Responses backend its path (--endpoint /v1/responses): the same path is fine
        String e = strip(endpoint.startsWith("/") ? endpoint : "/" + endpoint);
        if (!b.equals("openai-responses") || !e.endsWith("/v1/responses")) {
          throw new IllegalArgumentException("--endpoint applies to the OpenAI-compatible backends; backend " + b
              + " posts to its own path");
        }
        prefix = e.substring(0, e.length() - "/v1/responses".length());
      }
      String base = (url != null ? strip(url) : baseUrl != null ? strip(baseUrl) : "http://" + host + ":" + port)
          + prefix;
      return new Resolved(base, false, b); // vLLM's chat-only definitions (a trailing usage chunk) do not apply
    }
    if (url != null) {
      if (baseUrl != null) {
        throw new IllegalArgumentException("give --url or --base-url, not both");
      }
      String u = strip(url);
      if (u.endsWith("/chat/completions")) {
        return new Resolved(u.substring(0, u.length() - "/chat/completions".length()), true, "openai-chat");
      }
      if (u.endsWith("/completions")) {
        return new Resolved(u.substring(0, u.length() - "/completions".length()), false,
            b.equals("openai-chat") ? "openai" : b);
      }
      boolean chat = endpoint != null ? endpoint.endsWith("chat/completions")
          : b.equals("openai-chat") || backendDefaulted();
      return new Resolved(u, chat, chat ? "openai-chat" : b);
    }
    String base = baseUrl != null ? strip(baseUrl) : "http://" + host + ":" + port;
    String path = endpoint != null ? endpoint : b.equals("openai-chat") ? "/v1/chat/completions" : "/v1/completions";
    if (!path.startsWith("/")) {
      path = "/" + path;
    }
    path = strip(path);
    boolean chat;
    String prefix;
    if (path.endsWith("/chat/completions")) {
      chat = true;
      prefix = path.substring(0, path.length() - "/chat/completions".length());
    } else if (path.endsWith("/completions")) {
      chat = false;
      prefix = path.substring(0, path.length() - "/completions".length());
    } else {
      throw new IllegalArgumentException("--endpoint " + path + " is neither .../chat/completions nor .../completions");
    }
    if (b.equals("openai-chat") && !chat) {
      throw new IllegalArgumentException("backend openai-chat needs an endpoint ending in chat/completions, was " + path);
    }
    return new Resolved(base + prefix, chat, b);
  }

  private boolean backendDefaulted() {
    return backend.equals("vllm");
  }

  private static String strip(String s) {
    String t = s.strip();
    while (t.endsWith("/")) {
      t = t.substring(0, t.length() - 1);
    }
    return t;
  }

  /** The model: {@code --model}, or the one {@link #resolveModel} asked the server for. */
  public String model() {
    if (model == null) {
      throw new IllegalStateException("the model is not known yet: resolveModel first");
    }
    return model;
  }

  /**
   * Without {@code --model}, asks the server which model it serves, as vLLM's client does: {@code GET} the OpenAI
   * model list beside the endpoint ({@code .../v1/models} for {@code .../v1/chat/completions}) and take the first
   * entry, saying so on {@code err}. Other backends need {@code --model}.
   *
   * @throws IllegalArgumentException if the model is missing and cannot be learnt
   */
  public void resolveModel(java.io.PrintWriter err) {
    if (model != null) {
      return;
    }
    Resolved r = resolved();
    if (!OPENAI_BACKENDS.contains(r.backend)) {
      throw new IllegalArgumentException("--model is required with backend " + r.backend + " (only the "
          + "OpenAI-compatible backends list their models)");
    }
    String url = r.base + "/models";
    String shown = url.replaceAll("//[^/@]*@", "//***@");
    model = ServedModels.first(url, Optional.ofNullable(System.getenv(apiKeyEnv)).filter(k -> !k.isBlank()), shown);
    err.println("infermark: no --model: using " + model + ", the first model " + shown + " lists");
    err.flush();
  }

  /** The name sent in requests. */
  public String requestModel() {
    return servedModelName != null ? servedModelName : model();
  }

  /** Builds the target; its owner closes it. */
  public Target build() {
    return build(b -> { });
  }

  /** The server's root ({@code scheme://host:port}), where {@code /metrics} is. */
  public String root() {
    java.net.URI u = java.net.URI.create(resolved().base);
    return u.getScheme() + "://" + u.getRawAuthority().replaceAll("^[^@]*@", "");
  }

  /** Builds the target with further builder settings applied last; its owner closes it. */
  public Target build(java.util.function.Consumer<HttpTarget.Builder<?, ?>> customize) {
    Resolved r = resolved();
    tritonTokenCounts(); // a wrong value is refused whatever the backend
    if (r.backend.startsWith("triton-grpc")) {
      return grpc(r.base);
    }
    HttpTarget.Builder<?, ?> b = switch (r.backend) {
      case "tgi" -> TgiTarget.generate(r.base);
      case "tensorrt-llm", "triton" -> {
        TritonTarget.Builder t = TritonTarget.generate(r.base, requestModel());
        tritonTokenCounts().ifPresent(t::returnNumOutputTokens);
        yield t;
      }
      case "anthropic" -> AnthropicTarget.messages(r.base, requestModel());
      case "ollama" -> OllamaTarget.chat(r.base, requestModel());
      case "ollama-generate" -> OllamaTarget.generate(r.base, requestModel());
      case "llama.cpp" -> LlamaCppTarget.completion(r.base);
      case "openai-responses" -> OpenAiResponsesTarget.responses(r.base, requestModel());
      // the endpoint's whole URL: the path is sent exactly as given, a root-mounted server included
      // vLLM's chat client: max_completion_tokens and the content as a list of parts
      default -> OpenAiTarget.at(r.base + (r.chat ? "/chat/completions" : "/completions"), requestModel())
          .useMaxCompletionTokens(r.chat).textAsContentParts(r.chat);
    };
    Optional.ofNullable(System.getenv(apiKeyEnv)).filter(k -> !k.isBlank()).ifPresent(b::apiKey);
    switch (transport.toLowerCase(Locale.ROOT)) {
      case "netty" -> http2(r.base).ifPresent(b::transport);
      case "okhttp" -> {
        if (http2 != null) {
          throw new IllegalArgumentException("--http2 needs the netty transport; drop --transport okhttp");
        }
        b.httpClient(new okhttp3.OkHttpClient());
      }
      default -> throw new IllegalArgumentException("--transport must be netty or okhttp, was " + transport);
    }
    customize.accept(b);
    // An HTTP/2 transport is built here, insecure itself when asked; the builder makes the others.
    return (http2 == null ? b.insecureTls(insecureTls) : b).build();
  }

  /** The gRPC target of the triton-grpc backends: always HTTP/2 (h2c for http://, h2 for https://). */
  private Target grpc(String base) {
    if (http2 != null || !transport.equalsIgnoreCase("netty")) {
      throw new IllegalArgumentException("gRPC always speaks HTTP/2 on the netty transport; drop --http2 and "
          + "--transport");
    }
    if (grpcKeepAliveMillis < 0) {
      throw new IllegalArgumentException("--grpc-keepalive-ms must be >= 0 (0: off), was " + grpcKeepAliveMillis);
    }
    TritonGrpcTarget.Builder b = TritonGrpcTarget.streamInfer(base, requestModel()).insecureTls(insecureTls)
        .streamsPerConnection(http2Streams)
        .convention(backend.equalsIgnoreCase("triton-grpc-vllm") ? TritonGrpcTarget.Convention.VLLM
            : TritonGrpcTarget.Convention.TENSORRT_LLM);
    tritonTokenCounts().ifPresent(b::returnNumOutputTokens);
    if (grpcKeepAliveMillis > 0) {
      b.keepAlive(java.time.Duration.ofMillis(grpcKeepAliveMillis), java.time.Duration.ofSeconds(20));
    }
    Optional.ofNullable(System.getenv(apiKeyEnv)).filter(k -> !k.isBlank()).ifPresent(b::apiKey);
    return b.build();
  }

  /** What --triton-token-counts asks for: empty for auto (the target's default). */
  private Optional<Boolean> tritonTokenCounts() {
    return switch (tritonTokenCounts.toLowerCase(Locale.ROOT)) {
      case "auto" -> Optional.empty();
      case "on" -> Optional.of(true);
      case "off" -> Optional.of(false);
      default -> throw new IllegalArgumentException("--triton-token-counts must be auto, on or off, was "
          + tritonTokenCounts);
    };
  }

  /** The HTTP/2 transport --http2 asks for, checked against the URL's scheme; empty for HTTP/1.1. */
  private Optional<NettyTransport> http2(String base) {
    if (http2 == null) {
      return Optional.empty();
    }
    boolean https = base.toLowerCase(Locale.ROOT).startsWith("https:");
    HttpVersionPolicy policy = switch (http2.toLowerCase(Locale.ROOT)) {
      case "h2" -> {
        if (!https) {
          throw new IllegalArgumentException("--http2 h2 negotiates HTTP/2 inside TLS, but " + base
              + " is cleartext; use --http2 h2c for a cleartext HTTP/2 server");
        }
        yield HttpVersionPolicy.HTTP_2;
      }
      case "h2c" -> {
        if (https) {
          throw new IllegalArgumentException("--http2 h2c is cleartext HTTP/2, but " + base
              + " is https; use --http2 h2 (or auto)");
        }
        yield HttpVersionPolicy.HTTP_2;
      }
      case "auto" -> HttpVersionPolicy.AUTO;
      default -> throw new IllegalArgumentException("--http2 must be h2, h2c or auto, was " + http2);
    };
    if (http2Streams < 1 || http2Streams > 10_000) {
      throw new IllegalArgumentException("--http2-streams must be 1..10000, was " + http2Streams);
    }
    return Optional.of(NettyTransport.builder().httpVersion(policy).streamsPerConnection(http2Streams)
        .insecureTls(insecureTls).build());
  }
}
