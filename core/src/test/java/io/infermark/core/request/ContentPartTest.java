package io.infermark.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ContentPartTest {

  @Test
  void aMessageOfPartsHasItsTextPartsAsContentAndSaysItHasMedia() {
    Message m = Message.user(ContentPart.text("What is "), ContentPart.imageUrl("https://x.test/a.png"),
        ContentPart.text("this?"));
    assertThat(m.content()).isEqualTo("What is this?");
    assertThat(m.hasMedia()).isTrue();
    assertThat(m.parts()).hasSize(3);
    assertThat(Prompt.chat(m).hasMedia()).isTrue();
    assertThat(Prompt.chat(m).text()).isEqualTo("What is this?");
    assertThat(Message.user("hi").parts()).containsExactly(ContentPart.text("hi"));
    assertThat(Message.user("hi").hasMedia()).isFalse();
    assertThat(Message.user("hi")).isEqualTo(new Message("user", "hi")).hasSameHashCodeAs(new Message("user", "hi"));
  }

  @Test
  void toStringShowsSizesNeverTheData() {
    String data = "QUJDREVGR0g=";
    ContentPart.ImageData image = ContentPart.imageBase64("image/png", data);
    assertThat(image.bytes()).isEqualTo(8);
    assertThat(image.dataUrl()).isEqualTo("data:image/png;base64," + data);
    Message m = Message.user(ContentPart.text("x"), image, ContentPart.audio("QUJD", "mp3"));
    assertThat(m.toString()).doesNotContain(data).doesNotContain("QUJD").contains("8 bytes").contains("audio mp3, 3 bytes")
        .doesNotContain("\n");
  }

  @Test
  void badPartsAreRejectedWithTheReason() {
    assertThatThrownBy(() -> ContentPart.imageUrl("data:image/png;base64,AAAA"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("imageBase64");
    assertThatThrownBy(() -> ContentPart.imageBase64("image/bmp", "AAAA"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("media type");
    assertThatThrownBy(() -> ContentPart.imageBase64("image/png", "AAA"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiple of 4");
    assertThatThrownBy(() -> ContentPart.audio("AA=A", "wav"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not standard base64");
    assertThatThrownBy(() -> ContentPart.audio("AAAA", "flac"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wav or mp3");
    assertThatThrownBy(() -> ContentPart.text(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> Message.of("user", List.of())).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Message.user((ContentPart) null)).isInstanceOf(NullPointerException.class);
  }
}
