package io.infermark.core.workload;

import io.infermark.core.load.Randoms;
import io.infermark.core.request.Message;
import io.infermark.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.List;

/** Synthetic conversation text shared by {@link Mix} and {@link Sessions}: what each turn's user says. */
final class Conversation {
  private Conversation() {}

  /** The user message of a session's turn: exactly {@code tokens} tokens by {@code counter}. */
  static Message user(TokenCounter counter, int tokens, long seed, long session, int turn) {
    return Message.user(SyntheticText.exactly(counter, tokens, Randoms.mix(Randoms.mix(seed, session), turn)));
  }

  /** A stand-in for a reply whose text is unknown: {@code tokens} synthetic words. */
  static Message reply(int tokens, long seed, long session, int turn) {
    return Message.assistant(SyntheticText.words(Randoms.mix(Randoms.mix(seed ^ 0xA55L, session), turn), tokens));
  }

  /** Turns {@code 0..turn-1} with synthetic replies, then the user message of {@code turn}. */
  static List<Message> synthetic(TokenCounter counter, int userTokens, int replyTokens, long seed, long session,
      int turn) {
    List<Message> m = new ArrayList<>(2 * turn + 1);
    for (int t = 0; t < turn; t++) {
      m.add(user(counter, userTokens, seed, session, t));
      m.add(reply(replyTokens, seed, session, t));
    }
    m.add(user(counter, userTokens, seed, session, turn));
    return m;
  }
}
