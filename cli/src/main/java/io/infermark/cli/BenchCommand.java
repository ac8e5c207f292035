package io.infermark.cli;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.shard.StartBarrier;
import io.infermark.core.target.Target;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.report.JsonReport;
import io.infermark.metrics.report.RecordsJsonl;
import io.infermark.metrics.report.VllmResultJson;
import io.infermark.metrics.timeseries.TimeSeries;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code infermark bench}: one run against an endpoint, with {@code vllm bench serve}'s flags. Prints
 * vLLM's summary (its definitions) and infermark's (failures by category, schedule, client health,
 * gates), and writes vLLM's result JSON, infermark's JSON report and the records (JSONL).
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Benchmark an OpenAI-compatible endpoint. Takes vllm bench serve's flags unchanged, and seed 002's "
        + "(--url, --concurrency, --max-tokens, --temperature).",
        "Writes <result-dir>/<name>.json in vLLM's result format (name as vLLM names it, or --result-filename), "
        + "<name>.infermark.json (infermark's report) and <name>.records.jsonl (for report and explain).",
        "With --shard-index/--shard-count it runs one shard of the schedule and writes <name>.shard-I-of-N.json and "
            + "its records instead, for infermark merge."},
    footer = {"", "Example:", "  infermark bench --backend openai-chat --base-url http://127.0.0.1:8000 "
        + "--endpoint /v1/chat/completions --model m --dataset-name random --random-input-len 256 "
        + "--random-output-len 128 --num-prompts 200 --request-rate 10 --ignore-eos",
        "", "Exit codes: 0 ok, 1 a gate (--slo, --max-error-rate, --min-goodput-ratio) failed, 2 bad flags, "
        + "3 every request failed or a file could not be written."})
final class BenchCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Mixin
  TargetOptions target = new TargetOptions();

  @Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Option(names = "--num-prompts", defaultValue = "1000", description = "Requests to send (default: ${DEFAULT-VALUE}).")
  int numPrompts;

  @Option(names = "--request-rate", defaultValue = "inf",
      description = "Requests per second, Poisson (or gamma with --burstiness); inf sends all at once, limited by "
          + "--max-concurrency (default: ${DEFAULT-VALUE}).")
  String requestRate;

  @Option(names = "--burstiness", defaultValue = "1.0",
      description = "Gamma shape of the gaps: 1 Poisson, < 1 burstier, > 1 more regular (default: ${DEFAULT-VALUE}).")
  double burstiness;

  @Option(names = {"--max-concurrency", "--concurrency"}, paramLabel = "N",
      description = "At most N requests in flight; with --request-rate inf a closed loop of N streams.")
  Integer maxConcurrency;

  @Option(names = "--warmup-requests", defaultValue = "0",
      description = "Requests sent first and left out of every statistic (default: ${DEFAULT-VALUE}).")
  int warmupRequests;

  @Option(names = "--skip-test-request",
      description = "Do not send the initial test request (vLLM sends one before the run, uncounted; so do we).")
  boolean skipTestRequest;

  @Mixin
  ShardOptions shard = new ShardOptions();

  @Mixin
  SloOptions slo = new SloOptions();

  @Mixin
  HtmlOptions html = new HtmlOptions();

  @Mixin
  VllmCompatOptions vllm = new VllmCompatOptions();

  @Option(names = "--percentile-metrics", defaultValue = "ttft,tpot,itl",
      description = "Metrics with percentiles in vLLM's summary and JSON: ttft,tpot,itl,e2el (default: ${DEFAULT-VALUE}).")
  String percentileMetrics;

  @Option(names = "--metric-percentiles", defaultValue = "99",
      description = "Percentiles, comma-separated, e.g. 50,90,99 (default: ${DEFAULT-VALUE}).")
  String metricPercentiles;

  @Option(names = "--save-result", description = "Accepted for vLLM compatibility: results are always saved (see --no-save).")
  boolean saveResult;

  @Option(names = "--save-detailed", description = "Write the per-request arrays (input_lens, output_lens, start_times, "
      + "ttfts, itls, generated_texts with the replies, errors) into the vLLM result JSON, as vLLM does.")
  boolean saveDetailed;

  @Option(names = "--no-save", description = "Write no files, only print the summary.")
  boolean noSave;

  @Option(names = "--save-texts", description = "Capture the generated texts into generated_texts (costs memory).")
  boolean saveTexts;

  @Option(names = "--no-records", description = "Do not write the records file.")
  boolean noRecords;

  @Option(names = "--result-dir", paramLabel = "DIR", description = "Directory for the result files (default: the current one).")
  Path resultDir;

  @Option(names = "--result-filename", paramLabel = "NAME", description = "vLLM result file name (default: vLLM's naming).")
  String resultFilename;

  @Option(names = "--metadata", arity = "1..*", paramLabel = "KEY=VALUE", description = "Pairs written into the vLLM result JSON.")
  List<String> metadata = new ArrayList<>();

  @Option(names = "--progress", defaultValue = "auto",
      description = "auto (a live line on a terminal, log lines otherwise), tty, lines or none (default: ${DEFAULT-VALUE}).")
  String progress;

  @Option(names = "--disable-tqdm", description = "vLLM's flag: no progress output (as --progress none).")
  boolean disableTqdm;

  @Option(names = "--trust-remote-code", hidden = true, description = "Accepted for vLLM compatibility; ignored.")
  boolean trustRemoteCode;

  @Option(names = "--tokenizer-mode", hidden = true, description = "Accepted for vLLM compatibility; ignored.")
  String tokenizerMode;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    double rate = parseRate(requestRate);
    if (numPrompts < 1) {
      throw new IllegalArgumentException("--num-prompts must be >= 1, was " + numPrompts);
    }
    if (maxConcurrency != null && maxConcurrency < 1) {
      throw new IllegalArgumentException("--max-concurrency must be >= 1, was " + maxConcurrency);
    }
    if (!(burstiness > 0) || Double.isInfinite(burstiness)) {
      throw new IllegalArgumentException("--burstiness must be finite and > 0, was " + burstiness);
    }
    vllm.validate(rate, workload.datasetName);
    workload.generalLengths(vllm.inputLen, vllm.outputLen);
    if (vllm.hasSamplingParams() && !TargetOptions.OPENAI_BACKENDS.contains(target.backendName())) {
      throw new IllegalArgumentException("sampling parameters (--top-p, --top-k, --min-p, penalties) are only "
          + "supported by OpenAI-compatible backends, as in vLLM");
    }
    if ((workload.datasetName.equals("random") || workload.datasetName.equals("random-mm"))
        && TargetOptions.OPENAI_BACKENDS.contains(target.backendName())) {
      workload.ignoreEos = true; // vLLM's client: random prompts generate to the requested length
    }
    VllmResultJson.Options vllmOptions = vllmOptions(rate, Optional.empty());
    slo.gates(); // fail on a malformed --slo before running
    LoadProfile load = shard.apply(vllm.rampUp(rate).isPresent() ? rampLoad() : load(rate), rate);
    Optional<Instant> startAt = shard.startInstant();
    if (shard.sharded() && (noSave || noRecords)) {
      throw new IllegalArgumentException("a shard must write its records for infermark merge: drop --no-save and "
          + "--no-records");
    }
    PromptWorkload prompts = workload.workload(Math.min(numPrompts, 100_000));
    if (workload.vllmData.noOversample && prompts.distinctPrompts() < numPrompts) {
      // vLLM's --no-oversample: a smaller dataset sends each of its prompts once, not --num-prompts requests
      out.println("--no-oversample: the dataset has " + prompts.distinctPrompts() + " prompts; sending each once");
      numPrompts = prompts.distinctPrompts();
      load = shard.apply(vllm.rampUp(rate).isPresent() ? rampLoad() : load(rate), rate);
    }
    out.printf(Locale.ROOT, "infermark bench: %s, model %s, %d requests, %s%s%n", target.describe(), target.requestModel(),
        numPrompts, loadText(rate), shard.sharded() ? ", shard " + shard.index() + " of " + shard.count() : "");
    out.flush();
    RunResult result;
    Map<String, Object> extras = new LinkedHashMap<>();
    try (Target t = target.build(vllm::customize)) {
      // The CLI's own test request (as vLLM's: any failure stops the run) replaces the library's pre-flight
      // check, which stops only on definite misconfigurations: one uncounted request, not two per run.
      GenerationParams params = vllm.apply(workload.params(), target.chat());
      Benchmark b = Benchmark.target(t).preflight(false).workload(vllm.shape(prompts, workload.seed,
          numPrompts + warmupRequests)).params(params).load(load).captureText(saveTexts || saveDetailed);
      if (!skipTestRequest) {
        vllm.readyCheck(b, out);
        out.println("Initial test request completed. Starting the run...");
        out.flush();
      }
      vllm.warmUp(b, prompts, maxConcurrency, out);
      if (startAt.isPresent()) {
        // After the test request, which must not wait for the barrier.
        b = b.startBarrier(StartBarrier.at(startAt.get()));
        out.println("Waiting for the start barrier at " + startAt.get() + " (wall clock now " + Instant.now() + ")");
        out.flush();
      }
      Optional<LiveProgress> live = progressListener(err);
      if (live.isPresent()) {
        b = b.listener(live.get());
      }
      Optional<SpecDecodeMetrics> specBefore = SpecDecodeMetrics.scrape(target.root());
      ProbeLoop probes = vllm.probeRequestRate > 0 ? new ProbeLoop(t, params, vllm.probeRequestRate) : null;
      try {
        result = b.run();
      } finally {
        if (probes != null) {
          extras.putAll(probes.finish());
        }
      }
      if (specBefore.isPresent()) {
        SpecDecodeMetrics.scrape(target.root()).ifPresent(after -> extras.putAll(
            SpecDecodeMetrics.resultKeys(specBefore.get(), after)));
      }
      RunResult done = result;
      vllm.rampUp(rate).ifPresent(r -> extras.putAll(VllmRunFacts.rpsChangeEvents(done,
          new VllmRampArrivals(r.strategy(), r.startRps(), r.endRps(), numPrompts + warmupRequests, burstiness))));
    }
    vllmOptions = vllmOptions(rate, Optional.empty(), extras);
    if (shard.sharded()) {
      return finishShard(out, result);
    }
    return report(out, result, vllmOptions);
  }

  /**
   * Prints a run's summaries, writes its files unless {@code --no-save}, and returns the exit code of its
   * gates; used by {@code bench} and by {@code merge} for the merged run.
   *
   * @throws CliException if every request failed or a file cannot be written
   */
  int report(PrintWriter out, RunResult result, VllmResultJson.Options vllmOptions) {
    RunSummary summary = RunSummary.of(result);
    Map<String, Object> vllm = VllmResultJson.result(result, vllmOptions);
    SloOptions.Outcome outcome = slo.judge(result, summary);
    Summaries.printVllm(out, vllm, vllmOptions);
    Summaries.printInfermark(out, result, summary, outcome);
    if (!noSave) {
      save(out, result, summary, vllmOptions, outcome);
    }
    requireASuccess(result, summary);
    if (!outcome.passed()) {
      out.println("GATE FAILED: exit code " + Infermark.GATE_FAILED);
      return Infermark.GATE_FAILED;
    }
    return Infermark.OK;
  }

  /**
   * A shard's end: its own summary (gates are judged by {@code merge} on the whole run), and its records
   * and run facts written for the merge.
   */
  private int finishShard(PrintWriter out, RunResult result) {
    RunSummary summary = RunSummary.of(result);
    Summaries.printInfermark(out, result, summary, new SloOptions().judge(result, summary));
    Path dir = resultDir != null ? resultDir : Path.of("");
    Path facts = ShardFile.write(dir, shard.fileStem(stem(resultFilename != null ? resultFilename : "infermark")),
        shard.index(), shard.count(), ShardFile.settings(spec.commandLine().getParseResult()), result,
        new Infermark.Version().getVersion()[0]);
    out.println("Wrote shard " + shard.index() + " of " + shard.count() + ": " + facts + " and its records; "
        + "when every shard is done: infermark merge " + (resultDir != null ? resultDir : "."));
    requireASuccess(result, summary);
    return Infermark.OK;
  }

  private static void requireASuccess(RunResult result, RunSummary summary) {
    if (summary.requests().succeeded() == 0) {
      String first = result.measured().stream().map(RequestRecord::failure).flatMap(Optional::stream).findFirst()
          .map(f -> ": first error " + f).orElse("");
      throw new CliException(Infermark.FAILED, "every request failed" + first);
    }
  }

  /** A file name without its {@code .json} suffix. */
  static String stem(String name) {
    return name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
  }

  static double parseRate(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    if (t.equals("inf") || t.equals("infinity")) {
      return Double.POSITIVE_INFINITY;
    }
    try {
      double r = Double.parseDouble(t);
      if (!(r > 0)) {
        throw new IllegalArgumentException("--request-rate must be > 0 or inf, was " + text);
      }
      return r;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--request-rate must be a number or inf, was '" + text + "'");
    }
  }

  /** vLLM's ramp-up as a load profile: the rate climbs over the requests; {@code --max-concurrency} still caps. */
  LoadProfile rampLoad() {
    var ramp = vllm.rampUp(Double.POSITIVE_INFINITY).orElseThrow();
    LoadProfile p = LoadProfile.arrivals(new VllmRampArrivals(ramp.strategy(), ramp.startRps(), ramp.endRps(),
        numPrompts + warmupRequests, burstiness));
    if (maxConcurrency != null) {
      p = p.maxInFlight(maxConcurrency);
    }
    p = p.requests(numPrompts).seed(workload.seed);
    return warmupRequests > 0 ? p.warmupRequests(warmupRequests) : p;
  }

  /** The whole schedule's load profile (unsharded). */
  LoadProfile load(double rate) {
    LoadProfile p;
    int total = numPrompts + warmupRequests;
    if (Double.isInfinite(rate)) {
      p = LoadProfile.concurrency(maxConcurrency != null ? Math.min(maxConcurrency, total) : total);
    } else {
      p = burstiness == 1.0 ? LoadProfile.poisson(rate) : LoadProfile.arrivals(ArrivalProcess.gamma(rate, burstiness));
      if (maxConcurrency != null) {
        p = p.maxInFlight(maxConcurrency);
      }
    }
    p = p.requests(numPrompts).seed(workload.seed);
    if (warmupRequests > 0) {
      p = p.warmupRequests(warmupRequests);
    }
    return p;
  }

  private String loadText(double rate) {
    if (Double.isInfinite(rate)) {
      return maxConcurrency != null ? "closed loop of " + maxConcurrency + " streams"
          : "all at once (request rate inf, no --max-concurrency)";
    }
    return String.format(Locale.ROOT, "%s arrivals at %s req/s%s", burstiness == 1.0 ? "Poisson" : "gamma(" + burstiness + ")",
        rate, maxConcurrency != null ? ", at most " + maxConcurrency + " in flight" : "");
  }

  /** vLLM's result options; {@code date} names the result file (now when empty). */
  VllmResultJson.Options vllmOptions(double rate, Optional<LocalDateTime> date) {
    return vllmOptions(rate, date, Map.of());
  }

  /** vLLM's result options with the keys measured beside the run (probes, ramp events, speculative decoding). */
  VllmResultJson.Options vllmOptions(double rate, Optional<LocalDateTime> date, Map<String, Object> extras) {
    VllmResultJson.Options.Builder b = VllmResultJson.Options.builder(target.backendName(), target.model)
        .numPrompts(numPrompts).requestRate(rate).burstiness(burstiness).chat(target.chat())
        .metrics(Arrays.stream(percentileMetrics.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList())
        .percentiles(percentiles(metricPercentiles)).goodput(slo.goodputObjectives());
    date.ifPresent(b::date);
    b.detailed(saveDetailed).skipTokenizer(vllm.skipTokenizerInit);
    if (vllm.label != null) {
      b.label(vllm.label);
    }
    vllm.rampUp(rate).ifPresent(b::rampUp);
    extras.forEach(b::extra);
    if (workload.tokenizer != null) {
      b.tokenizerId(workload.tokenizer);
    }
    if (maxConcurrency != null) {
      b.maxConcurrency(maxConcurrency);
    }
    for (String pair : metadata) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--metadata takes KEY=VALUE, was '" + pair + "'");
      }
      b.metadata(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
    }
    return b.build();
  }

  static double[] percentiles(String text) {
    try {
      return Arrays.stream(text.split(",")).map(String::strip).filter(s -> !s.isEmpty()).mapToDouble(Double::parseDouble)
          .toArray();
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--metric-percentiles takes numbers separated by commas, was '" + text + "'");
    }
  }

  private Optional<LiveProgress> progressListener(PrintWriter err) {
    String mode = disableTqdm ? "none" : progress.toLowerCase(Locale.ROOT);
    return switch (mode) {
      case "none" -> Optional.empty();
      case "tty" -> Optional.of(new LiveProgress(err, true, Duration.ofMillis(250)));
      case "lines" -> Optional.of(new LiveProgress(err, false, Duration.ofSeconds(10)));
      case "auto" -> Optional.of(System.console() != null ? new LiveProgress(err, true, Duration.ofMillis(250))
          : new LiveProgress(err, false, Duration.ofSeconds(10)));
      default -> throw new IllegalArgumentException("--progress must be auto, tty, lines or none, was " + progress);
    };
  }

  private void save(PrintWriter out, RunResult result, RunSummary summary, VllmResultJson.Options options,
      SloOptions.Outcome outcome) {
    Path dir = resultDir != null ? resultDir : Path.of("");
    try {
      if (resultDir != null) {
        Files.createDirectories(resultDir);
      }
    } catch (IOException e) {
      throw new CliException(Infermark.FAILED, "cannot create --result-dir " + resultDir + ": " + e.getMessage());
    }
    String name = resultFilename != null ? resultFilename : options.fileName();
    String stem = stem(name);
    Path vllmFile = dir.resolve(name);
    Path reportFile = dir.resolve(stem + ".infermark.json");
    Path recordsFile = dir.resolve(stem + ".records.jsonl");
    try {
      vllm.writeResult(result, options, vllmFile);
      JsonReport.Extras extras = JsonReport.Extras.NONE.withSeries(TimeSeries.of(result));
      if (outcome.gates().isPresent()) {
        extras = extras.withSlo(outcome.gates().get());
      }
      JsonReport.write(summary, extras, reportFile);
      if (!noRecords) {
        RecordsJsonl.write(result.records(), recordsFile);
      }
    } catch (UncheckedIOException e) {
      throw new CliException(Infermark.FAILED, e.getMessage());
    }
    out.println("Wrote " + vllmFile + " (vLLM format), " + reportFile + (noRecords ? "" : ", " + recordsFile));
    html.file(dir.resolve(stem + ".html")).ifPresent(page -> out.println("Wrote "
        + ReportPages.runPage(result, outcome.gates(), page, stem) + " (HTML report)"));
    if (vllm.plotTimeline) {
      out.println("Wrote " + ReportPages.write(dir.resolve(stem + ".timeline.html"),
          io.infermark.metrics.report.TimelineReport.of(result, stem + " timeline", vllm.itlThresholds()).html())
          + " (request timeline)");
    }
  }
}
