package io.infermark.cli.scenario;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.infermark.cli.options.TargetOptions;
import io.infermark.core.Benchmark;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.report.RecordsJsonl;
import io.infermark.perturbation.scenario.ColdStartKit;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * What every kit command shares: the target (bench's flags), the output length, the JSON report and the exit code
 * from the verdict. A kit implements {@link #execute} and returns its {@link Outcome}.
 */
abstract class KitCommand implements Callable<Integer> {

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  TargetOptions target = new TargetOptions();

  @Option(names = "--output-len", paramLabel = "N",
      description = "Output tokens per request, sent with ignore_eos (default: the kit's, see docs/scenarios.md).")
  Integer outputLen;

  @Option(names = "--json", paramLabel = "FILE",
      description = "Where the JSON report goes (default: scenario-KIT.json in the current directory).")
  Path json;

  @Option(names = "--no-save", description = "Write no files, only print the verdict.")
  boolean noSave;

  @Option(names = "--no-client-warmup", description = "Do not first warm the client's own code paths against an "
      + "in-process simulator (8 requests and a health poll). Without the warm-up a fresh JVM's first-use costs "
      + "(class loading, the event loop, JIT: hundreds of milliseconds) land on the first requests the kit measures.")
  boolean noClientWarmup;

  /** A kit's result: its verdict, the lines the console shows, and what else the JSON and HTML reports hold. */
  record Outcome(boolean pass, Object verdict, List<String> lines, Map<String, Object> extra,
      Optional<HtmlPage> html, List<RequestRecord> records) {
    Outcome {
      lines = List.copyOf(lines);
      extra = new LinkedHashMap<>(extra);
      records = List.copyOf(records);
    }

    Outcome(boolean pass, Object verdict, List<String> lines, Map<String, Object> extra, Optional<HtmlPage> html) {
      this(pass, verdict, lines, extra, html, List.of());
    }

    Outcome(boolean pass, Object verdict, List<String> lines) {
      this(pass, verdict, lines, Map.of(), Optional.empty());
    }

    /** The same with the records the verdict judged, written beside the JSON report. */
    Outcome withRecords(List<RequestRecord> judged) {
      return new Outcome(pass, verdict, lines, extra, html, judged);
    }
  }

  /** Writes an HTML page to a file. */
  @FunctionalInterface
  interface HtmlPage {
    void write(Path file) throws IOException;
  }

  /** The kit's output length when {@code --output-len} is not given. */
  abstract int defaultOutputLen();

  /** Checks the kit's flags (before anything is sent) and runs the kit. */
  abstract Outcome execute(PrintWriter out, PrintWriter err);

  @Override
  public final Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (outputLen != null && outputLen < 1) {
      throw new IllegalArgumentException("--output-len must be >= 1, was " + outputLen);
    }
    validate();
    CommandLine.ParseResult given = spec.commandLine().getParseResult();
    if (!given.hasMatchedOption("--backend") && !given.hasMatchedOption("--endpoint")
        && !given.hasMatchedOption("--url")) {
      target.chatApi(); // the kits' prompts are chats: system messages, turns
    }
    target.resolveModel(err);
    out.printf("infermark scenario %s: %s, model %s%n", spec.name(), target.describe(), target.requestModel());
    if (!noClientWarmup) {
      out.printf(Locale.ROOT, "client warm-up against an in-process simulator: %.1f ms%n", warmUpClient());
    }
    out.flush();
    Outcome o = execute(out, err);
    o.lines().forEach(out::println);
    out.println(spec.name() + ": " + (o.pass() ? "PASS" : "FAIL"));
    if (!noSave) {
      Path file = json != null ? json : Path.of("scenario-" + spec.name() + ".json");
      write(file, o);
      List<String> written = new ArrayList<>(List.of(file.toString()));
      if (o.html().isPresent()) {
        String name = file.getFileName().toString();
        Path page = file.resolveSibling((name.endsWith(".json") ? name.substring(0, name.length() - 5) : name)
            + ".html");
        try {
          o.html().get().write(page);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot write " + page + ": " + e.getMessage(), e);
        }
        written.add(page + " (HTML report)");
      }
      if (!o.records().isEmpty()) {
        String name = file.getFileName().toString();
        Path records = file.resolveSibling((name.endsWith(".json") ? name.substring(0, name.length() - 5) : name)
            + ".records.jsonl");
        RecordsJsonl.write(o.records(), records);
        written.add(records + " (the judged requests)");
      }
      out.println("Wrote " + String.join(", ", written));
    }
    if (!o.pass()) {
      out.println("VERDICT FAILED: exit code 1");
    }
    out.flush();
    return o.pass() ? 0 : 1;
  }

  /**
   * Runs the client's request and health-poll paths against an in-process simulator, so that a fresh JVM's
   * first-use costs are not read as the server's (a cold start, a first step's TTFT); returns how long it took, ms.
   */
  private double warmUpClient() {
    long t0 = System.nanoTime();
    // the warm-up's simulator is not the user's business: its start and close lines stay out of the console (the
    // command's own process; set before the simulator's logger exists, kept if the user set it)
    String quiet = "org.slf4j.simpleLogger.log." + Simulator.class.getName();
    if (System.getProperty(quiet) == null) {
      System.setProperty(quiet, "warn");
    }
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ofMillis(1)).build());
        OpenAiTarget t = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      ColdStartKit.awaitReady(URI.create(sim.baseUrl() + "/health"), System.nanoTime(), Duration.ofSeconds(30));
      Benchmark.target(t).prompts(Prompt.user("warm up")).params(params()).preflight(false)
          .load(LoadProfile.concurrency(2).requests(8)).run();
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  /** Checks flags that picocli cannot; throws {@link IllegalArgumentException} (exit 2) on the first bad one. */
  void validate() {}

  /** Output length and ignore_eos. */
  GenerationParams params() {
    return GenerationParams.builder().maxTokens(outputLen != null ? outputLen : defaultOutputLen()).ignoreEos(true)
        .build();
  }

  /**
   * Fails the command (exit 3) when no measured request succeeded: a verdict on nothing would be the server's
   * absence, not the kit's finding.
   */
  static void requireASuccess(List<RequestRecord> records) {
    if (records.stream().noneMatch(r -> r.measured() && r.succeeded())) {
      String first = records.stream().map(RequestRecord::failure).flatMap(Optional::stream).findFirst()
          .map(f -> ": first error " + f).orElse("");
      throw new IllegalStateException("every request failed" + first);
    }
  }

  /** The JSON report: the kit, target, parameters, verdict and extras. */
  private void write(Path file, Outcome o) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("scenario", spec.name());
    root.put("target", target.describe());
    root.put("model", target.requestModel());
    Map<String, Object> parameters = new LinkedHashMap<>();
    for (CommandLine.Model.OptionSpec opt : spec.options()) {
      String name = opt.longestName();
      if (opt.usageHelp() || opt.versionHelp() || name.equals("--json") || name.equals("--no-save")) {
        continue;
      }
      Object value = name.equals("--output-len") ? params().maxTokens() : opt.getValue();
      parameters.put(name.replaceFirst("^--", ""), JsonTree.of(value));
    }
    root.put("parameters", parameters);
    root.put("pass", o.pass());
    root.put("verdict", JsonTree.of(o.verdict()));
    o.extra().forEach((k, v) -> root.put(k, JsonTree.of(v)));
    try {
      Path dir = file.toAbsolutePath().getParent();
      if (dir != null) {
        Files.createDirectories(dir);
      }
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
