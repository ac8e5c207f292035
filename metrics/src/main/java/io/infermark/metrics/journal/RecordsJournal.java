package io.infermark.metrics.journal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.report.RecordsJsonl;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a run's records to disk as they complete, so that nothing measured is lost when the run is
 * interrupted, the process is killed or the machine is evicted: a {@link RunListener} to install on
 * a {@link io.infermark.core.Benchmark} (the CLI installs one for every run).
 *
 * <pre>{@code
 * try (RecordsJournal journal = RecordsJournal.open(Path.of("run.records.jsonl"))) {
 *   RunResult result = benchmark.listener(journal).run();
 * }
 * // later, or after a crash: Journal.read(Path.of("run.records.jsonl")).toRunResult(load)
 * }</pre>
 *
 * <p><b>The file</b> is created (or emptied) by {@link #open}, before the first request. It is JSON
 * Lines: a header line (the run's start, target, load and parameters, and any {@linkplain Builder#context
 * context} the host adds), then one line per completed record in the order they completed, in
 * {@link RecordsJsonl}'s format, then an end line when the run ends (its duration, client health and
 * {@linkplain io.infermark.core.Interruption interruption}). Scheduled requests that were never sent
 * are not written one by one: the end line counts them and lists their indices as ranges.
 * {@link RecordsJsonl#read(Path)} reads a journal as its records; {@link Journal#read(Path)} reads all
 * of it and rebuilds the run.
 *
 * <p><b>Durability.</b> Lines are buffered in memory and written to the file at least once a second
 * (by a daemon thread, {@code infermark-journal}) and at the run's end, when the file is also forced to
 * the device: a process that dies loses at most the last second, and its last line may be cut in the
 * middle, which {@link Journal#read} skips and counts. If the buffer reaches {@value #MAX_PENDING_BYTES}
 * bytes before the next flush (a disk slower than the run), the record that fills it is written at
 * once on the run's thread, so memory stays bounded.
 *
 * <p><b>Failures</b> never stop the run: if the file cannot be written (a full disk, a device
 * removed), the journal logs the cause once, keeps the lines it could write (the file is cut back to
 * its last whole line) and drops the rest; {@link #failure()} says what happened and how many records
 * were not written. Thread-safe.
 */
public final class RecordsJournal implements RunListener, AutoCloseable {

  /** The file name suffix the CLI gives journals. */
  public static final String SUFFIX = ".records.jsonl";
  /** The journal format's version, written in its header. */
  public static final int FORMAT_VERSION = 1;
  /** Buffered bytes that make a record be written at once instead of at the next flush. */
  static final int MAX_PENDING_BYTES = 4 << 20;

  private static final Logger LOG = LoggerFactory.getLogger(RecordsJournal.class);
  private static final JsonFactory JSON = JsonFactory.builder().build();

  private final Path file;
  /**
   * Stream I/O, not a FileChannel: a FileChannel closes itself when the writing thread is interrupted (a run
   * being cancelled, the flusher being stopped), which would cut a line and lose every later record.
   */
  private final RandomAccessFile out;
  private final Map<String, Object> context;
  private final ScheduledExecutorService flusher;
  /** Guards the buffer and the counters. */
  private final Object lock = new Object();
  /** Serialises writes to the file, so lines reach it in the order they were buffered. */
  private final Object writeLock = new Object();
  private StringBuilder pending = new StringBuilder(8192);
  private final BitSet notSent = new BitSet();
  private long notSentOutsideIndexRange;
  private long written;
  private long dropped;
  private long plannedRequests = -1;
  private long goodBytes;
  private String failure;
  private boolean ended;
  private boolean closed;

  private RecordsJournal(Builder b) throws IOException {
    this.file = b.file;
    this.context = Map.copyOf(b.context);
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    this.out = new RandomAccessFile(file.toFile(), "rw");
    try {
      if (out.length() > 0) { // a device (/dev/full, a pipe) has no length to cut
        out.setLength(0);
      }
    } catch (IOException e) {
      out.close();
      throw e;
    }
    long interval = b.flushInterval.toNanos();
    this.flusher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "infermark-journal");
      t.setDaemon(true);
      return t;
    });
    flusher.scheduleWithFixedDelay(this::flushQuietly, interval, interval, TimeUnit.NANOSECONDS);
  }

  /**
   * Creates (or empties) the journal file, and its directory if needed, and returns a journal that
   * flushes every second.
   *
   * @throws UncheckedIOException if the file cannot be created
   */
  public static RecordsJournal open(Path file) {
    return builder(file).open();
  }

  /** A builder, to add context to the header or change the flush interval. */
  public static Builder builder(Path file) {
    return new Builder(file);
  }

  /** Configures a {@link RecordsJournal}. */
  public static final class Builder {
    private final Path file;
    private final Map<String, Object> context = new LinkedHashMap<>();
    private Duration flushInterval = Duration.ofSeconds(1);

    private Builder(Path file) {
      this.file = Objects.requireNonNull(file, "file");
    }

    /**
     * Adds a value to the header's {@code context} object: what the host needs to rebuild its own
     * outputs from the journal alone (the CLI writes its command-line settings there). Values are
     * strings, numbers, booleans, lists and maps of them. Never put secrets here.
     */
    public Builder context(String key, Object value) {
      JournalFormat.requireWritable(Objects.requireNonNull(value, "value"));
      context.put(Objects.requireNonNull(key, "key"), value);
      return this;
    }

    /** How often buffered lines are written to the file (default and longest: one second). */
    public Builder flushInterval(Duration interval) {
      if (interval.isNegative() || interval.isZero() || interval.compareTo(Duration.ofSeconds(1)) > 0) {
        throw new IllegalArgumentException("flushInterval must be > 0 and at most 1 s, was " + interval);
      }
      this.flushInterval = interval;
      return this;
    }

    /**
     * Creates (or empties) the file and returns the journal.
     *
     * @throws UncheckedIOException if the file cannot be created
     */
    public RecordsJournal open() {
      try {
        return new RecordsJournal(this);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the journal " + file + ": " + describe(e), e);
      }
    }
  }

  /**
   * Writes the whole journal of a finished run at once (header, records in index order, end line):
   * to replace a journal a full disk cut short once space is back, or to keep a run made without one.
   * It reads back as the live journal would have.
   *
   * @throws IllegalStateException if the run did not retain its records
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void write(RunResult result, Map<String, Object> context, Path file) {
    List<RequestRecord> records = result.records();
    context.values().forEach(JournalFormat::requireWritable);
    RunStart start = new RunStart(result.startedAt(), result.originNanos(), io.infermark.core.time.Clock.system(),
        result.target(), result.load(), result.params(), java.util.OptionalLong.of(records.size()));
    BitSet notSent = new BitSet();
    long outside = 0;
    try (java.io.Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      out.write(line(g -> JournalFormat.writeHeader(g, start, context)));
      for (RequestRecord r : records) {
        if (r.failure().map(f -> f.category() == ErrorCategory.NOT_SENT).orElse(false)) {
          if (r.index() >= 0 && r.index() < Integer.MAX_VALUE) {
            notSent.set((int) r.index());
          } else {
            outside++;
          }
        } else {
          RecordsJsonl.writeLine(r, out);
        }
      }
      long count = notSent.cardinality() + outside;
      out.write(line(g -> JournalFormat.writeEnd(g, result, notSent, count)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the journal " + file + ": " + describe(e), e);
    }
  }

  /** The journal's file. */
  public Path file() {
    return file;
  }

  /** Records written to the file so far (those still buffered not included). */
  public long recordsWritten() {
    synchronized (lock) {
      return written;
    }
  }

  /** Why the file could not be written, with how many records were lost; empty while all is well. */
  public Optional<String> failure() {
    synchronized (lock) {
      return failure == null ? Optional.empty()
          : Optional.of(failure + (dropped > 0 ? " (" + dropped + " records not written)" : ""));
    }
  }

  @Override
  public void onRunStarted(RunStart start) {
    String header = line(g -> JournalFormat.writeHeader(g, start, context));
    synchronized (lock) {
      plannedRequests = start.plannedRequests().orElse(-1);
      pending.append(header);
    }
    flushQuietly(); // the header is on disk before the first request ends
  }

  @Override
  public void onRecord(RequestRecord record) {
    if (record.failure().map(f -> f.category() == ErrorCategory.NOT_SENT).orElse(false)) {
      synchronized (lock) {
        if (record.index() >= 0 && record.index() < Integer.MAX_VALUE) {
          notSent.set((int) record.index());
        } else {
          notSentOutsideIndexRange++;
        }
      }
      return;
    }
    StringWriter w = new StringWriter(256);
    RecordsJsonl.writeLine(record, w);
    boolean full;
    synchronized (lock) {
      if (failure != null || ended) {
        dropped++;
        return;
      }
      pending.append(w.getBuffer());
      full = pending.length() >= MAX_PENDING_BYTES;
    }
    if (full) {
      flushQuietly();
    }
  }

  @Override
  public void onRunFinished(RunResult result) {
    long notSentCount;
    String end;
    synchronized (lock) {
      notSentCount = notSent.cardinality() + notSentOutsideIndexRange;
      BitSet ranges = (BitSet) notSent.clone();
      end = line(g -> JournalFormat.writeEnd(g, result, ranges, notSentCount));
      pending.append(end);
      ended = true;
    }
    close();
  }

  /** Writes what is buffered now. */
  public void flush() {
    flushQuietly();
  }

  /**
   * Writes what is buffered, forces the file to the device and closes it; later records are dropped.
   * Called at the run's end; call it yourself when a run ends by an exception. Idempotent.
   */
  @Override
  public void close() {
    flusher.shutdown(); // a flush in progress ends first: this one waits for it on the write lock
    flushQuietly();
    synchronized (writeLock) {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (failure == null) {
          out.getFD().sync();
        }
      } catch (IOException e) {
        fail("cannot force " + file + " to the device: " + describe(e));
      } finally {
        try {
          out.close();
        } catch (IOException e) {
          LOG.debug("closing journal {}: {}", file, e.toString());
        }
      }
    }
  }

  private void flushQuietly() {
    synchronized (writeLock) {
      StringBuilder batch;
      synchronized (lock) {
        if (pending.length() == 0 || failure != null || closed) {
          return;
        }
        batch = pending;
        pending = new StringBuilder(Math.max(8192, batch.length()));
      }
      byte[] bytes = batch.toString().getBytes(StandardCharsets.UTF_8);
      long lines = countRecordLines(batch);
      try {
        out.write(bytes);
        goodBytes += bytes.length;
        synchronized (lock) {
          written += lines;
        }
      } catch (IOException | RuntimeException e) {
        fail("cannot write the journal " + file + ": " + describe(e));
        synchronized (lock) {
          dropped += lines;
        }
        try {
          out.setLength(goodBytes); // no cut line left behind
        } catch (IOException | RuntimeException ignored) {
          // the device is gone or full; a reader skips a cut last line anyway
        }
      }
    }
  }

  /** Lines that hold records: all but a header or end line. */
  private static long countRecordLines(CharSequence text) {
    long n = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        if (!JournalFormat.isMarkerLine(text, start)) {
          n++;
        }
        start = i + 1;
      }
    }
    return n;
  }

  private void fail(String message) {
    synchronized (lock) {
      if (failure != null) {
        return;
      }
      failure = message;
    }
    LOG.error("{}; the run goes on, later records are not journaled", message);
  }

  private interface Writing {
    void write(JsonGenerator g) throws IOException;
  }

  private static String line(Writing writing) {
    StringWriter w = new StringWriter(512);
    try (JsonGenerator g = JSON.createGenerator(w)) {
      writing.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w.append('\n').toString();
  }

  static String describe(Exception e) {
    String m = e.getMessage();
    String kind = e.getClass().getSimpleName();
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
      return fs.getReason();
    }
    return m == null ? kind : m;
  }

  @Override
  public String toString() {
    synchronized (lock) {
      return "RecordsJournal[" + file + ", " + written + " records written"
          + (plannedRequests >= 0 ? " of " + plannedRequests + " planned" : "")
          + (failure != null ? ", FAILED: " + failure : "") + (ended ? ", ended" : "") + "]";
    }
  }
}
