package io.infermark.core.request;

import java.util.Locale;
import java.util.Objects;

/**
 * One part of a chat message's content: text, an image (an http(s) URL, or base64 data with its media
 * type) or audio (base64 data with its format). Targets encode the parts in their protocol's shape
 * (OpenAI's {@code text} / {@code image_url} / {@code input_audio} parts, Anthropic's {@code text} and
 * {@code image} blocks); a target whose protocol cannot carry a part fails the request with a
 * message that says so. Immutable; {@code toString()} never prints the data, only its size.
 *
 * <pre>{@code
 * Message m = Message.user(ContentPart.text("What is in this picture?"),
 *     ContentPart.imageUrl("https://example.com/cat.png"));
 * }</pre>
 */
public sealed interface ContentPart permits ContentPart.Text, ContentPart.ImageUrl, ContentPart.ImageData,
    ContentPart.Audio {

  /** A text part. */
  static Text text(String text) {
    return new Text(text);
  }

  /** An image the server fetches from an http(s) URL. */
  static ImageUrl imageUrl(String url) {
    return new ImageUrl(url);
  }

  /**
   * An image sent inline as base64 data.
   *
   * @param mediaType {@code image/png}, {@code image/jpeg}, {@code image/gif} or {@code image/webp}
   * @param base64 the image's bytes in standard base64 (no line breaks)
   */
  static ImageData imageBase64(String mediaType, String base64) {
    return new ImageData(mediaType, base64);
  }

  /**
   * Audio sent inline as base64 data (OpenAI's {@code input_audio}).
   *
   * @param base64 the audio's bytes in standard base64 (no line breaks)
   * @param format {@code wav} or {@code mp3}
   */
  static Audio audio(String base64, String format) {
    return new Audio(base64, format);
  }

  /** Whether this part is an image or audio, not text. */
  default boolean isMedia() {
    return !(this instanceof Text);
  }

  /**
   * Text.
   *
   * @param text the text, may be empty
   */
  record Text(String text) implements ContentPart {
    /** Validates. */
    public Text {
      Objects.requireNonNull(text, "text");
    }

    @Override
    public String toString() {
      return "text " + Prompt.abbreviate(text, 40);
    }
  }

  /**
   * An image by URL.
   *
   * @param url an absolute http(s) URL
   */
  record ImageUrl(String url) implements ContentPart {
    /** Validates. */
    public ImageUrl {
      Objects.requireNonNull(url, "url");
      String lower = url.strip().toLowerCase(Locale.ROOT);
      if (!(lower.startsWith("http://") || lower.startsWith("https://")) || url.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("image URL must be an absolute http(s) URL without spaces"
            + " (inline data: use ContentPart.imageBase64)");
      }
    }

    @Override
    public String toString() {
      return "image " + Prompt.abbreviate(url, 60);
    }
  }

  /**
   * An image as inline base64 data.
   *
   * @param mediaType the image's media type ({@code image/png}, {@code image/jpeg}, {@code image/gif},
   *     {@code image/webp})
   * @param base64 its bytes in standard base64
   */
  record ImageData(String mediaType, String base64) implements ContentPart {
    /** Validates. */
    public ImageData {
      Objects.requireNonNull(mediaType, "mediaType");
      Objects.requireNonNull(base64, "base64");
      if (!Base64Check.IMAGE_TYPES.matcher(mediaType).matches()) {
        throw new IllegalArgumentException("image media type must be image/png, image/jpeg, image/gif or image/webp, "
            + "was " + Prompt.abbreviate(mediaType, 40));
      }
      Base64Check.require(base64, "image");
    }

    /** The image as a {@code data:} URL, as OpenAI's {@code image_url} takes it. */
    public String dataUrl() {
      return "data:" + mediaType + ";base64," + base64;
    }

    /** The decoded size in bytes. */
    public long bytes() {
      return Base64Check.decodedBytes(base64);
    }

    @Override
    public String toString() {
      return "image " + mediaType + ", " + bytes() + " bytes";
    }
  }

  /**
   * Audio as inline base64 data.
   *
   * @param base64 its bytes in standard base64
   * @param format {@code wav} or {@code mp3}
   */
  record Audio(String base64, String format) implements ContentPart {
    /** Validates. */
    public Audio {
      Objects.requireNonNull(base64, "base64");
      Objects.requireNonNull(format, "format");
      if (!format.equals("wav") && !format.equals("mp3")) {
        throw new IllegalArgumentException("audio format must be wav or mp3, was " + Prompt.abbreviate(format, 20));
      }
      Base64Check.require(base64, "audio");
    }

    /** The decoded size in bytes. */
    public long bytes() {
      return Base64Check.decodedBytes(base64);
    }

    @Override
    public String toString() {
      return "audio " + format + ", " + bytes() + " bytes";
    }
  }
}
