package io.infermark.testkit.simulator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The serving engine's state machine: a waiting queue, running sequences, the KV cache, and the
 * scheduler that plans each step and applies its results. It knows no clock: callers pass the
 * time of every event, so the same code runs in virtual time ({@link VirtualEngine}) and in real
 * time ({@link EngineServingModel}). Not thread-safe; one thread drives it.
 *
 * <p>A step (see {@link EngineProfile} for its cost) is planned like vLLM V1's scheduler: first
 * every running sequence in admission order gets its next tokens (one when decoding, a chunk of
 * its remaining prompt when prefilling), while the token budget lasts; a sequence that needs a
 * KV block when none is free preempts the most recently admitted running sequence (possibly
 * itself), which frees all its blocks and goes back to the head of the queue to be recomputed.
 * Then, if nothing was preempted, waiting requests are admitted first come first served while
 * there is a sequence slot, token budget, and blocks for their first chunk (after any prefix-cache
 * hit). A sequence whose KV covers all its tokens at the end of a step samples one new token then.
 */
final class Engine {

  /** One sequence's share of a planned step. */
  record Work(Sequence sequence, int tokens, int computedBefore, boolean decode) {}

  /** A planned step: its work and its duration. */
  record Step(long startNanos, long durationNanos, List<Work> work) {
    long endNanos() {
      return startNanos + durationNanos;
    }
  }

  private final EngineProfile profile;
  private final int blockSize;
  private final KvCache kv;
  private final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
  private final ArrayList<Sequence> running = new ArrayList<>();

  private long steps;
  private long busyNanos;
  private int peakRunning;
  private int peakWaiting;
  private int peakKvBlocks;
  private long preemptions;
  private long prefixQueries;
  private long prefixHits;
  private long promptTokens;
  private long generationTokens;
  private double inSystemIntegral;
  private long lastEventNanos = Long.MIN_VALUE;
  /** Swap cost gathered while planning the current step, ms. */
  private double swapMs;
  private int swappedBlocks;
  private long swapOutBlocks;
  private long swapInBlocks;
  private double fragmentation;

  Engine(EngineProfile profile) {
    this.profile = profile;
    this.blockSize = profile.blockSize();
    this.kv = new KvCache(profile.kvCacheBlocks());
  }

  EngineProfile profile() {
    return profile;
  }

  /**
   * Why a request of this size can never be served (its KV would exceed the whole cache), or null if it fits.
   */
  String rejection(int prompt, int output) {
    long blocks = blocksFor((long) prompt + output);
    if (blocks > kv.totalBlocks()) {
      return "prompt (" + prompt + " tokens) + output (" + output + " tokens) needs " + blocks
          + " KV blocks but the cache has " + kv.totalBlocks() + " (" + profile.kvCacheTokens() + " tokens)";
    }
    return null;
  }

  /** Queues an arriving sequence at {@code nanos}; it is admitted at the start of a later step. */
  void add(Sequence s, long nanos) {
    String why = rejection(s.promptTokens, s.outputTokens);
    if (why != null) {
      throw new IllegalArgumentException("request " + s.id + " cannot be served: " + why);
    }
    advance(nanos);
    waiting.addLast(s);
    peakWaiting = Math.max(peakWaiting, waiting.size());
  }

  /** Removes a sequence wherever it is (its client went away), freeing its blocks. */
  void abort(Sequence s, long nanos) {
    if (s.done()) {
      return;
    }
    advance(nanos);
    if (waiting.remove(s) || running.remove(s)) {
      releaseBlocks(s);
      dropSwapped(s);
    }
    s.state = Sequence.State.ABORTED;
    s.finishNanos = nanos;
    s.listener.progressed(s);
  }

  boolean idle() {
    return waiting.isEmpty() && running.isEmpty();
  }

  /** Plans the step starting at {@code nanos}, admitting waiting requests; null when there is nothing to do. */
  Step plan(long nanos) {
    advance(nanos);
    swapMs = 0;
    int budget = profile.maxBatchedTokens();
    List<Work> work = new ArrayList<>();
    boolean preempted = false;
    for (int i = 0; i < running.size() && budget > 0; ) {
      Sequence s = running.get(i);
      int tokens = Math.min(s.totalTokens() - s.computed, budget);
      int need = blocksFor((long) s.computed + tokens) - s.heldBlocks();
      boolean selfPreempted = false;
      while (need > 0 && !kv.allocate(need)) {
        Sequence victim = running.get(running.size() - 1);
        preempt(victim, nanos);
        preempted = true;
        if (victim == s) {
          selfPreempted = true;
          break;
        }
      }
      if (selfPreempted) {
        break;
      }
      s.privateBlocks += Math.max(need, 0);
      work.add(work(s, tokens));
      budget -= tokens;
      i++;
    }
    while (!preempted && budget > 0 && !waiting.isEmpty() && running.size() < profile.maxRunningSequences()) {
      Sequence s = waiting.peekFirst();
      if (s.arrivalNanos > nanos) {
        break; // it arrived after this step began (steps run back to back from the last one's end): the next step
      }
      int hitBlocks = 0;
      int swapIn = s.swappedTokens > 0 ? blocksFor(s.swappedTokens) : 0;
      if (profile.prefixCaching() && swapIn == 0) {
        // Never the whole prompt: the last token is always computed, to sample from (as in vLLM).
        hitBlocks = kv.matchPrefix(s.blockHashes, (s.totalTokens() - 1) / blockSize);
      }
      // A swapped-out sequence comes back with its KV: it resumes where it was preempted.
      int computed = swapIn > 0 ? s.swappedTokens : hitBlocks * blockSize;
      int tokens = Math.min(s.totalTokens() - computed, budget);
      int need = blocksFor((long) computed + tokens) - hitBlocks;
      if (kv.available() - kv.evictableAmong(s.blockHashes, hitBlocks) < need) {
        break; // FCFS: nobody overtakes the head of the queue
      }
      waiting.pollFirst();
      for (int b = 0; b < hitBlocks; b++) {
        kv.acquire(s.blockHashes[b]);
      }
      kv.allocate(need);
      s.hashedBlocks = hitBlocks;
      s.privateBlocks = need;
      s.computed = computed;
      if (swapIn > 0) {
        swapMs += swapIn * profile.swapMsPerBlock();
        swapInBlocks += swapIn;
        swappedBlocks -= swapIn;
        s.swappedTokens = 0;
      } else {
        prefixQueries += s.totalTokens();
        prefixHits += computed;
      }
      boolean first = s.admissionNanos == ServerTimeline.NO_TIME;
      if (first) {
        s.admissionNanos = nanos;
        s.prefillStartNanos = nanos;
        s.cachedPromptTokens = computed;
      }
      s.state = Sequence.State.RUNNING;
      s.admitted = true;
      running.add(s);
      work.add(work(s, tokens));
      budget -= tokens;
      if (first) {
        s.listener.progressed(s);
      }
    }
    peakRunning = Math.max(peakRunning, running.size());
    peakKvBlocks = Math.max(peakKvBlocks, kv.used());
    fragmentation = fragmentation(work);
    if (work.isEmpty()) {
      return null;
    }
    return new Step(nanos, stepNanos(work) + Math.round(swapMs * 1e6), work);
  }

  /**
   * Internal fragmentation of the running sequences' KV, 0 to 1: the share of the slots their
   * blocks hold (block size each, counted per sequence) that hold no token, computed or about to be
   * computed in this step: the unfilled tail of each sequence's last block.
   */
  private double fragmentation(List<Work> work) {
    long slots = 0;
    long tokens = 0;
    for (Sequence s : running) {
      slots += (long) s.heldBlocks() * blockSize;
      tokens += s.computed;
    }
    for (Work w : work) {
      tokens += w.tokens();
    }
    return slots == 0 ? 0 : Math.max(0, 1 - (double) tokens / slots);
  }

  private Work work(Sequence s, int tokens) {
    boolean decode = tokens == 1 && s.generated > 0 && s.computed == s.totalTokens() - 1;
    return new Work(s, tokens, s.computed, decode);
  }

  private long stepNanos(List<Work> work) {
    double ms = profile.stepOverheadMs();
    boolean decodes = false;
    for (Work w : work) {
      if (w.decode()) {
        decodes = true;
        ms += profile.decodePerSequenceMs() + profile.decodePerContextTokenMs() * w.computedBefore();
      } else {
        ms += profile.prefillChunkMillis(w.tokens(), w.computedBefore());
      }
    }
    ms += decodes ? profile.decodeBaseMs() : profile.prefillBaseMs();
    return Math.max(1, Math.round(ms * 1e6));
  }

  /** Applies a step's results at its end: KV computed, tokens sampled, sequences finished. */
  void complete(Step step, long endNanos) {
    advance(endNanos);
    steps++;
    busyNanos += step.durationNanos();
    for (Work w : step.work()) {
      Sequence s = w.sequence();
      if (s.state != Sequence.State.RUNNING) {
        continue; // aborted during the step
      }
      s.computed += w.tokens();
      if (profile.prefixCaching()) {
        publishFullPromptBlocks(s);
      }
      if (s.computed == s.totalTokens()) {
        if (s.prefillEndNanos == ServerTimeline.NO_TIME) {
          s.prefillEndNanos = endNanos;
          promptTokens += s.promptTokens;
        }
        s.tokenNanos[s.generated] = endNanos;
        generationTokens++;
        int now = s.generated + 1;
        if (now == s.outputTokens) {
          running.remove(s);
          releaseBlocks(s);
          s.finishNanos = endNanos;
          s.generated = now;
          s.state = Sequence.State.FINISHED;
        } else {
          s.generated = now;
        }
        s.listener.progressed(s);
      }
    }
  }

  /** Makes the sequence's newly filled prompt blocks cached blocks, in order. */
  private void publishFullPromptBlocks(Sequence s) {
    int full = Math.min(s.computed / blockSize, s.blockHashes.length);
    while (s.hashedBlocks < full && s.privateBlocks > 0) {
      kv.publish(s.blockHashes[s.hashedBlocks]);
      s.hashedBlocks++;
      s.privateBlocks--;
    }
  }

  private void preempt(Sequence victim, long nanos) {
    running.remove(victim);
    releaseBlocks(victim);
    if (profile.swaps() && victim.computed > 0) {
      int blocks = blocksFor(victim.computed);
      victim.swappedTokens = victim.computed;
      swapMs += blocks * profile.swapMsPerBlock();
      swapOutBlocks += blocks;
      swappedBlocks += blocks;
    } else {
      victim.computed = 0;
    }
    victim.state = Sequence.State.WAITING;
    victim.preempted(nanos);
    waiting.addFirst(victim);
    preemptions++;
    peakWaiting = Math.max(peakWaiting, waiting.size());
  }

  private void releaseBlocks(Sequence s) {
    // Tail first, as vLLM does, so the blocks evicted first are the ends of prompts and shared
    // heads survive longest.
    for (int b = s.hashedBlocks - 1; b >= 0; b--) {
      kv.release(s.blockHashes[b]);
    }
    kv.free(s.privateBlocks);
    s.hashedBlocks = 0;
    s.privateBlocks = 0;
  }

  /** Forgets the host copy of an aborted swapped-out sequence. */
  private void dropSwapped(Sequence s) {
    if (s.swappedTokens > 0) {
      swappedBlocks -= blocksFor(s.swappedTokens);
      s.swappedTokens = 0;
    }
  }

  private int blocksFor(long tokens) {
    return (int) ((tokens + blockSize - 1) / blockSize);
  }

  /** Accumulates the time integral of requests in the system up to {@code nanos}. */
  private void advance(long nanos) {
    if (lastEventNanos != Long.MIN_VALUE && nanos > lastEventNanos) {
      inSystemIntegral += (double) (waiting.size() + running.size()) * (nanos - lastEventNanos);
    }
    if (nanos > lastEventNanos) {
      lastEventNanos = nanos;
    }
  }

  int running() {
    return running.size();
  }

  int waiting() {
    return waiting.size();
  }

  EngineStats stats() {
    return new EngineStats(steps, busyNanos, running.size(), waiting.size(), peakRunning, peakWaiting, kv.used(),
        kv.totalBlocks(), peakKvBlocks, preemptions, prefixQueries, prefixHits, promptTokens, generationTokens,
        inSystemIntegral, swappedBlocks, swapOutBlocks, swapInBlocks, fragmentation);
  }
}
