package io.infermark.core.tokens;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Exact counts in an OpenAI BPE vocabulary through JTokkit; see {@link TokenCounter#openAi(String)}. */
final class JTokkitCounter implements TokenCounter {

  /** Loads vocabularies on first use only: each costs a few MB and tens of milliseconds. */
  private static final class Registry {
    static final EncodingRegistry INSTANCE = Encodings.newLazyEncodingRegistry();
  }

  private final Encoding encoding;

  private JTokkitCounter(Encoding encoding) {
    this.encoding = encoding;
  }

  static JTokkitCounter forEncoding(String name) {
    EncodingType type = EncodingType.fromName(name.toLowerCase(Locale.ROOT)).orElseThrow(() ->
        new IllegalArgumentException("unknown OpenAI encoding '" + name + "'; known: "
            + Arrays.stream(EncodingType.values()).map(EncodingType::getName).collect(Collectors.joining(", "))));
    return new JTokkitCounter(Registry.INSTANCE.getEncoding(type));
  }

  static JTokkitCounter forModel(String model) {
    return new JTokkitCounter(Registry.INSTANCE.getEncodingForModel(model).orElseThrow(() ->
        new IllegalArgumentException("JTokkit knows no encoding for model '" + model
            + "'; name an encoding instead, e.g. TokenCounter.openAi(\"o200k_base\")")));
  }

  @Override
  public int count(String text) {
    return encoding.countTokensOrdinary(text);
  }

  @Override
  public String name() {
    return encoding.getName();
  }

  @Override
  public String toString() {
    return "TokenCounter[" + name() + "]";
  }
}
