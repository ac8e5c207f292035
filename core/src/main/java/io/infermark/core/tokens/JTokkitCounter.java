package io.infermark.core.tokens;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import com.knuddels.jtokkit.api.ModelType;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Exact counts in an OpenAI BPE vocabulary through JTokkit; see {@link TokenCounter#openAi(String)}. The
 * vocabulary loads on the first count that needs it: a text of {@link CommonWords} is counted without it under
 * cl100k and o200k, so synthetic prompts cost no vocabulary load.
 */
final class JTokkitCounter implements TokenCounter {

  /** Loads vocabularies on first use only: each costs a few MB and tens of milliseconds. */
  private static final class Registry {
    static final EncodingRegistry INSTANCE = Encodings.newLazyEncodingRegistry();
  }

  private final EncodingType type;
  /** Whether every {@link CommonWords} word is one token, with or without its space (checked by a test). */
  private final boolean commonWordsAreTokens;
  private volatile Encoding encoding;

  private JTokkitCounter(EncodingType type) {
    this.type = type;
    this.commonWordsAreTokens = type == EncodingType.CL100K_BASE || type == EncodingType.O200K_BASE;
  }

  static JTokkitCounter forEncoding(String name) {
    EncodingType type = EncodingType.fromName(name.toLowerCase(Locale.ROOT)).orElseThrow(() ->
        new IllegalArgumentException("unknown OpenAI encoding '" + name + "'; known: "
            + Arrays.stream(EncodingType.values()).map(EncodingType::getName).collect(Collectors.joining(", "))));
    return new JTokkitCounter(type);
  }

  static JTokkitCounter forModel(String model) {
    EncodingType type = ModelType.fromName(model).map(ModelType::getEncodingType).orElseGet(() ->
        Registry.INSTANCE.getEncodingForModel(model).flatMap(e -> EncodingType.fromName(e.getName())).orElseThrow(() ->
            new IllegalArgumentException("JTokkit knows no encoding for model '" + model
                + "'; name an encoding instead, e.g. TokenCounter.openAi(\"o200k_base\")")));
    return new JTokkitCounter(type);
  }

  @Override
  public int count(String text) {
    if (commonWordsAreTokens) {
      int words = CommonWords.countIfOnlyCommonWords(text);
      if (words >= 0) {
        return words;
      }
    }
    return encoding().countTokensOrdinary(text);
  }

  private Encoding encoding() {
    Encoding e = encoding;
    if (e == null) {
      e = Registry.INSTANCE.getEncoding(type);
      encoding = e;
    }
    return e;
  }

  @Override
  public String name() {
    return type.getName();
  }

  @Override
  public String toString() {
    return "TokenCounter[" + name() + "]";
  }
}
