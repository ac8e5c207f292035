package io.infermark.core.session;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.Randoms;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.SyntheticText;
import io.infermark.core.workload.WorkloadTags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link SessionWorkload}'s sessions over {@link SessionCalls}. Every session step (building a
 * prompt, handling a record, a tool's result, a join) runs on the calls' single session thread, so
 * session state needs no locks; records arrive on I/O threads and are handed over to it.
 */
final class SessionDriver {

  private static final Logger LOG = LoggerFactory.getLogger(SessionDriver.class);

  private final SessionWorkload workload;
  private final SessionCalls calls;
  private final LoadProfile load;
  private final GenerationParams params;
  private final long totalRequests;
  private final long maxSessions;
  private final CountDownLatch done = new CountDownLatch(1);
  private long nextIndex;
  private long nextSession;
  private int active;

  SessionDriver(SessionWorkload workload, SessionCalls calls) {
    this.workload = workload;
    this.calls = calls;
    this.load = calls.load();
    this.params = calls.params();
    this.totalRequests = load.totalRequests();
    this.maxSessions = workload.maxSessions().orElse(Long.MAX_VALUE);
    if (!load.isClosedLoop() && calls.issueDeadlineNanos() == Long.MAX_VALUE && maxSessions == Long.MAX_VALUE) {
      throw new IllegalStateException("an open loop of sessions needs a duration or a session limit: set the load's "
          + "duration or SessionWorkload.Builder.maxSessions(n)");
    }
  }

  void run() {
    calls.execute(() -> {
      try {
        startAll();
      } catch (RuntimeException e) {
        LOG.error("sessions stopped: {}", e.toString());
        done.countDown();
      }
    });
    calls.await(done);
  }

  private void startAll() {
    active++; // held until every slot or arrival has been started
    if (load.isClosedLoop()) {
      for (int s = 0; s < load.concurrency(); s++) {
        active++;
        startInSlot();
      }
    } else {
      ArrivalProcess arrivals = load.arrivalProcess().orElseThrow();
      long window = calls.issueDeadlineNanos() == Long.MAX_VALUE ? Long.MAX_VALUE
          : calls.issueDeadlineNanos() - calls.originNanos();
      long[] at = arrivals.schedule((int) Math.min(maxSessions, Integer.MAX_VALUE), window, load.seed());
      active++;
      arrive(at, 0);
    }
    release();
  }

  /** Starts every arrival from {@code from} that is due, then schedules itself for the next. */
  private void arrive(long[] at, int from) {
    int i = from;
    while (true) {
      if (i >= at.length || calls.stopRequested() || nextSession >= maxSessions) {
        release();
        return;
      }
      long due = calls.originNanos() + at[i];
      if (due >= calls.issueDeadlineNanos()) {
        release();
        return;
      }
      long wait = due - calls.nanoTime();
      if (wait > 0) {
        int next = i;
        calls.schedule(() -> arrive(at, next), wait);
        return;
      }
      active++;
      new SessionRun(nextSession++, due, this::sessionEnded).begin();
      i++;
    }
  }

  /** A closed-loop slot starts its next session, or ends. */
  private void startInSlot() {
    long now = calls.nanoTime();
    if (calls.stopRequested() || now >= calls.issueDeadlineNanos() || nextSession >= maxSessions
        || nextIndex >= totalRequests) {
      release();
      return;
    }
    new SessionRun(nextSession++, now, this::afterSlotSession).begin();
  }

  private void afterSlotSession(boolean aborted) {
    if (aborted && !calls.stopRequested()) {
      // a failed session is not followed at once by another that would fail the same way
      long pause = Math.max(workload.retry().backoffNanos(1), 1_000_000L);
      calls.schedule(this::startInSlot, pause);
    } else {
      startInSlot();
    }
  }

  private void sessionEnded(boolean aborted) {
    release();
  }

  private void release() {
    if (--active == 0) {
      done.countDown();
    }
  }

  /** Something a session does when it ends; true if it ended early (a failure or the run's end). */
  private interface End {
    void ended(boolean aborted);
  }

  /** One session's state, touched only on the session thread. */
  private final class SessionRun {
    private final Session session;
    private final long sessionIndex;
    private final long startNanos;
    private final End end;
    private final SplittableRandom random;
    private final List<Message> history = new ArrayList<>();
    /** Each message's token count, counted once: a turn's context repeats every earlier message. */
    private final java.util.IdentityHashMap<Message, Integer> counted = new java.util.IdentityHashMap<>();
    private final String turnsTag;
    private final String attemptsTag;
    private int turn;
    private int step;
    private int depth;
    private boolean ended;

    SessionRun(long sessionIndex, long startNanos, End end) {
      this.session = workload.source().session(sessionIndex);
      this.sessionIndex = sessionIndex;
      this.startNanos = startNanos;
      this.end = end;
      this.random = new SplittableRandom(workload.seedFor(sessionIndex));
      this.turnsTag = Integer.toString(session.turns().size());
      this.attemptsTag = Integer.toString(workload.retry().maxAttempts());
    }

    void begin() {
      beginTurn(startNanos);
    }

    /**
     * The context's tokens as {@link io.infermark.core.tokens.TokenCounter#count(Prompt)} counts a chat prompt (the
     * sum of its messages'), each message counted once per session instead of once per call that repeats it.
     */
    private int tokens(List<Message> messages) {
      int total = 0;
      for (Message m : messages) {
        Integer n = counted.get(m);
        if (n == null) {
          n = workload.counter().count(m.content());
          counted.put(m, n);
        }
        total += n;
      }
      return total;
    }

    private Turn current() {
      return session.turns().get(turn);
    }

    /** Sends the turn at {@code due} at the earliest (after think time, not before its trace offset). */
    private void beginTurn(long earliest) {
      Turn t = current();
      long due = earliest;
      if (turn > 0) {
        due += t.thinkBefore().orElse(workload.thinkTime()).sampleNanos(random);
      }
      if (t.notBefore().isPresent()) {
        due = Math.max(due, startNanos + t.notBefore().get().toNanos());
      }
      step = 0;
      depth = 0;
      long at = due;
      later(at, () -> {
        history.add(Message.user(t.message()));
        call(new ArrayList<>(history), -1, 0, at, Map.of(), main());
      });
    }

    /** Runs {@code task} at clock reading {@code at} (now if it has passed). */
    private void later(long at, Runnable task) {
      long wait = at - calls.nanoTime();
      if (wait > 0) {
        calls.schedule(guarded(task), wait);
      } else {
        guarded(task).run();
      }
    }

    private Runnable guarded(Runnable task) {
      return () -> {
        if (ended) {
          return;
        }
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.warn("session {} stopped: {}", session.id(), e.toString());
          finish(true);
        }
      };
    }

    /**
     * Sends one model call (attempt {@code retry}) and hands its successful reply to {@code then}; retries a
     * failure under the policy, and ends the session when every attempt failed or the run stopped issuing.
     */
    private void call(List<Message> messages, int branch, int retry, long intended, Map<String, String> extra,
        Reply then) {
      if (calls.stopRequested() || calls.nanoTime() >= calls.issueDeadlineNanos() || nextIndex >= totalRequests) {
        finish(true);
        return;
      }
      long index = nextIndex++;
      Turn t = current();
      Prompt p = Prompt.chat(messages).withTag(SessionTags.SESSION, session.id())
          .withTag(SessionTags.TURN, Integer.toString(turn)).withTag(SessionTags.SESSION_TURNS, turnsTag)
          .withTag(SessionTags.STEP, Integer.toString(step))
          .withTag(SessionTags.TURN_STEPS, Integer.toString(t.steps().size() + 1))
          .withTag(SessionTags.TOOL_CALL_DEPTH, Integer.toString(depth))
          .withTag(SessionTags.RETRY_COUNT, Integer.toString(retry))
          .withTag(SessionTags.MAX_ATTEMPTS, attemptsTag);
      for (Map.Entry<String, String> e : t.tags().entrySet()) {
        p = p.withTag(e.getKey(), e.getValue());
      }
      for (Map.Entry<String, String> e : extra.entrySet()) {
        if (!e.getKey().equals(MAX_TOKENS)) {
          p = p.withTag(e.getKey(), e.getValue());
        }
      }
      p = p.withTag(WorkloadTags.INPUT_TOKENS_ACHIEVED, Integer.toString(tokens(messages)))
          .withTag(WorkloadTags.TOKENIZER, workload.counter().name());
      GenerationParams gp = params;
      if (branch >= 0 && extra.containsKey(MAX_TOKENS)) {
        gp = RequestSpec.exactOutput(params, Integer.parseInt(extra.get(MAX_TOKENS)));
      } else if (t.maxTokens().isPresent()) {
        gp = RequestSpec.exactOutput(params, t.maxTokens().getAsInt());
      }
      Prompt prompt = p;
      GenerationParams sent = gp;
      boolean started = calls.start(index, new RequestSpec(prompt, sent), intended,
          record -> calls.execute(guarded(() -> ended(record, messages, branch, retry, extra, then))));
      if (!started) {
        finish(true);
      }
    }

    private void ended(RequestRecord record, List<Message> messages, int branch, int retry,
        Map<String, String> extra, Reply then) {
      if (record.succeeded()) {
        then.reply(record.text().filter(s -> !s.isEmpty()).orElseGet(() ->
            SyntheticText.words(Randoms.mix(workload.seed() ^ 0xA55L, record.index()), record.outputTokens())));
        return;
      }
      ErrorCategory category = record.failure().map(f -> f.category()).orElse(ErrorCategory.CLIENT);
      boolean runEnding = category == ErrorCategory.CANCELLED || category == ErrorCategory.NOT_SENT
          || calls.stopRequested();
      if (runEnding || retry + 1 >= workload.retry().maxAttempts()) {
        then.failed();
        return;
      }
      long at = calls.nanoTime() + workload.retry().backoffNanos(retry + 1);
      Map<String, String> again = new java.util.HashMap<>(extra);
      again.put(WorkloadTags.RETRY_OF, Long.toString(retryOf(record)));
      later(at, () -> call(messages, branch, retry + 1, at, again, then));
    }

    private long retryOf(RequestRecord record) {
      String original = record.tags().get(WorkloadTags.RETRY_OF);
      return original == null ? record.index() : Long.parseLong(original);
    }

    /** The turn's model call at the current depth replied: record it and go on to the next step. */
    private void afterReply(String reply) {
      history.add(Message.assistant(reply));
      Turn t = current();
      if (step < t.steps().size()) {
        Step s = t.steps().get(step);
        step++;
        if (s instanceof ToolCall tool) {
          runTool(tool, calls.nanoTime(), 1, 0);
        } else {
          fanOut((FanOut) s);
        }
        return;
      }
      turn++;
      if (turn == session.turns().size()) {
        finish(false);
      } else {
        beginTurn(calls.nanoTime());
      }
    }

    /** One attempt of a tool; its result (or its final failure) then goes to the model one depth deeper. */
    private void runTool(ToolCall tool, long toolStart, int attempt, int retries) {
      long latency = tool.latency().sampleNanos(random);
      boolean fails = tool.failureProbability() > 0 && random.nextDouble() < tool.failureProbability();
      later(calls.nanoTime() + latency, () -> {
        if (fails && attempt < workload.retry().maxAttempts()) {
          later(calls.nanoTime() + workload.retry().backoffNanos(attempt),
              () -> runTool(tool, toolStart, attempt + 1, retries + 1));
          return;
        }
        String result = fails ? "Tool " + tool.name() + " failed after " + attempt + " attempts."
            : "Result of tool " + tool.name() + ": "
                + SyntheticText.words(random.nextLong(), tool.resultTokens());
        history.add(Message.user(result));
        depth++;
        long now = calls.nanoTime();
        Map<String, String> extra = new java.util.HashMap<>();
        extra.put(SessionTags.TOOL_NANOS, Long.toString(now - toolStart));
        extra.put(SessionTags.TOOL_RETRIES, Integer.toString(retries));
        if (fails) {
          extra.put(SessionTags.TOOL_FAILED, "1");
        }
        call(new ArrayList<>(history), -1, 0, now, Map.copyOf(extra), main());
      });
    }

    /** Sends every branch at once and continues when the slowest has ended. */
    private void fanOut(FanOut f) {
      depth++;
      long now = calls.nanoTime();
      String[] replies = new String[f.branches()];
      int[] pending = {f.branches()};
      boolean[] failed = {false};
      int fanStep = step;
      for (int b = 0; b < f.branches(); b++) {
        int branch = b;
        String task = "Sub-task " + (b + 1) + " of " + f.branches() + ": "
            + SyntheticText.words(random.nextLong(), f.taskTokens());
        Map<String, String> extra = new java.util.HashMap<>();
        extra.put(SessionTags.BRANCH, Integer.toString(b));
        extra.put(SessionTags.BRANCHES, Integer.toString(f.branches()));
        f.maxTokens().ifPresent(m -> extra.put(MAX_TOKENS, Integer.toString(m)));
        Reply join = new Reply() {
          @Override
          public void reply(String text) {
            replies[branch] = text;
            arrived();
          }

          @Override
          public void failed() {
            failed[0] = true;
            arrived();
          }

          private void arrived() {
            if (--pending[0] > 0) {
              return;
            }
            if (failed[0]) {
              finish(true);
              return;
            }
            StringBuilder joined = new StringBuilder("Results of ").append(f.branches()).append(" sub-agents:");
            for (int i = 0; i < replies.length; i++) {
              joined.append("\n[").append(i + 1).append("] ").append(replies[i]);
            }
            history.add(Message.user(joined.toString()));
            step = fanStep;
            call(new ArrayList<>(history), -1, 0, calls.nanoTime(), Map.of(), SessionRun.this.main());
          }
        };
        step = fanStep;
        call(List.of(Message.user(task)), branch, 0, now, Map.copyOf(extra), join);
        if (ended) {
          return;
        }
      }
    }

    private void finish(boolean aborted) {
      if (!ended) {
        ended = true;
        end.ended(aborted);
      }
    }

    /** The turn's own model calls: a reply continues the turn, a final failure ends the session. */
    private Reply main() {
      return new Reply() {
        @Override
        public void reply(String text) {
          afterReply(text);
        }

        @Override
        public void failed() {
          finish(true);
        }
      };
    }
  }

  /** What a model call's outcome goes to. */
  private interface Reply {
    void reply(String text);

    void failed();
  }

  /** Internal key carrying a fan-out branch's output length to its call (never put on a record). */
  private static final String MAX_TOKENS = "\u0000max_tokens";
}
