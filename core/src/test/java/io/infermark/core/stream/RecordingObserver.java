package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** A test observer that logs every call in order and offers views of what it saw. */
final class RecordingObserver implements StreamObserver {

  record Chunk(long nanoTime, ChunkKind kind, int tokens) {}

  record ToolFragment(int index, String id, String name, String arguments) {}

  /** Every call, in order, with its timestamp where it has one. */
  final List<String> calls = new ArrayList<>();
  /** Every call, in order, without timestamps: equal for any split of the same body. */
  final List<String> untimedCalls = new ArrayList<>();
  final List<Chunk> chunks = new ArrayList<>();
  final List<String> texts = new ArrayList<>();
  final List<ToolFragment> toolFragments = new ArrayList<>();
  final List<Usage> usages = new ArrayList<>();
  final List<String> finishReasons = new ArrayList<>();
  final Map<String, List<Double>> serverTimings = new LinkedHashMap<>();
  /** Calls made after the request already ended, which the capture API forbids. */
  final List<String> afterEnd = new ArrayList<>();

  private final boolean wantsText;
  private final StringBuilder content = new StringBuilder();
  private final StringBuilder reasoning = new StringBuilder();
  private Failure failure;
  private long completedAt = -1;
  private long failedAt = -1;

  RecordingObserver(boolean wantsText) {
    this.wantsText = wantsText;
  }

  @Override
  public void onPhase(Phase phase, long nanoTime) {
    log("phase " + phase, nanoTime);
  }

  @Override
  public void onResponseHeaders(int httpStatus, long nanoTime) {
    log("headers " + httpStatus, nanoTime);
  }

  @Override
  public void onChunk(long nanoTime, ChunkKind kind, int tokens) {
    log("chunk " + kind + " " + tokens, nanoTime);
    chunks.add(new Chunk(nanoTime, kind, tokens));
  }

  @Override
  public void onText(ChunkKind kind, CharSequence text) {
    log("text " + kind + " " + text, -1);
    texts.add(text.toString());
    (kind == ChunkKind.REASONING ? reasoning : content).append(text);
  }

  @Override
  public void onToolCallDelta(int index, String id, String name, CharSequence argumentsFragment) {
    log("tool " + index + " id=" + id + " name=" + name + " args=" + argumentsFragment, -1);
    toolFragments.add(new ToolFragment(index, id, name, argumentsFragment.toString()));
  }

  @Override
  public boolean wantsText() {
    return wantsText;
  }

  @Override
  public void onUsage(Usage usage) {
    log("usage " + usage, -1);
    usages.add(usage);
  }

  @Override
  public void onFinishReason(String reason) {
    log("finish " + reason, -1);
    finishReasons.add(reason);
  }

  @Override
  public void onServerTiming(String name, double value) {
    log("timing " + name + "=" + value, -1);
    serverTimings.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
  }

  @Override
  public void onComplete(long nanoTime) {
    log("complete", nanoTime);
    completedAt = nanoTime;
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    log("failure " + failure, nanoTime);
    this.failure = failure;
    failedAt = nanoTime;
  }

  private void log(String call, long nanoTime) {
    if (completedAt >= 0 || failedAt >= 0) {
      afterEnd.add(call);
    }
    calls.add(nanoTime < 0 ? call : call + " @" + nanoTime);
    untimedCalls.add(call);
  }

  // ---- views ----

  boolean completed() {
    return completedAt >= 0;
  }

  long completedAt() {
    return completedAt;
  }

  long failedAt() {
    return failedAt;
  }

  Failure failure() {
    return failure;
  }

  long count(ChunkKind kind) {
    return chunks.stream().filter(c -> c.kind() == kind).count();
  }

  List<ChunkKind> kinds() {
    return chunks.stream().map(Chunk::kind).collect(Collectors.toList());
  }

  List<Integer> tokens() {
    return chunks.stream().map(Chunk::tokens).collect(Collectors.toList());
  }

  List<Long> chunkTimes() {
    return chunks.stream().map(Chunk::nanoTime).collect(Collectors.toList());
  }

  String content() {
    return content.toString();
  }

  String reasoning() {
    return reasoning.toString();
  }

  /** All usage reports folded as the capture API prescribes. */
  Usage usage() {
    Usage u = Usage.NONE;
    for (Usage later : usages) {
      u = u.merge(later);
    }
    return u;
  }

  /** Tool-call fragments of one call index. */
  List<ToolFragment> tool(int index) {
    return toolFragments.stream().filter(f -> f.index() == index).collect(Collectors.toList());
  }

  String toolArguments(int index) {
    return tool(index).stream().map(ToolFragment::arguments).collect(Collectors.joining());
  }

  String toolId(int index) {
    return tool(index).stream().map(ToolFragment::id).filter(s -> !s.isEmpty()).collect(Collectors.joining());
  }

  String toolName(int index) {
    return tool(index).stream().map(ToolFragment::name).filter(s -> !s.isEmpty()).collect(Collectors.joining());
  }
}
