package io.infermark.testkit.protocols;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.AnthropicTarget;
import io.infermark.core.protocol.HttpTarget;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.ContentPart;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.workload.MultimodalMix;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.MediaFiles;
import io.infermark.testkit.simulator.PromptTokenizer;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Image and audio requests against the simulator over HTTP: the server charges each part the tokens
 * of the documented model ({@code MediaTokens}; hand-computed here), and they are prefilled, so TTFT
 * includes their cost.
 */
class MultimodalAgainstSimulatorTest {

  private static final String TEXT = "Describe this, please.";
  /** A 1920 x 1080 PNG's header: 1365 x 768 after scaling, 3 x 2 tiles, 85 + 170 x 6 = 1105 tokens. */
  private static final String PNG_1920x1080 = MediaFiles.png(1920, 1080);
  private static final int IMAGE_TOKENS = 1105;
  /** 2.5 s of 16 kHz 16-bit mono WAV: 80,000 data bytes at 32,000 B/s, 10 tokens per second = 25 tokens. */
  private static final String WAV_2500MS = MediaFiles.wav(80_000, 32_000);
  private static final int AUDIO_TOKENS = 25;
  /** An image by URL: size unknown, 765 tokens. */
  private static final int URL_IMAGE_TOKENS = 765;
  /** Prefill cost per prompt token of the engine below, ms. */
  private static final double PREFILL_MS_PER_TOKEN = 0.05;

  private static SimulatorConfig config() {
    // Only prefill costs time (besides a 1 ms step floor), so a request's TTFT is at least its prompt's prefill.
    EngineProfile engine = EngineProfile.nearZeroCost().toBuilder().name("prefill-only")
        .prefillPerTokenMs(PREFILL_MS_PER_TOKEN).build();
    return SimulatorConfig.builder().engine(engine).outputTokensBetween(2, 4).reasoningTokens(0).seed(3).build();
  }

  private static final Prompt TEXT_ONLY = Prompt.user(TEXT);
  private static final Prompt IMAGE = Prompt.chat(Message.user(ContentPart.text(TEXT),
      ContentPart.imageBase64("image/png", PNG_1920x1080)));
  private static final Prompt AUDIO = Prompt.chat(Message.user(ContentPart.text(TEXT),
      ContentPart.audio(WAV_2500MS, "wav")));

  private static final Map<String, Integer> MEDIA_TOKENS = Map.of("text", 0, "image", IMAGE_TOKENS, "audio",
      AUDIO_TOKENS);

  @Test
  void aMixOfTextImageAndAudioRequestsIsChargedByTheDocumentedModelAndShowsInTtft() {
    MultimodalMix mix = MultimodalMix.builder("session-7").add(2, TEXT_ONLY).add(1, IMAGE).add(1, AUDIO).seed(5)
        .build();
    try (Simulator sim = Simulator.start(config());
        HttpTarget target = OpenAiTarget.chat(sim.baseUrl(), sim.config().model()).build()) {
      RunResult run = Benchmark.target(target).preflight(false).workload(mix)
          .params(GenerationParams.builder().maxTokens(4).build())
          .load(LoadProfile.concurrency(1).requests(12)).run();
      assertThat(run.records()).hasSize(12).allMatch(RequestRecord::succeeded);
      assertThat(run.records()).extracting(r -> r.tags().get(MultimodalMix.MODALITY))
          .contains("text", "image", "audio");
      int text = PromptTokenizer.count(TEXT);
      for (RequestRecord r : run.records()) {
        String modality = r.tags().get(MultimodalMix.MODALITY);
        int expected = text + MEDIA_TOKENS.get(modality);
        assertThat(r.tags()).containsEntry("session", "session-7");
        assertThat(r.usage().promptTokens()).as("%s request", modality).hasValue(expected);
        assertThat(sim.timeline(r.requestId()).orElseThrow().promptTokens()).hasValue(expected);
        // The prefill of every prompt token, media included, comes before the first token.
        double ttftMs = r.chunks().firstTokenOffsetNanos().getAsLong() / 1e6;
        assertThat(ttftMs).as("%s TTFT", modality).isGreaterThanOrEqualTo(PREFILL_MS_PER_TOKEN * expected * 0.999);
      }
    }
  }

  @Test
  void anthropicImageBlocksAreChargedLikeOpenAiParts() {
    Prompt both = Prompt.chat(Message.user(ContentPart.text(TEXT), ContentPart.imageBase64("image/png", PNG_1920x1080),
        ContentPart.imageUrl("https://example.com/cat.jpg")));
    try (Simulator sim = Simulator.start(config());
        HttpTarget target = AnthropicTarget.messages(sim.baseUrl(), sim.config().model()).build()) {
      RunResult run = Benchmark.target(target).preflight(false).prompts(both)
          .params(GenerationParams.builder().maxTokens(4).build())
          .load(LoadProfile.concurrency(1).requests(1)).run();
      RequestRecord r = run.records().get(0);
      assertThat(r.succeeded()).as("%s", r).isTrue();
      assertThat(r.usage().promptTokens()).hasValue(PromptTokenizer.count(TEXT) + IMAGE_TOKENS + URL_IMAGE_TOKENS);
    }
  }
}
