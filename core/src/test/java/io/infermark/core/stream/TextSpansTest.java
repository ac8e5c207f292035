package io.infermark.core.stream;

import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TextSpans#readText}, through which every dialect reads its text fields. */
class TextSpansTest {

  private static final String VALUES = "[\"a\", \"\", null, 5, {\"x\":\"y\"}, [\"z\"], \"b\\u00e9\"]";

  private static List<Boolean> readAll(TextSpans spans, JsonScanner json, byte[] bytes) {
    json.reset(bytes, 0, bytes.length);
    List<Boolean> found = new ArrayList<>();
    json.beginArray();
    while (json.nextElement()) {
      found.add(spans.readText(ChunkKind.REASONING, json));
    }
    json.endDocument();
    return found;
  }

  @Test
  void onlyNonEmptyStringsAreTextAndTheyAreNotedWhenCaptured() {
    byte[] bytes = utf8(VALUES);
    TextSpans spans = new TextSpans(true);
    JsonScanner json = new JsonScanner();
    assertThat(readAll(spans, json, bytes)).containsExactly(true, false, false, false, false, false, true);
    RecordingObserver observer = new RecordingObserver(true);
    spans.emit(bytes, observer);
    assertThat(observer.untimedCalls).containsExactly("text REASONING a", "text REASONING bé");
  }

  @Test
  void withoutCaptureTextIsStillRecognisedButNothingIsNoted() {
    byte[] bytes = utf8(VALUES);
    TextSpans spans = new TextSpans(false);
    assertThat(readAll(spans, new JsonScanner(), bytes))
        .containsExactly(true, false, false, false, false, false, true);
    RecordingObserver observer = new RecordingObserver(false);
    spans.emit(bytes, observer);
    assertThat(observer.calls).isEmpty();
  }
}
