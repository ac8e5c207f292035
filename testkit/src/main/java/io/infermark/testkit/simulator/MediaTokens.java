package io.infermark.testkit.simulator;

import java.util.Base64;

/**
 * The simulator's token model for images and audio in a prompt: how many prompt tokens (charged
 * in prefill like text tokens, so they show in TTFT) each part costs. Documented, deterministic
 * stand-ins for a vision or audio encoder, so tests can predict {@code prompt_tokens} exactly.
 *
 * <p><b>Images</b> (OpenAI-like "high detail" tiling): when the size is known, the image is scaled
 * down, keeping its aspect ratio (integer division, rounding down), to fit in 2048 × 2048, then
 * so its shorter side is at most 768; it costs {@value #IMAGE_BASE_TOKENS} +
 * {@value #TOKENS_PER_TILE} × (number of 512 × 512 tiles covering it). The size is known for
 * inline PNG and GIF data (read from the file's header); an image by URL, or in another format,
 * costs {@value #UNKNOWN_SIZE_IMAGE_TOKENS} tokens, what a 1024 × 1024 image costs. Example: a
 * 1920 × 1080 PNG becomes 1365 × 768, 3 × 2 = 6 tiles, 85 + 170 × 6 = 1105 tokens.
 *
 * <p><b>Audio</b>: {@value #AUDIO_TOKENS_PER_SECOND} tokens per second of audio, rounded up, at
 * least 1. The duration is the data's length over its byte rate: for WAV, the bytes after its
 * 44-byte header over the header's byte rate (32,000 B/s, 16 kHz 16-bit mono, when the header is
 * not a RIFF/WAVE one); for MP3, the bytes over 16,000 B/s (128 kbit/s). Example: 2.5 s of 16 kHz
 * 16-bit mono WAV is 44 + 80,000 bytes: ⌈80,000 × 10 / 32,000⌉ = 25 tokens.
 */
public final class MediaTokens {

  /** Tokens every image with a known size costs before its tiles. */
  public static final int IMAGE_BASE_TOKENS = 85;
  /** Tokens per 512 × 512 tile. */
  public static final int TOKENS_PER_TILE = 170;
  /** Tokens of an image whose size is not known (a URL, a JPEG or WebP): a 1024 × 1024 image's. */
  public static final int UNKNOWN_SIZE_IMAGE_TOKENS = IMAGE_BASE_TOKENS + 4 * TOKENS_PER_TILE;
  /** Tokens per second of audio. */
  public static final int AUDIO_TOKENS_PER_SECOND = 10;

  private static final int WAV_HEADER_BYTES = 44;
  private static final int DEFAULT_WAV_BYTES_PER_SECOND = 32_000;
  private static final int MP3_BYTES_PER_SECOND = 16_000;

  private MediaTokens() {}

  /** Tokens of an image of {@code width} × {@code height} pixels (both ≥ 1) under the tiling rule. */
  public static int imageTokens(int width, int height) {
    if (width < 1 || height < 1) {
      throw new IllegalArgumentException("image size must be at least 1 x 1, was " + width + " x " + height);
    }
    long w = width;
    long h = height;
    if (Math.max(w, h) > 2048) {
      long longer = Math.max(w, h);
      w = Math.max(1, w * 2048 / longer);
      h = Math.max(1, h * 2048 / longer);
    }
    if (Math.min(w, h) > 768) {
      long shorter = Math.min(w, h);
      w = Math.max(1, w * 768 / shorter);
      h = Math.max(1, h * 768 / shorter);
    }
    long tiles = ((w + 511) / 512) * ((h + 511) / 512);
    return (int) (IMAGE_BASE_TOKENS + TOKENS_PER_TILE * tiles);
  }

  /**
   * Tokens of an image given as a URL: a {@code data:image/...;base64,} URL is read for its size,
   * any other URL costs {@link #UNKNOWN_SIZE_IMAGE_TOKENS}.
   *
   * @throws IllegalArgumentException if a data URL is not base64 image data
   */
  static int imageUrlTokens(String url) {
    if (!url.startsWith("data:")) {
      return UNKNOWN_SIZE_IMAGE_TOKENS;
    }
    int comma = url.indexOf(',');
    if (comma < 0 || !url.substring(0, comma).endsWith(";base64") || !url.startsWith("data:image/")) {
      throw new IllegalArgumentException("an image data URL must be data:image/<type>;base64,<data>");
    }
    return imageDataTokens(url.substring(comma + 1));
  }

  /** Tokens of inline base64 image data: PNG and GIF by their size, others at the fixed cost. */
  static int imageDataTokens(String base64) {
    byte[] head = head(base64, 24);
    if (head.length >= 24 && (head[0] & 0xff) == 0x89 && head[1] == 'P' && head[2] == 'N' && head[3] == 'G'
        && head[12] == 'I' && head[13] == 'H' && head[14] == 'D' && head[15] == 'R') {
      int w = bigEndian(head, 16);
      int h = bigEndian(head, 20);
      if (w > 0 && h > 0) {
        return imageTokens(w, h);
      }
    } else if (head.length >= 10 && head[0] == 'G' && head[1] == 'I' && head[2] == 'F' && head[3] == '8') {
      int w = (head[6] & 0xff) | (head[7] & 0xff) << 8;
      int h = (head[8] & 0xff) | (head[9] & 0xff) << 8;
      if (w > 0 && h > 0) {
        return imageTokens(w, h);
      }
    }
    return UNKNOWN_SIZE_IMAGE_TOKENS;
  }

  /**
   * Tokens of base64 audio in {@code format} ({@code wav} or {@code mp3}).
   *
   * @throws IllegalArgumentException for another format or data that is not base64
   */
  static int audioTokens(String base64, String format) {
    long bytes = decodedBytes(base64);
    long dataBytes;
    long perSecond;
    switch (format) {
      case "wav" -> {
        byte[] head = head(base64, WAV_HEADER_BYTES);
        boolean riff = head.length >= WAV_HEADER_BYTES && head[0] == 'R' && head[1] == 'I' && head[2] == 'F'
            && head[3] == 'F' && head[8] == 'W' && head[9] == 'A' && head[10] == 'V' && head[11] == 'E';
        long rate = riff ? Integer.toUnsignedLong(littleEndian(head, 28)) : 0;
        perSecond = rate > 0 ? rate : DEFAULT_WAV_BYTES_PER_SECOND;
        dataBytes = Math.max(0, bytes - WAV_HEADER_BYTES);
      }
      case "mp3" -> {
        perSecond = MP3_BYTES_PER_SECOND;
        dataBytes = bytes;
      }
      default -> throw new IllegalArgumentException("audio format must be wav or mp3, was " + format);
    }
    long tokens = (dataBytes * AUDIO_TOKENS_PER_SECOND + perSecond - 1) / perSecond;
    return (int) Math.max(1, Math.min(tokens, Integer.MAX_VALUE));
  }

  /** The first {@code n} decoded bytes (fewer if the data is shorter). */
  private static byte[] head(String base64, int n) {
    int chars = Math.min(base64.length(), (n + 2) / 3 * 4);
    chars -= chars % 4;
    try {
      return Base64.getDecoder().decode(base64.substring(0, chars));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("media data is not standard base64");
    }
  }

  private static long decodedBytes(String base64) {
    int n = base64.length();
    if (n % 4 != 0) {
      throw new IllegalArgumentException("media data is not standard base64 (length not a multiple of 4)");
    }
    int pad = n > 0 && base64.charAt(n - 1) == '=' ? (n > 1 && base64.charAt(n - 2) == '=' ? 2 : 1) : 0;
    return (long) n / 4 * 3 - pad;
  }

  private static int bigEndian(byte[] b, int at) {
    return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | (b[at + 3] & 0xff);
  }

  private static int littleEndian(byte[] b, int at) {
    return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
  }
}
