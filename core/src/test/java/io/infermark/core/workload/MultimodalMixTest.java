package io.infermark.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.request.ContentPart;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MultimodalMixTest {

  private static final Prompt TEXT = Prompt.user("Summarise.");
  private static final Prompt IMAGE = Prompt.chat(Message.user(ContentPart.text("What is it?"),
      ContentPart.imageUrl("https://x.test/a.png")));
  private static final Prompt AUDIO = Prompt.chat(Message.user(ContentPart.audio("UklGRg==", "wav")));

  @Test
  void requestsFollowTheWeightsUnderOneSessionTaggedByModality() {
    MultimodalMix mix = MultimodalMix.builder("s-1").add(6, TEXT).add(3, IMAGE).add(1, AUDIO).seed(7).build();
    Map<String, Integer> counts = new HashMap<>();
    int n = 10_000;
    for (int i = 0; i < n; i++) {
      Prompt p = mix.request(i, 0, GenerationParams.defaults()).prompt();
      assertThat(p.tags()).containsEntry(WorkloadTags.SESSION, "s-1").containsEntry(WorkloadTags.TURN,
          Integer.toString(i));
      counts.merge(p.tags().get(MultimodalMix.MODALITY), 1, Integer::sum);
    }
    // 10,000 draws: each share's standard error is below 0.005, so 0.03 is six of them.
    assertThat(counts.get("text") / (double) n).isCloseTo(0.6, org.assertj.core.data.Offset.offset(0.03));
    assertThat(counts.get("image") / (double) n).isCloseTo(0.3, org.assertj.core.data.Offset.offset(0.03));
    assertThat(counts.get("audio") / (double) n).isCloseTo(0.1, org.assertj.core.data.Offset.offset(0.03));
    // A request's choice depends on its index only.
    assertThat(mix.request(42, 5, GenerationParams.defaults())).isEqualTo(mix.request(42, 99, GenerationParams.defaults()));
    assertThat(mix.toString()).contains("s-1").contains("image 0.300");
  }

  @Test
  void modalityComesFromTheParts() {
    assertThat(MultimodalMix.modality(TEXT)).isEqualTo("text");
    assertThat(MultimodalMix.modality(IMAGE)).isEqualTo("image");
    assertThat(MultimodalMix.modality(AUDIO)).isEqualTo("audio");
    assertThat(MultimodalMix.modality(Prompt.chat(Message.user(ContentPart.imageBase64("image/png", "AAAA"),
        ContentPart.audio("AAAA", "mp3"))))).isEqualTo("image+audio");
  }

  @Test
  void badWeightsAndEmptyMixesAreRejected() {
    assertThatThrownBy(() -> MultimodalMix.builder("s").add(0, TEXT)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MultimodalMix.builder("s").add(Double.NaN, TEXT))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MultimodalMix.builder("s").build()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MultimodalMix.builder(" ")).isInstanceOf(IllegalArgumentException.class);
  }
}
