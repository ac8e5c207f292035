package io.infermark.perturbation.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.infermark.core.capture.RequestRecord;
import io.infermark.perturbation.TestRecords;
import io.infermark.perturbation.validate.Validators;
import io.infermark.perturbation.validate.Validity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LevelTableTest {

  @Test
  void levelRowsHoldLinearPercentilesOfSuccessfulRequests() {
    List<RequestRecord> records = new ArrayList<>();
    Map<String, String> l0 = Map.of("level.typos", "0");
    Map<String, String> l1 = Map.of("level.typos", "1");
    // level 0: TTFT 10, 20, 30, 40 ms; E2E 100, 200, 300, 400 ms; 4 tokens each
    for (int i = 0; i < 4; i++) {
      records.add(TestRecords.ok(i, l0, i % 2 == 0 ? "ok" : "no", 10 * (i + 1), 100 * (i + 1), 4));
    }
    records.add(TestRecords.failed(4, l0));
    records.add(TestRecords.ok(5, l1, "ok", 50, 60, 2));
    LevelTable t = LevelTable.of(records, "typos", Validity.of(Validators.regex("ok")));
    assertThat(t.rows()).hasSize(2);
    LevelTable.Row r0 = t.rows().get(0);
    assertThat(r0.level()).isZero();
    assertThat(r0.requests()).isEqualTo(5);
    assertThat(r0.failed()).isEqualTo(1);
    assertThat(r0.validRate().getAsDouble()).isEqualTo(2 / 5.0);
    // numpy.percentile([10, 20, 30, 40], [50, 95]) = 25.0, 38.5
    assertThat(r0.ttftP50Ms().getAsDouble()).isCloseTo(25.0, offset(1e-9));
    assertThat(r0.ttftP95Ms().getAsDouble()).isCloseTo(38.5, offset(1e-9));
    assertThat(r0.e2eP50Ms().getAsDouble()).isCloseTo(250.0, offset(1e-9));
    assertThat(r0.e2eP95Ms().getAsDouble()).isCloseTo(385.0, offset(1e-9));
    assertThat(r0.meanOutputTokens().getAsDouble()).isEqualTo(4.0);
    assertThat(t.rows().get(1).validRate().getAsDouble()).isEqualTo(1.0);
    assertThat(t.table().split("\n")).hasSize(3);
    assertThatThrownBy(() -> LevelTable.of(records, "noise", r -> true)).hasMessageContaining("level.noise");
  }
}
