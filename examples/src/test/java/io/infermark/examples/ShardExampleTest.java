package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardExampleTest {

  @Test
  void twoShardsWrittenAndMergedAreTheWholeSchedule(@TempDir Path dir) throws Exception {
    for (int i = 0; i < 2; i++) {
      ShardRun.run(Map.of("JOB_COMPLETION_INDEX", Integer.toString(i), "SHARDS", "2", "RATE", "200",
          "REQUESTS", "30", "OUT_DIR", dir.toString()));
    }

    RunResult merged = ShardMerge.merge(dir);

    assertThat(merged.records()).extracting(RequestRecord::index)
        .containsExactlyElementsOf(java.util.stream.LongStream.range(0, 30).boxed().toList());
    assertThat(merged.records()).allMatch(RequestRecord::succeeded);
    assertThat(merged.load().shardCount()).isEqualTo(1);
    assertThat(dir.resolve("merged.jsonl")).exists();
  }
}
