package io.infermark.cli.scenario;

import io.infermark.cli.options.DurationText;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.control.ControlSignal;
import io.infermark.core.control.Knob;
import io.infermark.core.control.PrometheusGauge;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.sweep.KnobController;
import io.infermark.core.sweep.KnobStep;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code infermark scenario knob-control}: seed 003 §2.3's modality-aware control, {@link KnobController}. */
@Command(name = "knob-control", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003 §2.3, modality-aware control: a PID controller moves the items per request of each "
        + "modality (image [1, 8], audio [4, 32], text [16, 128]) to hold the worse of the server's queue length "
        + "(vllm:num_requests_waiting / --queue-target) and the P99 TTFT (/ --ttft-p99-target) at 1, at a constant "
        + "request rate. A text server gets a text stand-in for each item: --image-words, --audio-words and "
        + "--text-words words.",
        "Passes when the last measured pressure is at most 1: the controller held queue and P99 at or under their "
            + "targets."})
final class KnobControlCommand extends KitCommand {

  @Option(names = "--rate", defaultValue = "40", description = "Requests per second, constant (default: "
      + "${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--duration", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "60s",
      description = "How long the run lasts (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(names = "--interval", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "1s",
      description = "Control interval (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(names = "--queue-target", defaultValue = "4", description = "Requests waiting in the server's queue to hold "
      + "(default: ${DEFAULT-VALUE}).")
  double queueTarget;

  @Option(names = "--ttft-p99-target", paramLabel = "DURATION", converter = DurationText.class,
      defaultValue = "500ms", description = "P99 TTFT to hold, over the last 100 answers (default: "
          + "${DEFAULT-VALUE}).")
  Duration ttftTarget;

  @Option(names = "--metrics-url", paramLabel = "URL",
      description = "The server's Prometheus endpoint (default: the server's root + /metrics).")
  String metricsUrl;

  @Option(names = "--image", split = ",", paramLabel = "MIN,MAX,START", defaultValue = "1,8,4",
      description = "Image items per request (default: ${DEFAULT-VALUE}).")
  double[] image;

  @Option(names = "--audio", split = ",", paramLabel = "MIN,MAX,START", defaultValue = "4,32,16",
      description = "Audio items per request (default: ${DEFAULT-VALUE}).")
  double[] audio;

  @Option(names = "--text", split = ",", paramLabel = "MIN,MAX,START", defaultValue = "16,128,64",
      description = "Text items per request (default: ${DEFAULT-VALUE}).")
  double[] text;

  @Option(names = "--image-words", defaultValue = "48", description = "Words standing in for an image item "
      + "(default: ${DEFAULT-VALUE}).")
  int imageWords;

  @Option(names = "--audio-words", defaultValue = "12", description = "Words standing in for an audio item "
      + "(default: ${DEFAULT-VALUE}).")
  int audioWords;

  @Option(names = "--text-words", defaultValue = "2", description = "Words per text item (default: "
      + "${DEFAULT-VALUE}).")
  int textWords;

  @Override
  int defaultOutputLen() {
    return 8;
  }

  private static Knob knob(String name, double[] range) {
    if (range.length != 3) {
      throw new IllegalArgumentException("--" + name + " takes MIN,MAX,START, was " + range.length + " numbers");
    }
    return Knob.range(name, range[0], range[1], range[2]);
  }

  @Override
  void validate() {
    if (!(rate > 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("--rate must be > 0, was " + rate);
    }
    if (!(queueTarget > 0) || imageWords < 0 || audioWords < 0 || textWords < 0) {
      throw new IllegalArgumentException("--queue-target must be > 0 and the word counts >= 0");
    }
    knob("image", image);
    knob("audio", audio);
    knob("text", text);
  }

  /** Prompts whose length follows each modality's items: the knobs read as the request is built. */
  private Workload modal(Knob im, Knob au, Knob tx, GenerationParams params) {
    return (index, intended, defaults) -> {
      StringBuilder p = new StringBuilder();
      p.append("image ".repeat(imageWords * im.intValue())).append("audio ".repeat(audioWords * au.intValue()))
          .append("text ".repeat(textWords * tx.intValue()));
      return new RequestSpec(Prompt.text(p.toString().strip()).withTag("items", im.intValue() + "/" + au.intValue()
          + "/" + tx.intValue()), params);
    };
  }

  @Override
  Outcome execute(PrintWriter out, PrintWriter err) {
    Knob im = knob("image", image);
    Knob au = knob("audio", audio);
    Knob tx = knob("text", text);
    String url = metricsUrl != null ? metricsUrl : target.root() + "/metrics";
    Map<ControlSignal, Double> targets = new LinkedHashMap<>();
    targets.put(PrometheusGauge.of(url, "vllm:num_requests_waiting"), queueTarget);
    targets.put(ControlSignal.ttftP99(100), ttftTarget.toNanos() / 1e9);
    KnobController control = KnobController.builder(ControlSignal.worstOf(targets), 1.0).knobs(im, au, tx)
        .interval(interval).build();
    RunResult run;
    try (Target t = target.build()) {
      run = Benchmark.target(t).workload(modal(im, au, tx, params()))
          .load(LoadProfile.constantRate(rate).duration(duration)).listener(control).run();
    } finally {
      control.close();
    }
    requireASuccess(run.measured());
    List<KnobStep> steps = control.trajectory();
    Optional<KnobStep> lastMeasured = steps.stream().filter(s -> s.measured().isPresent())
        .reduce((a, b) -> b);
    if (lastMeasured.isEmpty()) {
      throw new IllegalStateException("the controller measured nothing in " + steps.size() + " steps: neither "
          + url + " nor the answers gave a value (a longer --duration, or --metrics-url)");
    }
    KnobStep last = lastMeasured.get();
    boolean pass = last.measured().getAsDouble() <= 1.0;
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "%8s %10s %8s %s", "time s", "pressure", "effort", "items image/audio/text"));
    for (KnobStep s : steps) {
      lines.add(String.format(Locale.ROOT, "%8.2f %10s %8.3f %d/%d/%d", s.elapsedNanos() / 1e9,
          s.measured().isPresent() ? String.format(Locale.ROOT, "%.3f", s.measured().getAsDouble()) : "-", s.effort(),
          Math.round(s.values().get("image")), Math.round(s.values().get("audio")),
          Math.round(s.values().get("text"))));
    }
    lines.add(String.format(Locale.ROOT, "last pressure %.3f (worst of queue / %s and P99 TTFT / %d ms): %s",
        last.measured().getAsDouble(), CalibrateCommand.trim(queueTarget), ttftTarget.toMillis(),
        pass ? "held" : "NOT held"));
    Map<String, Object> verdict = new LinkedHashMap<>();
    verdict.put("pass", pass);
    verdict.put("last_pressure", last.measured().getAsDouble());
    verdict.put("last_items", last.values());
    verdict.put("steps", steps);
    return new Outcome(pass, verdict, lines).withRecords(run.measured());
  }
}
