package io.infermark.metrics.report;

import static io.infermark.metrics.report.JsonFields.lower;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ConnectionPhases;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.Usage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Writes {@link RequestRecord}s as JSON Lines, one record per line, and reads them back exactly:
 * {@code read(write(records))} equals {@code records}. Both directions stream, one record at a time,
 * through Jackson's generator and parser (no tree), so files of millions of records need memory for
 * one record only.
 *
 * <p>Each line is an object with these fields; times are integer nanoseconds as the record holds
 * them ({@code intended_ns}, {@code send_ns} from the run origin, the rest from the request's send).
 * Fields marked optional are omitted when absent; enum values are lower-case.
 *
 * <pre>{@code
 * {"index": 3,                      // position in the schedule
 *  "request_id": "req-3",           // "" when none was sent
 *  "tags": {"scenario": "chat"},
 *  "warmup": false,
 *  "intended_ns": 100000000, "send_ns": 100250000,
 *  "phases_ns": {"connection_acquired": 12000, "request_sent": 45000},   // optional; Phase names
 *  "http_status": 200,              // 0 when none was received
 *  "chunks": {                      // optional when there are no chunks; parallel arrays
 *    "offsets_ns": [5000000, 12000000],
 *    "kinds": ["role", "content"],  // ChunkKind names
 *    "tokens": [-1, 1]},            // -1: count not stated by the server
 *  "usage": {"prompt_tokens": 50, "completion_tokens": 3},  // optional; absent counts omitted;
 *                                   // also total_tokens, reasoning_tokens, cached_prompt_tokens
 *  "finish_reason": "stop",         // optional
 *  "end_offset_ns": 32000000,
 *  "failure": {"category": "timeout", "http_status": 0, "timeout_phase": "read",
 *              "message": "no byte for 1 s"},                  // optional
 *  "server_timings": {"queue_ms": 1.5},                       // optional
 *  "text": "Hello",                 // optional: present only when text was captured
 *  "retries": 1,                    // optional: sent once more after a stale keep-alive connection
 *  "redirects": 1, "final_url": "https://host/v1/chat/completions",  // optional: redirects followed
 *  "insecure_tls": true,            // optional: TLS verification was off
 *  "retry_after": "30"}             // optional: a 429 or 503 answer's raw Retry-After header
 * }</pre>
 *
 * <p>Readers skip fields they do not know, so later versions can add fields, and they skip the header
 * and end lines of a {@link io.infermark.metrics.journal.RecordsJournal}, so a journal reads as its
 * records. Malformed input raises an {@link IllegalArgumentException} naming the line; I/O failures an
 * {@link UncheckedIOException}.
 */
public final class RecordsJsonl {

  private static final JsonFactory JSON = JsonFactory.builder().build();
  private static final Phase[] PHASES = Phase.values();
  private static final ChunkKind[] KINDS = ChunkKind.values();
  private static final String[] KIND_NAMES = lowerNames(KINDS);
  private static final String[] PHASE_NAMES = lowerNames(PHASES);
  private static final ErrorCategory[] CATEGORIES = ErrorCategory.values();
  private static final String[] CATEGORY_NAMES = lowerNames(CATEGORIES);
  private static final TimeoutPhase[] TIMEOUT_PHASES = TimeoutPhase.values();
  private static final String[] TIMEOUT_PHASE_NAMES = lowerNames(TIMEOUT_PHASES);

  private RecordsJsonl() {}

  /**
   * Writes the records to a file (UTF-8), one per line, replacing it if it exists.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void write(Iterable<RequestRecord> records, Path file) {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      write(records, out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write records to " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes the records to a writer, one per line; the writer is flushed but left open.
   *
   * @throws UncheckedIOException if the writer fails
   */
  public static void write(Iterable<RequestRecord> records, Writer out) {
    try (JsonGenerator g = generator(out)) {
      for (RequestRecord r : records) {
        writeRecord(g, r);
        g.writeRaw('\n');
      }
      g.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write records: " + e.getMessage(), e);
    }
  }

  /**
   * Appends one record as one line, for writing records as they complete; the writer is neither
   * flushed nor closed.
   *
   * @throws UncheckedIOException if the writer fails
   */
  public static void writeLine(RequestRecord record, Writer out) {
    try (JsonGenerator g = generator(out)) {
      writeRecord(g, record);
      g.writeRaw('\n');
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write record " + record.index() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads every record of a file.
   *
   * @throws IllegalArgumentException if a line is not a valid record
   * @throws UncheckedIOException if the file cannot be read
   */
  public static List<RequestRecord> read(Path file) {
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return read(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read records from " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads every record from a reader, which is left open.
   *
   * @throws IllegalArgumentException if a line is not a valid record
   * @throws UncheckedIOException if the reader fails
   */
  public static List<RequestRecord> read(Reader in) {
    List<RequestRecord> records = new ArrayList<>();
    try (RecordIterator it = new RecordIterator(parser(in))) {
      it.forEachRemaining(records::add);
    }
    return records;
  }

  /**
   * The records of a reader, parsed lazily one at a time as the stream is consumed. Closing the
   * stream releases the parser but not the reader.
   */
  public static Stream<RequestRecord> stream(Reader in) {
    RecordIterator it = new RecordIterator(parser(in));
    return StreamSupport.stream(Spliterators.spliteratorUnknownSize(it, Spliterator.ORDERED | Spliterator.NONNULL),
        false).onClose(it::close);
  }

  /**
   * The records of a file, parsed lazily; close the stream (try-with-resources) to close the file.
   *
   * @throws UncheckedIOException if the file cannot be opened
   */
  public static Stream<RequestRecord> stream(Path file) {
    BufferedReader in;
    try {
      in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read records from " + file + ": " + e.getMessage(), e);
    }
    return stream(in).onClose(() -> {
      try {
        in.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot close " + file + ": " + e.getMessage(), e);
      }
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Writing

  private static JsonGenerator generator(Writer out) throws IOException {
    JsonGenerator g = JSON.createGenerator(out);
    g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    // Flushing the caller's writer after every record would defeat its buffering.
    g.disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM);
    g.setRootValueSeparator(null);
    return g;
  }

  private static void writeRecord(JsonGenerator g, RequestRecord r) throws IOException {
    g.writeStartObject();
    g.writeNumberField("index", r.index());
    g.writeStringField("request_id", r.requestId());
    g.writeObjectFieldStart("tags");
    for (Map.Entry<String, String> e : r.tags().entrySet()) {
      g.writeStringField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
    g.writeBooleanField("warmup", r.warmup());
    g.writeBooleanField("cooldown", r.cooldown());
    g.writeNumberField("intended_ns", r.intendedNanos());
    g.writeNumberField("send_ns", r.sendNanos());
    writePhases(g, r.phases());
    g.writeNumberField("http_status", r.httpStatus());
    writeChunks(g, r.chunks());
    writeUsage(g, r.usage());
    if (r.finishReason().isPresent()) {
      g.writeStringField("finish_reason", r.finishReason().get());
    }
    g.writeNumberField("end_offset_ns", r.endOffsetNanos());
    if (r.failure().isPresent()) {
      Failure f = r.failure().get();
      g.writeObjectFieldStart("failure");
      g.writeStringField("category", lower(f.category()));
      g.writeNumberField("http_status", f.httpStatus());
      g.writeStringField("timeout_phase", lower(f.timeoutPhase()));
      g.writeStringField("message", f.message());
      g.writeEndObject();
    }
    if (!r.serverTimings().isEmpty()) {
      g.writeObjectFieldStart("server_timings");
      for (Map.Entry<String, Double> e : r.serverTimings().entrySet()) {
        g.writeNumberField(e.getKey(), e.getValue());
      }
      g.writeEndObject();
    }
    if (r.text().isPresent()) {
      g.writeStringField("text", r.text().get());
    }
    if (r.retries() > 0) {
      g.writeNumberField("retries", r.retries());
    }
    if (r.redirects() > 0) {
      g.writeNumberField("redirects", r.redirects());
    }
    if (r.finalUrl().isPresent()) {
      g.writeStringField("final_url", r.finalUrl().get());
    }
    if (r.insecureTls()) {
      g.writeBooleanField("insecure_tls", true);
    }
    if (r.retryAfter().isPresent()) {
      g.writeStringField("retry_after", r.retryAfter().get());
    }
    g.writeEndObject();
  }

  private static void writePhases(JsonGenerator g, ConnectionPhases phases) throws IOException {
    long[] offsets = phases.toArray();
    boolean any = false;
    for (int i = 0; i < offsets.length; i++) {
      if (offsets[i] >= 0) {
        if (!any) {
          g.writeObjectFieldStart("phases_ns");
          any = true;
        }
        g.writeNumberField(PHASE_NAMES[i], offsets[i]);
      }
    }
    if (any) {
      g.writeEndObject();
    }
  }

  private static void writeChunks(JsonGenerator g, ChunkTimeline chunks) throws IOException {
    if (chunks.size() == 0) {
      return;
    }
    g.writeObjectFieldStart("chunks");
    // Three walks of the compact timeline rather than three temporary arrays: the walk is cheap.
    g.writeArrayFieldStart("offsets_ns");
    ChunkTimeline.Cursor c = chunks.cursor();
    while (c.next()) {
      g.writeNumber(c.offsetNanos());
    }
    g.writeEndArray();
    g.writeArrayFieldStart("kinds");
    c = chunks.cursor();
    while (c.next()) {
      g.writeString(KIND_NAMES[c.kind().ordinal()]);
    }
    g.writeEndArray();
    g.writeArrayFieldStart("tokens");
    c = chunks.cursor();
    while (c.next()) {
      g.writeNumber(c.tokens());
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void writeUsage(JsonGenerator g, Usage u) throws IOException {
    if (u.isEmpty()) {
      return;
    }
    g.writeObjectFieldStart("usage");
    count(g, "prompt_tokens", u.promptTokens());
    count(g, "completion_tokens", u.completionTokens());
    count(g, "total_tokens", u.totalTokens());
    count(g, "reasoning_tokens", u.reasoningTokens());
    count(g, "cached_prompt_tokens", u.cachedPromptTokens());
    g.writeEndObject();
  }

  private static void count(JsonGenerator g, String name, OptionalInt v) throws IOException {
    if (v.isPresent()) {
      g.writeNumberField(name, v.getAsInt());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Reading

  private static JsonParser parser(Reader in) {
    try {
      JsonParser p = JSON.createParser(in);
      p.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read records: " + e.getMessage(), e);
    }
  }

  /** Parses one record per {@link #next()}, reusing its chunk buffers across records. */
  private static final class RecordIterator implements Iterator<RequestRecord>, AutoCloseable {
    private final JsonParser p;
    private RequestRecord nextRecord;
    private boolean done;
    private long[] offsets = new long[64];
    private byte[] kinds = new byte[64];
    private int[] tokens = new int[64];

    RecordIterator(JsonParser p) {
      this.p = p;
    }

    @Override
    public boolean hasNext() {
      if (nextRecord == null && !done) {
        nextRecord = parseNext();
        done = nextRecord == null;
      }
      return nextRecord != null;
    }

    @Override
    public RequestRecord next() {
      if (!hasNext()) {
        throw new NoSuchElementException("no more records");
      }
      RequestRecord r = nextRecord;
      nextRecord = null;
      return r;
    }

    @Override
    public void close() {
      try {
        p.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot close the records parser: " + e.getMessage(), e);
      }
    }

    private RequestRecord parseNext() {
      int line = p.currentLocation().getLineNr();
      try {
        while (true) {
          JsonToken t = p.nextToken();
          if (t == null) {
            return null;
          }
          line = p.currentTokenLocation().getLineNr();
          if (t != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("expected a record object but found " + t);
          }
          RequestRecord r = parseRecord();
          if (r != null) {
            return r;
          }
        }
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("malformed records JSONL at line " + line + ": " + e.getOriginalMessage(),
            e);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read records: " + e.getMessage(), e);
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new IllegalArgumentException("invalid record at line " + line + " of records JSONL: " + e.getMessage(),
            e);
      }
    }

    /** The record of the object just opened; null for a journal's header or end line, which it skips. */
    private RequestRecord parseRecord() throws IOException {
      RequestRecord.Builder b = RequestRecord.builder();
      boolean first = true;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (first && isJournalMarker(field)) {
          if (value.isStructStart()) {
            p.skipChildren();
          }
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            if (p.nextToken().isStructStart()) {
              p.skipChildren();
            }
          }
          return null;
        }
        first = false;
        switch (field) {
          case "index" -> b.index(p.getLongValue());
          case "request_id" -> b.requestId(p.getText());
          case "tags" -> b.tags(readStrings());
          case "warmup" -> b.warmup(p.getBooleanValue());
          case "cooldown" -> b.cooldown(p.getBooleanValue());
          case "intended_ns" -> b.intendedNanos(p.getLongValue());
          case "send_ns" -> b.sendNanos(p.getLongValue());
          case "phases_ns" -> b.phases(readPhases());
          case "http_status" -> b.httpStatus(p.getIntValue());
          case "chunks" -> b.chunks(readChunks());
          case "usage" -> b.usage(readUsage());
          case "finish_reason" -> b.finishReason(p.getText());
          case "end_offset_ns" -> b.endOffsetNanos(p.getLongValue());
          case "failure" -> b.failure(Optional.of(readFailure()));
          case "server_timings" -> b.serverTimings(readDoubles());
          case "text" -> b.text(Optional.of(p.getText()));
          case "retries" -> b.retries(p.getIntValue());
          case "redirects" -> b.redirects(p.getIntValue());
          case "final_url" -> b.finalUrl(p.getText());
          case "insecure_tls" -> b.insecureTls(p.getBooleanValue());
          case "retry_after" -> b.retryAfter(p.getText());
          default -> {
            if (value.isStructStart()) {
              p.skipChildren(); // a field from a later version
            }
          }
        }
      }
      return b.build();
    }

    private Map<String, String> readStrings() throws IOException {
      expect(JsonToken.START_OBJECT);
      Map<String, String> m = new HashMap<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String k = p.currentName();
        p.nextToken();
        m.put(k, p.getText());
      }
      return m;
    }

    private Map<String, Double> readDoubles() throws IOException {
      expect(JsonToken.START_OBJECT);
      Map<String, Double> m = new HashMap<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String k = p.currentName();
        // Jackson writes NaN and infinities as strings; read them back the same way.
        JsonToken v = p.nextToken();
        m.put(k, v == JsonToken.VALUE_STRING ? Double.parseDouble(p.getText()) : p.getDoubleValue());
      }
      return m;
    }

    private ConnectionPhases readPhases() throws IOException {
      expect(JsonToken.START_OBJECT);
      long[] offsets = new long[PHASES.length];
      Arrays.fill(offsets, -1);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        int phase = indexOf(PHASE_NAMES, p.currentName(), "connection phase");
        p.nextToken();
        offsets[phase] = p.getLongValue();
      }
      return ConnectionPhases.of(offsets);
    }

    private ChunkTimeline readChunks() throws IOException {
      expect(JsonToken.START_OBJECT);
      int nOffsets = -1;
      int nKinds = -1;
      int nTokens = -1;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "offsets_ns" -> nOffsets = readOffsets();
          case "kinds" -> nKinds = readKinds();
          case "tokens" -> nTokens = readTokens();
          default -> p.skipChildren();
        }
      }
      if (nOffsets != nKinds || nOffsets != nTokens) {
        throw new IllegalArgumentException("chunks need offsets_ns, kinds and tokens of equal length, got "
            + nOffsets + ", " + nKinds + " and " + nTokens + " (-1: missing)");
      }
      ChunkTimeline.Builder t = ChunkTimeline.builder();
      for (int i = 0; i < nOffsets; i++) {
        t.add(offsets[i], KINDS[kinds[i]], tokens[i]);
      }
      return t.build();
    }

    private int readOffsets() throws IOException {
      expect(JsonToken.START_ARRAY);
      int n = 0;
      while (p.nextToken() != JsonToken.END_ARRAY) {
        if (n == offsets.length) {
          offsets = Arrays.copyOf(offsets, n * 2);
        }
        offsets[n++] = p.getLongValue();
      }
      return n;
    }

    private int readKinds() throws IOException {
      expect(JsonToken.START_ARRAY);
      int n = 0;
      while (p.nextToken() != JsonToken.END_ARRAY) {
        if (n == kinds.length) {
          kinds = Arrays.copyOf(kinds, n * 2);
        }
        kinds[n++] = (byte) indexOf(KIND_NAMES, p.getText(), "chunk kind");
      }
      return n;
    }

    private int readTokens() throws IOException {
      expect(JsonToken.START_ARRAY);
      int n = 0;
      while (p.nextToken() != JsonToken.END_ARRAY) {
        if (n == tokens.length) {
          tokens = Arrays.copyOf(tokens, n * 2);
        }
        tokens[n++] = p.getIntValue();
      }
      return n;
    }

    private Usage readUsage() throws IOException {
      expect(JsonToken.START_OBJECT);
      Usage.Builder u = Usage.builder();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "prompt_tokens" -> u.promptTokens(p.getIntValue());
          case "completion_tokens" -> u.completionTokens(p.getIntValue());
          case "total_tokens" -> u.totalTokens(p.getIntValue());
          case "reasoning_tokens" -> u.reasoningTokens(p.getIntValue());
          case "cached_prompt_tokens" -> u.cachedPromptTokens(p.getIntValue());
          default -> p.skipChildren();
        }
      }
      return u.build();
    }

    private Failure readFailure() throws IOException {
      expect(JsonToken.START_OBJECT);
      ErrorCategory category = null;
      int status = 0;
      TimeoutPhase timeoutPhase = TimeoutPhase.NONE;
      String message = "";
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "category" -> category = CATEGORIES[indexOf(CATEGORY_NAMES, p.getText(), "error category")];
          case "http_status" -> status = p.getIntValue();
          case "timeout_phase" ->
              timeoutPhase = TIMEOUT_PHASES[indexOf(TIMEOUT_PHASE_NAMES, p.getText(), "timeout phase")];
          case "message" -> message = p.getText();
          default -> p.skipChildren();
        }
      }
      if (category == null) {
        throw new IllegalArgumentException("failure without a category");
      }
      return new Failure(category, status, timeoutPhase, message);
    }

    private void expect(JsonToken token) {
      if (p.currentToken() != token) {
        throw new IllegalArgumentException("field " + currentName() + " must be " + describe(token) + ", found "
            + p.currentToken());
      }
    }

    private String currentName() {
      try {
        return p.currentName();
      } catch (IOException e) {
        return "?";
      }
    }
  }

  /** The first field of a records journal's header and end lines, which are not records. */
  static final String JOURNAL_HEADER_FIELD = "infermark_journal";
  static final String JOURNAL_END_FIELD = "infermark_journal_end";

  private static boolean isJournalMarker(String field) {
    return field.equals(JOURNAL_HEADER_FIELD) || field.equals(JOURNAL_END_FIELD);
  }

  /**
   * Parses one line holding one record.
   *
   * @throws IllegalArgumentException if the line is not one valid record
   */
  public static RequestRecord parseLine(String line) {
    try (RecordIterator it = new RecordIterator(parser(new java.io.StringReader(line)))) {
      if (!it.hasNext()) {
        throw new IllegalArgumentException("the line holds no record");
      }
      RequestRecord r = it.next();
      if (it.p.nextToken() != null) {
        throw new IllegalArgumentException("the line holds more than one record");
      }
      return r;
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed record line: " + e.getMessage(), e);
    }
  }

  private static String describe(JsonToken token) {
    return token == JsonToken.START_OBJECT ? "an object" : token == JsonToken.START_ARRAY ? "an array" : "" + token;
  }

  private static int indexOf(String[] names, String name, String what) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("unknown " + what + " '" + name + "', expected one of " + Arrays.toString(names));
  }

  private static String[] lowerNames(Enum<?>[] values) {
    String[] names = new String[values.length];
    for (int i = 0; i < values.length; i++) {
      names[i] = values[i].name().toLowerCase(Locale.ROOT);
    }
    return names;
  }
}
