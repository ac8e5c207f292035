package io.infermark.cli;

import io.infermark.cli.options.TargetOptions;
import io.infermark.core.Benchmark;
import io.infermark.core.BenchmarkRun;
import io.infermark.core.RunResult;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.session.SessionWorkload;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.shard.StartBarrier;
import io.infermark.metrics.journal.RecordsJournal;
import io.infermark.metrics.report.VllmResultOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
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
    resourceBundle = "io.infermark.cli.help.bench",
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

  /** What --scrape-metrics collected during the run; empty without it (and for merges). */
  Optional<io.infermark.metrics.server.ScrapeReport> scrapeReport = Optional.empty();

  /** The tracker of the prompts sent, for the ideal prefix-cache ratio; empty until a run starts (and for merges). */
  Optional<io.infermark.metrics.cache.PromptReuse> promptReuse = Optional.empty();

  @Mixin
  TargetOptions target = new TargetOptions();

  @Mixin
  ScrapeOptions scrape = new ScrapeOptions();

  @Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Mixin
  RunBoundOptions.NumPrompts numPrompts = new RunBoundOptions.NumPrompts(1000);

  /** The datasets {@code --num-prompts -1} can send whole: rows read from a file, not generated per request. */
  static final List<String> ALL_ROWS = List.of("sharegpt", "jsonl", "custom", "hf", "spec_bench", "timed_trace");

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
  UserRampOptions userRamp = new UserRampOptions();

  @Mixin
  LocustOptions locust = new LocustOptions();

  @Mixin
  SessionOptions sessions = new SessionOptions();

  @Mixin
  ShardOptions shard = new ShardOptions();

  @Mixin
  SloOptions slo = new SloOptions();

  @Mixin
  MonitorOptions monitors = new MonitorOptions();

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

  @Mixin
  RunBoundOptions.DrainTimeout drainTimeout = new RunBoundOptions.DrainTimeout();

  @Mixin
  ColdStartOptions coldStart = new ColdStartOptions();

  @Option(names = "--trust-remote-code", hidden = true, description = "Accepted for vLLM compatibility; ignored.")
  boolean trustRemoteCode;

  @Option(names = "--tokenizer-mode", hidden = true, description = "Accepted for vLLM compatibility; ignored.")
  String tokenizerMode;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    double rate = parseRate(requestRate);
    Duration drain = checkFlags(err, rate);
    target.resolveModel(err);
    Optional<PromptWorkload> preloaded = everyRow(out);
    VllmResultOptions vllmOptions = vllmOptions(rate, Optional.empty());
    slo.gates(); // fail on a malformed --slo before running
    Optional<io.infermark.metrics.server.PrometheusScraper> scraper = scrape.scraper(); // and on bad --scrape-* flags
    Plan plan = plan(out, err, rate, preloaded);
    printPlan(out, rate, plan);
    BenchOutputs results = new BenchOutputs(this);
    BenchOutputs.OutputPaths files = results.paths(vllmOptions);
    OutputFiles outputs = new OutputFiles();
    StopSignals signals = StopSignals.current(err);
    Map<String, Object> extras = new LinkedHashMap<>();
    Measured measured = measure(out, err, rate, plan, vllmOptions, files, outputs, signals, scraper, drain, extras);
    vllmOptions = vllmOptions(rate, Optional.of(vllmOptions.date()), extras);
    if (shard.sharded()) {
      return results.finishShard(out, err, measured.result(), files, measured.journal(), outputs, signals);
    }
    return results.report(out, err, measured.result(), vllmOptions, files, measured.journal(), outputs, signals);
  }

  /**
   * Checks the flags before anything is sent (the first bad one fails) and applies vLLM's adjustments of them (the
   * general lengths, random prompts generating to their length); returns the validated drain timeout.
   */
  private Duration checkFlags(PrintWriter err, double rate) {
    if (numPrompts.value < 1 && numPrompts.value != -1) {
      throw new IllegalArgumentException("--num-prompts must be >= 1, or -1 for every row of the dataset once, was "
          + numPrompts.value);
    }
    if (maxConcurrency != null && maxConcurrency < 1) {
      throw new IllegalArgumentException("--max-concurrency must be >= 1, was " + maxConcurrency);
    }
    if (!(burstiness > 0) || Double.isInfinite(burstiness)) {
      throw new IllegalArgumentException("--burstiness must be finite and > 0, was " + burstiness);
    }
    Duration drain = drainTimeout.duration();
    vllm.validate(rate, workload.datasetName);
    vllm.notices(target.chat()).forEach(err::println);
    workload.generalLengths(vllm.inputLen, vllm.outputLen);
    if (vllm.hasSamplingParams() && !TargetOptions.OPENAI_BACKENDS.contains(target.backendName())) {
      throw new IllegalArgumentException("sampling parameters (--top-p, --top-k, --min-p, penalties) are only "
          + "supported by OpenAI-compatible backends, as in vLLM");
    }
    if ((workload.datasetName.equals("random") || workload.datasetName.equals("random-mm"))
        && TargetOptions.OPENAI_BACKENDS.contains(target.backendName())) {
      workload.ignoreEos = true; // vLLM's client: random prompts generate to the requested length
    }
    if (workload.datasetName.equals("timed_trace")) {
      workload.ignoreEos = true; // vLLM's client: each trace line generates its output length
      checkSelfTimed();
    }
    return drain;
  }

  /** vLLM's default for {@code timed_trace}: the lines are sent at their own timestamps unless --no-self-timed. */
  boolean selfTimed() {
    return workload.datasetName.equals("timed_trace") && !Boolean.FALSE.equals(vllm.selfTimed) && !sessions.given();
  }

  /** The flags that would set the times of a self-timed trace's requests another way. */
  private void checkSelfTimed() {
    if (!selfTimed()) {
      return;
    }
    if (userRamp.given()) {
      throw new IllegalArgumentException("--users/--stage set the load with users, a self-timed trace by its "
          + "timestamps: give --no-self-timed to send the trace's lines with users");
    }
    if (vllm.rampUpStrategy != null) {
      throw new IllegalArgumentException("--ramp-up-strategy ramps a request rate; a self-timed trace is sent at its "
          + "timestamps: give --no-self-timed to ramp the trace's lines");
    }
    if (warmupRequests > 0) {
      throw new IllegalArgumentException("--warmup-requests takes the first requests of the schedule, which a "
          + "self-timed trace sets line by line: use --num-warmups (vLLM's: the first line sent before the run)");
    }
    if (shard.sharded()) {
      throw new IllegalArgumentException("--shard-index/--shard-count split a rate's schedule; a self-timed trace is "
          + "not split here: run it whole, or with --no-self-timed and a finite --request-rate");
    }
  }

  /**
   * With {@code --num-prompts -1} (vLLM's: the whole dataset, each row once), the dataset read whole, and
   * --num-prompts set to its prompts; otherwise empty. A generated dataset has no "whole".
   */
  private Optional<PromptWorkload> everyRow(PrintWriter out) {
    if (numPrompts.value != -1) {
      return Optional.empty();
    }
    if (!ALL_ROWS.contains(workload.datasetName)) {
      throw new IllegalArgumentException("--num-prompts -1 (every row once) needs a dataset of rows: "
          + String.join(", ", ALL_ROWS) + "; --dataset-name " + workload.datasetName + " generates prompts");
    }
    PromptWorkload preloaded = workload.workload(100_000);
    numPrompts.value = preloaded.distinctPrompts();
    out.println("--num-prompts -1: the dataset has " + numPrompts.value + " prompts; sending each once");
    return Optional.of(preloaded);
  }

  /**
   * What a run sends and when: the sessions (null without --sessions), the load, the prompts and the shard's start
   * instant.
   */
  private record Plan(SessionWorkload sessions, LoadProfile load, PromptWorkload prompts, Optional<Instant> startAt) {}

  /**
   * The workload and the load of this command line: sessions or prompts (with Locust's system message), the
   * arrivals (ramped, sharded), and vLLM's --no-oversample; fails on flags that cannot go together.
   */
  private Plan plan(PrintWriter out, PrintWriter err, double rate, Optional<PromptWorkload> preloaded) {
    SessionWorkload sessionWorkload = sessions.given() ? sessions.workload(workload.counter(), workload.seed) : null;
    LoadProfile load = sessionWorkload != null
        ? sessions.load(sessionWorkload, numPromptsGiven() ? numPrompts.value : Integer.MAX_VALUE, workload.seed)
        : schedule(rate);
    Optional<Instant> startAt = shard.startInstant();
    if (shard.sharded() && (noSave || noRecords)) {
      throw new IllegalArgumentException("a shard must write its records for infermark merge: drop --no-save and "
          + "--no-records");
    }
    PromptWorkload prompts = preloaded.orElseGet(() -> workload.workload(Math.min(numPrompts.value, 100_000)));
    Optional<String> locustNotice = locust.locustfileNotice(target.describe(), target.chat());
    locustNotice.ifPresent(out::println);
    if (locustNotice.isPresent() && target.chat()) {
      prompts = prompts.withSystemMessage(LocustOptions.SYSTEM_MESSAGE);
    }
    locust.csvPrefix(resultDir); // a malformed --csv fails before the run
    workload.tokenizerWarning(target.model()).ifPresent(w -> err.println("warning: " + w));
    boolean trace = workload.datasetName.equals("timed_trace") && sessionWorkload == null;
    if ((workload.vllmData.noOversample || trace) && prompts.distinctPrompts() < numPrompts.value) {
      // vLLM's --no-oversample, and its timed_trace always: a smaller dataset sends each of its prompts once
      out.println((trace ? "timed_trace: the trace has " + prompts.distinctPrompts() + " lines"
          : "--no-oversample: the dataset has " + prompts.distinctPrompts() + " prompts") + "; sending each once");
      numPrompts.value = prompts.distinctPrompts();
      load = schedule(rate);
    }
    if (trace) {
      traceNotes(rate).forEach(out::println);
    }
    return new Plan(sessionWorkload, load, prompts, startAt);
  }

  /** This command line's schedule: a self-timed trace's, a ramp's or the rate's (this shard of it). */
  private LoadProfile schedule(double rate) {
    if (selfTimed()) {
      return workload.timedTrace(Math.min(numPrompts.value, 100_000)).load(numPrompts.value, maxConcurrency,
          workload.seed);
    }
    return shard.apply(vllm.rampUp(rate).isPresent() ? rampLoad() : load(rate), rate);
  }

  /** What a timed_trace run does differently from vLLM's or with the flags given, one line each. */
  private List<String> traceNotes(double rate) {
    List<String> notes = new ArrayList<>(workload.timedTrace(Math.min(numPrompts.value, 100_000))
        .notes(numPrompts.value));
    if (selfTimed() && (!Double.isInfinite(rate) || burstiness != 1.0)) {
      notes.add("timed_trace: the lines are sent at their timestamps; --request-rate and --burstiness are not used "
          + "(--no-self-timed sends them at --request-rate), as in vLLM");
    }
    if (!List.of("vllm", "openai").contains(target.backendName())) {
      notes.add("timed_trace: vLLM takes it only on its completions backends (vllm, openai: its prompts are token "
          + "ids); infermark sends each line's text, here to " + target.backendName());
    }
    return notes;
  }

  /** The run's header line (and its sessions), before the test request. */
  private void printPlan(PrintWriter out, double rate, Plan plan) {
    out.printf(Locale.ROOT, "infermark bench: %s, model %s, %d requests, %s%s%n", target.describe(), target.requestModel(),
        numPrompts.value, loadText(rate), shard.sharded() ? ", shard " + shard.index() + " of " + shard.count() : "");
    if (plan.sessions() != null) {
      out.println("sessions: " + sessions.describe() + "; " + plan.sessions());
    }
    out.flush();
  }

  /** A finished run and the journal its records went to (closed), if one could be opened. */
  private record Measured(RunResult result, Optional<RecordsJournal> journal) {}

  /**
   * Builds the target and runs the benchmark on it: the test request, warm-ups and start barrier, then the measured
   * run with its listeners (journal, progress, scraper), stoppable by a signal; run facts beyond the records
   * (probes, speculative decoding, ramp events) go into {@code extras}.
   */
  private Measured measure(PrintWriter out, PrintWriter err, double rate, Plan plan,
      VllmResultOptions vllmOptions, BenchOutputs.OutputPaths files, OutputFiles outputs, StopSignals signals,
      Optional<io.infermark.metrics.server.PrometheusScraper> scraper, Duration drain, Map<String, Object> extras) {
    Optional<RecordsJournal> journal = Optional.empty();
    signals.whenIdle(() -> {
      // Before the run (test request, ready check, warm-ups) nothing is measured yet: stop at once.
      err.println();
      err.println("infermark: " + signals.signal().orElse("a signal") + " before the run started: nothing was "
          + "measured, exit code " + signals.exitCode());
      err.flush();
      Runtime.getRuntime().exit(signals.exitCode());
    });
    try (Target t = target.build(vllm::customize)) {
      // The CLI's own test request (as vLLM's: any failure stops the run) replaces the library's pre-flight
      // check, which stops only on definite misconfigurations: one uncounted request, not two per run.
      GenerationParams params = vllm.apply(workload.params(), target.chat(),
          TargetOptions.OPENAI_BACKENDS.contains(target.backendName()));
      Benchmark b = prepare(out, t, params, plan);
      journal = new BenchOutputs(this).openJournal(files.records(), vllmOptions, outputs, err);
      if (journal.isPresent()) {
        b = b.listener(journal.get());
      }
      Optional<LiveProgress> live = progressListener(err);
      if (live.isPresent()) {
        b = b.listener(live.get());
      }
      if (scraper.isPresent()) {
        b = b.listener(scraper.get()); // from the run's start to its end, on the run's clock
      }
      if (signals.received()) {
        throw new CliException(signals.exitCode(), "stopped by " + signals.signal().orElseThrow()
            + " before the run started");
      }
      RunResult ran = run(t, b, params, signals, drain, extras);
      scraper.ifPresent(sc -> {
        sc.stop();
        scrapeReport = Optional.of(sc.report().withMemoryThresholds(scrape.memoryThresholds()));
      });
      // Memory-threshold crossings go on the requests they overlap (tag memory_events), as preemption events do.
      RunResult result = scrapeReport.isPresent() && ran.recordsRetained() ? ran.toBuilder()
          .records(scrapeReport.get().memoryThresholds().tag(scrapeReport.get().series(), ran.records())).build() : ran;
      vllm.rampUp(rate).ifPresent(r -> extras.putAll(VllmRunFacts.rpsChangeEvents(result,
          new VllmRampArrivals(r.strategy(), r.startRps(), r.endRps(), numPrompts.value + warmupRequests, burstiness))));
      return new Measured(result, journal);
    } finally {
      signals.clearWhenIdle(); // also when the run never started (a failed test request)
      journal.ifPresent(RecordsJournal::close);
    }
  }

  /**
   * The benchmark of the plan on {@code t}, after the test request and the warm-ups, waiting for the shard's start
   * barrier if there is one; it counts the ideal prefix reuse of the prompts sent.
   */
  private Benchmark prepare(PrintWriter out, Target t, GenerationParams params, Plan plan) {
    Benchmark b = monitors.apply(Benchmark.target(t).preflight(false).workload(plan.sessions() != null
        ? plan.sessions() : workload.cacheBust(vllm.shape(plan.prompts(), workload.seed, numPrompts.value + warmupRequests)))
        .params(params).load(plan.load()).captureText(saveTexts || saveDetailed || locust.csv != null));
    // The ideal prefix reuse of the prompts as they are sent (the test request and warm-ups included: they fill the
    // server's cache too), beside the cache hits servers report.
    io.infermark.metrics.cache.PromptReuse reuse = io.infermark.metrics.cache.PromptReuse.counting(workload.counter());
    promptReuse = Optional.of(reuse);
    b = b.listener(reuse);
    if (!skipTestRequest) {
      vllm.readyCheck(b, out, target.describe());
      out.println("Initial test request completed. Starting the run...");
      out.flush();
    }
    vllm.warmUp(b, plan.prompts(), maxConcurrency, out);
    if (plan.startAt().isPresent()) {
      // After the test request, which must not wait for the barrier.
      b = b.startBarrier(StartBarrier.at(plan.startAt().get()));
      out.println("Waiting for the start barrier at " + plan.startAt().get() + " (wall clock now " + Instant.now() + ")");
      out.flush();
    }
    return b;
  }

  /**
   * Starts the run and waits for it, stopped (drained for {@code drain}) by a signal; the probe loop's and the
   * speculative-decoding counters' facts go into {@code extras}.
   */
  private RunResult run(Target t, Benchmark b, GenerationParams params, StopSignals signals, Duration drain,
      Map<String, Object> extras) {
    Optional<SpecDecodeMetrics> specBefore = SpecDecodeMetrics.scrape(target.root());
    ProbeLoop probes = vllm.probeRequestRate > 0 ? new ProbeLoop(t, params, vllm.probeRequestRate) : null;
    BenchmarkRun run = b.start();
    signals.watch(run, drain);
    signals.clearWhenIdle(); // from here a signal stops the run, and every output is written
    RunResult result;
    try {
      result = run.await();
    } finally {
      signals.unwatch(run);
      if (probes != null) {
        extras.putAll(probes.finish());
      }
    }
    if (specBefore.isPresent()) {
      SpecDecodeMetrics.scrape(target.root()).ifPresent(after -> extras.putAll(
          SpecDecodeMetrics.resultKeys(specBefore.get(), after)));
    }
    return result;
  }

  /**
   * A bench command rebuilt from settings kept in a shard's facts file or a journal's header, with bench's own
   * parser ({@code what} names where they came from, for the error).
   */
  static BenchCommand parse(java.util.SortedMap<String, List<String>> settings, String what) {
    List<String> args = new ArrayList<>();
    settings.forEach((name, values) -> {
      if (values.isEmpty()) {
        args.add(name);
      }
      for (String v : values) {
        args.add(name);
        args.add(v);
      }
    });
    BenchCommand bench = new BenchCommand();
    picocli.CommandLine cl = new picocli.CommandLine(bench);
    cl.setOverwrittenOptionsAllowed(true); // as the command line that wrote them
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    try {
      cl.parseArgs(args.toArray(String[]::new));
    } catch (picocli.CommandLine.ParameterException e) {
      throw new IllegalArgumentException(what + " do not parse as bench options (" + e.getMessage()
          + "); were they written by another infermark version?");
    }
    bench.spec = cl.getCommandSpec();
    return bench;
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

  /** True when --num-prompts was given on the command line (not its default). */
  private boolean numPromptsGiven() {
    return spec != null && spec.commandLine().getParseResult() != null
        && spec.commandLine().getParseResult().hasMatchedOption("--num-prompts");
  }

  /** vLLM's ramp-up as a load profile: the rate climbs over the requests; {@code --max-concurrency} still caps. */
  LoadProfile rampLoad() {
    var ramp = vllm.rampUp(Double.POSITIVE_INFINITY).orElseThrow();
    LoadProfile p = LoadProfile.arrivals(new VllmRampArrivals(ramp.strategy(), ramp.startRps(), ramp.endRps(),
        numPrompts.value + warmupRequests, burstiness));
    if (maxConcurrency != null) {
      p = p.maxInFlight(maxConcurrency);
    }
    p = p.requests(numPrompts.value).seed(workload.seed);
    return warmupRequests > 0 ? p.warmupRequests(warmupRequests) : p;
  }

  /** The whole schedule's load profile (unsharded). */
  LoadProfile load(double rate) {
    LoadProfile p;
    int total = numPrompts.value + warmupRequests;
    if (userRamp.given()) {
      if (!Double.isInfinite(rate) || maxConcurrency != null) {
        throw new IllegalArgumentException("--users/--stage shape the load with users; drop --request-rate and "
            + "--max-concurrency");
      }
      p = userRamp.load().seed(workload.seed);
      if (numPromptsGiven()) {
        p = p.requests(numPrompts.value); // otherwise the run time alone bounds it, as Locust's
      }
      return warmupRequests > 0 ? p.warmupRequests(warmupRequests) : p;
    }
    if (Double.isInfinite(rate)) {
      p = LoadProfile.concurrency(maxConcurrency != null ? Math.min(maxConcurrency, total) : total);
    } else {
      p = burstiness == 1.0 ? LoadProfile.poisson(rate) : LoadProfile.arrivals(ArrivalProcess.gamma(rate, burstiness));
      if (maxConcurrency != null) {
        p = p.maxInFlight(maxConcurrency);
      }
    }
    p = p.requests(numPrompts.value).seed(workload.seed);
    if (warmupRequests > 0) {
      p = p.warmupRequests(warmupRequests);
    }
    return p;
  }

  private String loadText(double rate) {
    if (selfTimed()) {
      return workload.timedTrace(Math.min(numPrompts.value, 100_000)).describe(numPrompts.value, maxConcurrency);
    }
    if (userRamp.given()) {
      return "users: " + userRamp.ramp();
    }
    if (Double.isInfinite(rate)) {
      return maxConcurrency != null ? "closed loop of " + maxConcurrency + " streams"
          : "all at once (request rate inf, no --max-concurrency)";
    }
    return String.format(Locale.ROOT, "%s arrivals at %s req/s%s", burstiness == 1.0 ? "Poisson" : "gamma(" + burstiness + ")",
        rate, maxConcurrency != null ? ", at most " + maxConcurrency + " in flight" : "");
  }

  /** vLLM's result options; {@code date} names the result file (now when empty). */
  VllmResultOptions vllmOptions(double rate, Optional<LocalDateTime> date) {
    return vllmOptions(rate, date, Map.of());
  }

  /** vLLM's result options with the keys measured beside the run (probes, ramp events, speculative decoding). */
  VllmResultOptions vllmOptions(double rate, Optional<LocalDateTime> date, Map<String, Object> extras) {
    VllmResultOptions.Builder b = VllmResultOptions.builder(target.backendName(), target.model())
        .requestRate(rate).burstiness(burstiness).chat(target.chat())
        .metrics(Arrays.stream(percentileMetrics.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList())
        .percentiles(percentiles(metricPercentiles)).goodput(slo.goodputObjectives());
    date.ifPresent(b::date);
    if (!userRamp.given() || numPromptsGiven()) {
      b.numPrompts(numPrompts.value); // a Locust-style run is bounded by its run time: vLLM's num_prompts is what it sent
    }
    b.detailed(saveDetailed).skipTokenizer(vllm.skipTokenizerInit);
    if (vllm.label != null) {
      b.label(vllm.label);
    }
    vllm.rampUp(rate).ifPresent(b::rampUp);
    extras.forEach(b::extra);
    if (workload.tokenizer != null) {
      b.tokenizerId(workload.tokenizer);
    }
    // The tokenizer that counted the prompts, not the one asked for: a Hugging Face name falls back to cl100k_base.
    b.tokenizerId(workload.counter().name());
    if (maxConcurrency != null) {
      b.maxConcurrency(maxConcurrency);
    }
    userRamp.peakUsers().ifPresent(b::maxConcurrency);
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

}
