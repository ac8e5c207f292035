package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The documented media token model, checked against hand-computed values. */
class MediaTokensTest {

  @Test
  void imagesCostTheirTilesAfterScaling() {
    // 1920 x 1080: fits 2048; shorter side 1080 > 768 -> 1365 x 768; 3 x 2 tiles; 85 + 170 * 6.
    assertThat(MediaTokens.imageTokens(1920, 1080)).isEqualTo(1105);
    // 4096 x 2048 -> 2048 x 1024 -> 1536 x 768: 3 x 2 tiles.
    assertThat(MediaTokens.imageTokens(4096, 2048)).isEqualTo(1105);
    // 512 x 512: one tile; 513 x 100: two.
    assertThat(MediaTokens.imageTokens(512, 512)).isEqualTo(255);
    assertThat(MediaTokens.imageTokens(513, 100)).isEqualTo(425);
    assertThat(MediaTokens.imageDataTokens(MediaFiles.png(1920, 1080))).isEqualTo(1105);
    assertThat(MediaTokens.imageUrlTokens("data:image/png;base64," + MediaFiles.png(512, 512))).isEqualTo(255);
    assertThat(MediaTokens.imageUrlTokens("https://x.test/cat.jpg")).isEqualTo(765);
    assertThat(MediaTokens.imageDataTokens("/9j/4AAQ")).isEqualTo(765); // a JPEG: size not read
  }

  @Test
  void audioCostsTenTokensPerSecondRoundedUp() {
    // 2.5 s of 16 kHz 16-bit mono: 80,000 bytes at 32,000 B/s -> 25 tokens.
    assertThat(MediaTokens.audioTokens(MediaFiles.wav(80_000, 32_000), "wav")).isEqualTo(25);
    // 1.01 s at 8,000 B/s -> 10.1 -> 11 tokens.
    assertThat(MediaTokens.audioTokens(MediaFiles.wav(8_080, 8_000), "wav")).isEqualTo(11);
    // MP3 at 128 kbit/s: 48,000 bytes = 3 s -> 30 tokens.
    assertThat(MediaTokens.audioTokens(Base64.getEncoder().encodeToString(new byte[48_000]), "mp3")).isEqualTo(30);
    assertThatThrownBy(() -> MediaTokens.audioTokens("AAAA", "flac")).hasMessageContaining("wav or mp3");
  }
}
