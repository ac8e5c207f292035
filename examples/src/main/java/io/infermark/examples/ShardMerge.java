package io.infermark.examples;

import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.ScheduleStats;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.report.ConsoleTable;
import io.infermark.metrics.report.RecordsJsonl;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Properties;

/**
 * Merges the shard outputs {@link ShardRun} wrote into one result: prints its summary and writes
 * {@code merged.jsonl} beside them. Run: {@code ShardMerge [dir = target/shards]}.
 */
public final class ShardMerge {

  private ShardMerge() {}

  /** Merges the shards in the given directory. */
  public static void main(String[] args) throws IOException {
    RunResult merged = merge(Path.of(args.length > 0 ? args[0] : "target/shards"));
    System.out.println(ConsoleTable.render(RunSummary.of(merged)));
  }

  /** Reads every {@code shard-*.properties} and its records and merges them. */
  public static RunResult merge(Path dir) throws IOException {
    List<RunResult> shards = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "shard-*.properties")) {
      for (Path facts : files) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(facts)) {
          p.load(r);
        }
        int index = Integer.parseInt(p.getProperty("index"));
        int count = Integer.parseInt(p.getProperty("shards"));
        double rate = Double.parseDouble(p.getProperty("rate"));
        LoadProfile load = LoadProfile.poisson(rate).requests(Integer.parseInt(p.getProperty("requests")))
            .seed(Long.parseLong(p.getProperty("seed"))).shard(index, count);
        List<RequestRecord> records = RecordsJsonl.read(dir.resolve("shard-" + index + ".jsonl"));
        shards.add(new RunResult(records, true, Instant.parse(p.getProperty("startedAt")), 0,
            Long.parseLong(p.getProperty("durationNanos")), p.getProperty("target"), load,
            GenerationParams.defaults(), 0, RunEnvironment.current(false),
            ScheduleStats.of(records, OptionalDouble.of(rate / count))));
      }
    }
    RunResult merged = io.infermark.core.shard.ShardMerge.merge(shards);
    RecordsJsonl.write(merged.records(), dir.resolve("merged.jsonl"));
    return merged;
  }
}
