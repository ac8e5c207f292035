package io.infermark.core.stream;

import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ErrorCategory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StreamDialectTest {

  @ParameterizedTest
  @EnumSource(StreamDialect.class)
  void newDecoderRejectsANullObserver(StreamDialect dialect) {
    assertThatThrownBy(() -> dialect.newDecoder(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("observer");
  }

  @ParameterizedTest
  @EnumSource(StreamDialect.class)
  void outcomeIsReportedOnceAndLaterInputIsIgnored(StreamDialect dialect) {
    RecordingObserver r = new RecordingObserver(true);
    StreamDecoder decoder = dialect.newDecoder(r);
    byte[] garbage = utf8("data: {not json\n\n{not json\n");
    decoder.feed(garbage, 0, garbage.length, 1);
    decoder.end(2);
    decoder.end(3);
    decoder.feed(garbage, 0, garbage.length, 4);
    decoder.end(5);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failedAt()).isEqualTo(1);
    assertThat(r.afterEnd).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(StreamDialect.class)
  void eachDecoderIsIndependent(StreamDialect dialect) {
    RecordingObserver first = new RecordingObserver(false);
    RecordingObserver second = new RecordingObserver(false);
    StreamDecoder a = dialect.newDecoder(first);
    StreamDecoder b = dialect.newDecoder(second);
    byte[] bad = utf8("data: {\n\n{\n");
    a.feed(bad, 0, bad.length, 1);
    b.end(2);
    assertThat(first.failure()).isNotNull();
    assertThat(first.failedAt()).isEqualTo(1);
    assertThat(second.untimedCalls).hasSize(1); // its own EOF outcome only
  }
}
