package io.infermark.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.options.TargetOptions;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.HttpTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import io.infermark.metrics.report.VllmResultJson;
import io.infermark.metrics.report.VllmResultOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import picocli.CommandLine.Option;

/**
 * The flags of vLLM's current {@code vllm bench serve} beyond its core ones ({@code vllm/benchmarks/serve.py}):
 * sampling parameters, headers, extra body, warm-ups, the ready check, request ids, labels, appended results,
 * ramp-ups, probes, LoRA assignment, general lengths, timeline plots. Each does what vLLM's does; the few that
 * cannot mean anything here ({@code --use-beam-search}, {@code --profile}, {@code --plot-dataset-stats}) are
 * refused with the reason. docs/cli.md lists every flag with its status.
 */
final class VllmCompatOptions {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--label", paramLabel = "LABEL",
      description = "Result label: written as \"label\" and the result file name's prefix (default: the backend).")
  String label;

  @Option(names = "--header", arity = "1..*", paramLabel = "KEY=VALUE",
      description = "HTTP headers sent with every request (values never printed or written).")
  List<String> headers = new ArrayList<>();

  @Option(names = "--extra-body", paramLabel = "JSON",
      description = "A JSON object merged into every request body, after the sampling parameters (vLLM's order).")
  String extraBody;

  @Option(names = "--top-p", description = "top_p sent in every request (OpenAI-compatible backends).")
  Double topP;

  @Option(names = "--top-k", description = "top_k sent in every request (OpenAI-compatible backends).")
  Integer topK;

  @Option(names = "--min-p", description = "min_p sent in every request (OpenAI-compatible backends).")
  Double minP;

  @Option(names = "--frequency-penalty", description = "frequency_penalty sent in every request.")
  Double frequencyPenalty;

  @Option(names = "--presence-penalty", description = "presence_penalty sent in every request.")
  Double presencePenalty;

  @Option(names = "--repetition-penalty", description = "repetition_penalty sent in every request.")
  Double repetitionPenalty;

  @Option(names = "--logprobs", paramLabel = "N",
      description = "Log probabilities per token: logprobs N on completions, logprobs true and top_logprobs N on chat.")
  Integer logprobs;

  @Option(names = "--chat-template-kwargs", paramLabel = "JSON",
      description = "A JSON object sent as chat_template_kwargs (the server renders the chat template here).")
  String chatTemplateKwargs;

  @Option(names = "--request-id-prefix", paramLabel = "PREFIX",
      description = "Request ids PREFIX0, PREFIX1, ... sent as X-Request-Id (default: infermark's own ids).")
  String requestIdPrefix;

  @Option(names = "--lora-modules", arity = "1..*", paramLabel = "NAME",
      description = "LoRA adapters: each request's model is one of them (see --lora-assignment).")
  List<String> loraModules = new ArrayList<>();

  @Option(names = "--lora-assignment", defaultValue = "random",
      description = "random (seeded by --seed, default) or round-robin.")
  String loraAssignment;

  @Option(names = "--num-warmups", defaultValue = "0", paramLabel = "N",
      description = "Requests of the first prompt sent after the test request, at most --max-concurrency at once, "
          + "uncounted (default: ${DEFAULT-VALUE}).")
  int numWarmups;

  @Option(names = "--ready-check-timeout-sec", defaultValue = "0", paramLabel = "S",
      description = "Repeat the test request until it succeeds, for up to S seconds (a server still loading); "
          + "0: one attempt (default: ${DEFAULT-VALUE}).")
  int readyCheckTimeoutSec;

  @Option(names = "--append-result", description = "Append the vLLM result JSON to the file as a new line instead of "
      + "replacing it.")
  boolean appendResult;

  @Option(names = "--ramp-up-strategy", paramLabel = "linear|exponential",
      description = "Raise the request rate from --ramp-up-start-rps to --ramp-up-end-rps over the requests.")
  String rampUpStrategy;

  @Option(names = "--ramp-up-start-rps", paramLabel = "RPS", description = "The first request's rate.")
  Integer rampUpStartRps;

  @Option(names = "--ramp-up-end-rps", paramLabel = "RPS", description = "The last request's rate.")
  Integer rampUpEndRps;

  @Option(names = "--probe-request-rate", defaultValue = "0", paramLabel = "R",
      description = "Single-token probe requests at R per second beside the run, outside --max-concurrency; their "
          + "latency is reported apart (probe_* keys).")
  double probeRequestRate;

  @Option(names = "--self-timed", negatable = true,
      description = "timed_trace: send each line at its timestamp (the default, as vLLM); --no-self-timed sends the "
          + "lines at --request-rate. Only with --dataset-name timed_trace.")
  Boolean selfTimed;

  @Option(names = "--skip-tokenizer-init",
      description = "As vLLM without a tokenizer: tokenizer_id null, only E2EL (and client queue) statistics.")
  boolean skipTokenizerInit;

  @Option(names = "--input-len", paramLabel = "N", description = "General input length (sets --random-input-len).")
  Integer inputLen;

  @Option(names = "--output-len", paramLabel = "N",
      description = "General output length (sets every dataset's output length flag).")
  Integer outputLen;

  @Option(names = "--plot-timeline", description = "Also write NAME.timeline.html: one bar per request.")
  boolean plotTimeline;

  @Option(names = "--timeline-itl-thresholds", defaultValue = "25,50", paramLabel = "MS,MS",
      description = "vLLM's two ITL thresholds for the timeline's colours; validated (default: ${DEFAULT-VALUE}).")
  String timelineItlThresholds;

  @Option(names = "--plot-dataset-stats", description = "vLLM draws a matplotlib PNG of the prompt and output "
      + "lengths; infermark says so and goes on: NAME.html shows the lengths and latencies.")
  boolean plotDatasetStats;

  /** The one line each flag that infermark takes but does differently prints, if any was given. */
  java.util.List<String> notices(boolean chat) {
    java.util.List<String> n = new java.util.ArrayList<>();
    if (logprobs != null && chat) {
      n.add("--logprobs: not sent on chat requests (vLLM's chat client sends no logprobs); it is sent on completions");
    }
    if (chatTemplateKwargs != null) {
      n.add("--chat-template-kwargs: not sent (vLLM applies it only when it renders a dataset's chat template on the "
          + "client, which infermark never does); to send chat_template_kwargs, use --extra-body");
    }
    if (plotDatasetStats) {
      n.add("--plot-dataset-stats: no matplotlib figure here; the HTML report (NAME.html) shows the prompt and output "
          + "token lengths and the latencies");
    }
    return n;
  }

  @Option(names = "--use-beam-search", hidden = true, description = "Refused: see docs/cli.md.")
  boolean useBeamSearch;

  @Option(names = "--profile", hidden = true, description = "Refused: see docs/cli.md.")
  boolean profile;

  /** Refuses what cannot mean anything here and checks the combinations vLLM checks. */
  void validate(double requestRate, String datasetName) {
    if (useBeamSearch) {
      throw new IllegalArgumentException("--use-beam-search is not supported: beam search returns no token stream "
          + "to time, and vLLM's OpenAI server no longer offers it for benchmarking");
    }
    if (profile) {
      throw new IllegalArgumentException("--profile is not supported: it drives vLLM's server-side torch profiler "
          + "(/start_profile), which infermark does not control; profile the server yourself during the run");
    }
    if (selfTimed != null && !"timed_trace".equals(datasetName)) {
      throw new IllegalArgumentException("--self-timed/--no-self-timed is only supported with --dataset-name "
          + "timed_trace (as in vLLM)");
    }
    if (numWarmups < 0 || readyCheckTimeoutSec < 0 || !(probeRequestRate >= 0) || Double.isInfinite(probeRequestRate)) {
      throw new IllegalArgumentException("--num-warmups, --ready-check-timeout-sec and --probe-request-rate must be "
          + ">= 0 (and finite)");
    }
    if (!loraAssignment.equals("random") && !loraAssignment.equals("round-robin")) {
      throw new IllegalArgumentException("--lora-assignment must be random or round-robin, was " + loraAssignment);
    }
    if (logprobs != null && logprobs < 0) {
      throw new IllegalArgumentException("--logprobs must be >= 0, was " + logprobs);
    }
    itlThresholds();
    rampUp(requestRate);
    bodyFields(true, false);
    headerMap();
  }

  /** vLLM's ramp-up, validated as vLLM does; empty without {@code --ramp-up-strategy}. */
  Optional<VllmResultOptions.RampUp> rampUp(double requestRate) {
    if (rampUpStrategy == null) {
      if (rampUpStartRps != null || rampUpEndRps != null) {
        throw new IllegalArgumentException("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy");
      }
      return Optional.empty();
    }
    if (!Double.isInfinite(requestRate)) {
      throw new IllegalArgumentException("with --ramp-up-strategy, do not give --request-rate: the ramp sets the rate");
    }
    if (rampUpStartRps == null || rampUpEndRps == null) {
      throw new IllegalArgumentException("--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps");
    }
    if (rampUpStartRps < 1 || rampUpEndRps < rampUpStartRps) {
      throw new IllegalArgumentException("ramp-up rates must satisfy 1 <= --ramp-up-start-rps <= --ramp-up-end-rps "
          + "(vLLM rejects a first rate of 0), were " + rampUpStartRps + " and " + rampUpEndRps);
    }
    return Optional.of(new VllmResultOptions.RampUp(rampUpStrategy.toLowerCase(Locale.ROOT), rampUpStartRps,
        rampUpEndRps));
  }

  /** vLLM's two ITL thresholds in ms. */
  double[] itlThresholds() {
    String[] parts = timelineItlThresholds.split(",");
    try {
      if (parts.length != 2) {
        throw new NumberFormatException();
      }
      return new double[] {Double.parseDouble(parts[0].strip()), Double.parseDouble(parts[1].strip())};
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--timeline-itl-thresholds takes two numbers (ms) separated by a comma, was '"
          + timelineItlThresholds + "'");
    }
  }

  /** The headers of {@code --header KEY=VALUE}. */
  Map<String, String> headerMap() {
    Map<String, String> m = new LinkedHashMap<>();
    for (String h : headers) {
      int eq = h.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--header takes KEY=VALUE, was a value without '=' (values are not shown)");
      }
      m.put(h.substring(0, eq).strip(), h.substring(eq + 1).strip());
    }
    return m;
  }

  /**
   * The fields every request body gets, as vLLM's client sends them: on the completions endpoint of an
   * OpenAI-compatible backend {@code repetition_penalty: 1.0} and {@code logprobs} (when given), then the sampling
   * parameters, then {@code --extra-body} (which wins). Chat requests carry no {@code logprobs}, and no request
   * carries {@code chat_template_kwargs} (vLLM applies them only when it renders a template on the client).
   */
  Map<String, Object> bodyFields(boolean chat, boolean openAiCompletions) {
    Map<String, Object> body = new LinkedHashMap<>();
    if (openAiCompletions) {
      body.put("repetition_penalty", 1.0);
      if (logprobs != null) {
        body.put("logprobs", logprobs);
      }
    }
    put(body, "top_p", topP);
    put(body, "top_k", topK);
    put(body, "min_p", minP);
    put(body, "frequency_penalty", frequencyPenalty);
    put(body, "presence_penalty", presencePenalty);
    put(body, "repetition_penalty", repetitionPenalty);
    if (extraBody != null) {
      body.putAll(jsonObject("--extra-body", extraBody));
    }
    if (chatTemplateKwargs != null) {
      jsonObject("--chat-template-kwargs", chatTemplateKwargs); // checked, not sent
    }
    return body;
  }

  /** Whether a sampling parameter was given (vLLM allows them only on OpenAI-compatible backends). */
  boolean hasSamplingParams() {
    return topP != null || topK != null || minP != null || frequencyPenalty != null || presencePenalty != null
        || repetitionPenalty != null;
  }

  private static void put(Map<String, Object> body, String key, Object value) {
    if (value != null) {
      body.put(key, value);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> jsonObject(String option, String text) {
    try {
      Object v = JSON.readValue(text, Object.class);
      if (!(v instanceof Map)) {
        throw new IllegalArgumentException(option + " takes a JSON object, e.g. '{\"key\": 1}'");
      }
      return (Map<String, Object>) v;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(option + " is not valid JSON: " + e.getOriginalMessage());
    }
  }

  /** The parameters every request starts from, with the headers and body fields above. */
  GenerationParams apply(GenerationParams base, boolean chat, boolean openAi) {
    GenerationParams.Builder b = base.toBuilder();
    headerMap().forEach(b::header);
    bodyFields(chat, openAi && !chat).forEach(b::extraBody);
    return b.build();
  }

  /**
   * The parameters of {@code sweep}'s and {@code capacity}'s requests: what {@code bench} sends by default for the
   * backend (vLLM's client's bodies: {@code repetition_penalty: 1.0} on OpenAI-compatible completions, {@code
   * ignore_eos} for the random datasets there and for timed_trace; the chat form and the missing temperature come
   * from the target and {@code params}); {@code err} gets one line when a timed_trace's times are not used.
   */
  static GenerationParams levelParams(WorkloadOptions w, TargetOptions t, PrintWriter err) {
    boolean openAi = TargetOptions.OPENAI_BACKENDS.contains(t.backendName());
    GenerationParams.Builder b = w.params().toBuilder();
    if (openAi && (w.datasetName.equals("random") || w.datasetName.equals("random-mm"))
        || w.datasetName.equals("timed_trace")) {
      b.ignoreEos(true);
    }
    if (openAi && !t.chat()) {
      b.extraBody("repetition_penalty", 1.0);
    }
    if (w.datasetName.equals("timed_trace")) {
      err.println("timed_trace: each level sets the times; the trace's lines give the prompts (as --no-self-timed)");
      err.flush();
    }
    return b.build();
  }

  /** The target's own options these flags change: with {@code --request-id-prefix} the ids are ours. */
  void customize(HttpTarget.Builder<?, ?> target) {
    if (requestIdPrefix != null) {
      target.sendRequestId(false);
    }
  }

  /** The workload with each request's LoRA model and request id, as vLLM assigns them. */
  Workload shape(Workload rows, long seed, int requests) {
    if (loraModules.isEmpty() && requestIdPrefix == null) {
      return rows;
    }
    List<String> models = new ArrayList<>();
    if (!loraModules.isEmpty()) {
      SplittableRandom random = new SplittableRandom(seed);
      for (int i = 0; i < requests; i++) {
        models.add(loraAssignment.equals("round-robin") ? loraModules.get(i % loraModules.size())
            : loraModules.get(random.nextInt(loraModules.size())));
      }
    }
    return new Shaped(rows, List.copyOf(models), requestIdPrefix);
  }

  /** Each request's model (a LoRA adapter) and {@code X-Request-Id}. */
  private record Shaped(Workload rows, List<String> models, String idPrefix) implements Workload {
    @Override
    public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
      RequestSpec spec = rows.request(index, intendedNanos, defaults);
      GenerationParams.Builder p = spec.params().toBuilder();
      if (!models.isEmpty()) {
        p.extraBody("model", models.get((int) (index % models.size())));
      }
      if (idPrefix != null) {
        p.header("X-Request-Id", idPrefix + index);
      }
      return new RequestSpec(spec.prompt(), p.build());
    }

    @Override
    public int distinctPrompts() {
      return rows.distinctPrompts();
    }

    @Override
    public String toString() {
      return "VllmShaped[" + rows + (models.isEmpty() ? "" : ", LoRA") + (idPrefix == null ? "" : ", ids") + "]";
    }
  }

  /**
   * The test request, repeated until it succeeds or {@code --ready-check-timeout-sec} passes (a server that is
   * still loading answers 503 or refuses connections); one attempt when the timeout is 0.
   *
   * @throws CliException (exit 3) with the last failure when the server never became ready
   */
  void readyCheck(Benchmark b, PrintWriter out, String url) {
    long deadline = System.nanoTime() + Duration.ofSeconds(readyCheckTimeoutSec).toNanos();
    int attempts = 0;
    while (true) {
      attempts++;
      // No monitor: nothing reports this request's client health, and starting one would only delay it.
      RunResult test = b.load(LoadProfile.concurrency(1).requests(1))
          .clientMonitoring(io.infermark.core.health.ClientMonitoring.OFF).run();
      Optional<RequestRecord> failed = test.records().stream().filter(r -> !r.succeeded()).findFirst();
      if (failed.isEmpty()) {
        return;
      }
      if (System.nanoTime() - deadline >= 0) {
        String message = TestRequest.message(url, failed.get().failure());
        throw new CliException(Infermark.FAILED, readyCheckTimeoutSec > 0
            ? message.replaceFirst("failed", "failed for " + readyCheckTimeoutSec + " s (" + attempts + " attempts)")
            : message);
      }
      if (attempts == 1) {
        out.println("Waiting up to " + readyCheckTimeoutSec + " s for the endpoint to become ready...");
        out.flush();
      }
      try {
        Thread.sleep(1000); // vLLM's ready check polls too; a server loading its weights needs seconds
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException(Infermark.FAILED, "interrupted while waiting for the endpoint to become ready");
      }
    }
  }


  /** vLLM's warm-ups: {@code --num-warmups} requests of the first prompt, at most {@code concurrency} at once. */
  void warmUp(Benchmark b, Workload rows, Integer maxConcurrency, PrintWriter out) {
    if (numWarmups == 0) {
      return;
    }
    out.println("Warming up with " + numWarmups + " requests...");
    out.flush();
    Workload first = (index, intended, defaults) -> rows.request(0, intended, defaults);
    int streams = maxConcurrency == null ? numWarmups : Math.min(maxConcurrency, numWarmups);
    b.workload(first).load(LoadProfile.concurrency(streams).requests(numWarmups)).run();
    out.println("Warmup run completed.");
    out.flush();
  }

  /**
   * Writes vLLM's result JSON to {@code file} (a temporary name that replaces {@code existing} once whole): the
   * result alone, or, with {@code --append-result}, what {@code existing} holds plus the result as a new line.
   */
  void writeResult(RunResult result, VllmResultOptions options, Path file, Path existing) throws IOException {
    if (!appendResult) {
      VllmResultJson.write(result, options, file);
      return;
    }
    // The file written is a new one (renamed over the existing one when whole): copy what is there, then append.
    boolean nonEmpty = Files.exists(existing) && Files.size(existing) > 0;
    if (nonEmpty) {
      Files.copy(existing, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    Files.writeString(file, (nonEmpty ? "\n" : "") + VllmResultJson.toJson(result, options),
        StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

}
