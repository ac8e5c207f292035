package io.infermark.core;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.load.UserRamp;
import io.infermark.core.load.UserRamp.UserStage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * The part of a {@linkplain io.infermark.core.load.LoadProfile#users(UserRamp) user-ramp} run that
 * belongs to one stage: the stage and a {@link RunResult} of the requests issued during it, which
 * summarises like any run ({@code RunSummary.of(stage.result())}).
 *
 * <p>A request belongs to the stage its intended time (in a closed loop: the time its user issued
 * it) falls in; its latency may end in the next stage. The stage's result keeps the run's metadata
 * and client health, with its own schedule statistics and the stage's duration.
 *
 * @param stage the ramp stage
 * @param result its requests, as a run result
 */
public record StageResult(UserStage stage, RunResult result) {

  /** Validates. */
  public StageResult {
    Objects.requireNonNull(stage, "stage");
    Objects.requireNonNull(result, "result");
  }

  /**
   * Splits a user-ramp run into one result per stage, in stage order (a stage in which nothing was
   * issued has an empty result).
   *
   * @throws IllegalArgumentException if the run had no user ramp
   * @throws IllegalStateException if the run did not retain its records
   */
  public static List<StageResult> split(RunResult run) {
    Objects.requireNonNull(run, "run");
    UserRamp ramp = run.load().userRamp().orElseThrow(() -> new IllegalArgumentException(
        "the run's load " + run.load() + " has no user ramp; split only runs of LoadProfile.users(ramp)"));
    List<UserStage> stages = ramp.stages();
    List<List<RequestRecord>> parts = new ArrayList<>();
    for (int i = 0; i < stages.size(); i++) {
      parts.add(new ArrayList<>());
    }
    for (RequestRecord r : run.records()) {
      parts.get(stageIndex(stages, r.intendedNanos())).add(r);
    }
    List<StageResult> out = new ArrayList<>(stages.size());
    for (UserStage s : stages) {
      List<RequestRecord> records = parts.get(s.index());
      RunResult part = RunResult.builder()
          .records(records)
          .startedAt(run.startedAt())
          .originNanos(run.originNanos())
          .durationNanos(s.durationNanos())
          .target(run.target())
          .load(run.load())
          .params(run.params())
          .promptCount(run.promptCount())
          .environment(run.environment())
          .schedule(ScheduleStats.of(records, OptionalDouble.empty()))
          .clientHealth(run.clientHealth())
          .build();
      out.add(new StageResult(s, part));
    }
    return List.copyOf(out);
  }

  /** The stage an intended time falls in: before the first, the first; after the last, the last. */
  private static int stageIndex(List<UserStage> stages, long intendedNanos) {
    for (UserStage s : stages) {
      if (intendedNanos < s.endNanos()) {
        return s.index();
      }
    }
    return stages.size() - 1;
  }

  @Override
  public String toString() {
    return "StageResult[" + stage + ", " + result + "]";
  }
}
