package io.infermark.attribution.surrogate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.LatencyMetric;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class XgboostSurrogateTest {

  /**
   * Requests whose E2E is 50 ms + 0.1 ms per input token + 2 ms per output token, plus 1 ms noise;
   * the tag "level" varies but does nothing.
   */
  static List<RequestRecord> records(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<RequestRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int input = random.nextInt(4) == 0 ? 4000 + random.nextInt(4000) : 100 + random.nextInt(400);
      int output = 10 + random.nextInt(20);
      double e2e = 50 + 0.1 * input + 2 * output + random.nextGaussian();
      out.add(FeatureTableTest.record(i, i * 50.0, e2e, Map.of(WorkloadTags.INPUT_TOKENS_REQUESTED,
          Integer.toString(input), "level", Integer.toString(random.nextInt(3)))).toBuilder()
          .usage(io.infermark.core.capture.Usage.of(input, output)).build());
    }
    return out;
  }

  @Test
  void fitsExplainsAndReportsItsOwnChecks() {
    FeatureTable table = FeatureTable.builder().tagColumns("level").build(records(400, 1));

    Surrogate surrogate = XgboostSurrogate.builder().build().fit(table, SurrogateTarget.e2e());
    SurrogateExplanation why = surrogate.explain();

    assertThat(why.ranking().get(0)).isEqualTo(FeatureTable.INPUT_TOKENS);
    assertThat(why.ranking().get(1)).isEqualTo(FeatureTable.OUTPUT_TOKENS);
    // Input tokens span 100–8000: roughly ±300 ms around the mean; the noise tag next to nothing.
    assertThat(why.importance().get(0).meanAbsShap()).isBetween(150.0, 450.0);
    assertThat(why.importance().stream().filter(i -> i.factor().equals("level")).findFirst().orElseThrow()
        .meanAbsShap()).isLessThan(3.0);
    assertThat(why.fit().rSquared().getAsDouble()).isGreaterThan(0.95);
    assertThat(why.fit().testRows()).isEqualTo(80);
    assertThat(why.fit().trainRows()).isEqualTo(320);
    assertThat(why.maxEfficiencyGap()).isLessThan(1e-9);
    assertThat(surrogate.conversionGap()).isLessThan(1e-3);
    assertThat(why.requestCount()).isEqualTo(400);
    assertThat(why.unit()).isEqualTo("ms");
    // Row order is the table's: request 0 first; base + attributions = prediction.
    assertThat(why.requestIndex(0)).isZero();
    double sum = why.baseValue();
    for (double a : why.attributions(0)) {
      sum += a;
    }
    assertThat(sum).isCloseTo(why.prediction(0), org.assertj.core.api.Assertions.within(1e-9));
    assertThat(why.toString()).startsWith("SurrogateExplanation[e2e_ms, 400 requests, mean |SHAP|: input_tokens ");
    assertThat(why.importance().get(0).toString()).matches("input_tokens \\d+\\.\\d{3} ms");
    assertThat(why.importance().get(0).unit()).isEqualTo("ms");
    assertThat(surrogate.toString()).contains("xgboost 100 trees, depth 4");
  }

  @Test
  void interventionalExplanationAddsUpToTheBackgroundMeanAndRanksTheSameDriver() {
    FeatureTable table = FeatureTable.builder().tagColumns("level").build(records(300, 5));
    Surrogate surrogate = XgboostSurrogate.builder().trees(30).build().fit(table, SurrogateTarget.e2e());

    SurrogateExplanation why = surrogate.explainInterventional(50, 7);

    assertThat(why.ranking().get(0)).isEqualTo(FeatureTable.INPUT_TOKENS);
    assertThat(why.maxEfficiencyGap()).isLessThan(1e-9);
    // The base is the mean prediction over the 50 background rows, which differs from the cover-weighted one.
    assertThat(why.baseValue()).isNotEqualTo(surrogate.explain().baseValue());
    assertThat(surrogate.explainInterventional(50, 7).toCsv()).isEqualTo(why.toCsv());
    // A background of every row: the base is the mean prediction over all of them.
    SurrogateExplanation all = surrogate.explainInterventional(10_000, 1);
    double mean = 0;
    for (int row = 0; row < all.requestCount(); row++) {
      mean += all.prediction(row) / all.requestCount();
    }
    assertThat(all.baseValue()).isCloseTo(mean, org.assertj.core.api.Assertions.within(1e-9));
    assertThatThrownBy(() -> surrogate.explainInterventional(0, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backgroundRows must be positive, was 0");
  }

  @Test
  void csvHoldsEveryRequestsAttributionsAtFullPrecision(@TempDir Path dir) throws Exception {
    FeatureTable table = FeatureTable.builder().tagColumns("level").build(records(100, 3));
    SurrogateExplanation why = XgboostSurrogate.builder().trees(20).build().fit(table, SurrogateTarget.e2e())
        .explain();

    Path file = dir.resolve("shap.csv");
    why.writeCsv(file);
    List<String> lines = Files.readAllLines(file);

    assertThat(lines).hasSize(101);
    assertThat(lines.get(0)).isEqualTo("request_index,prediction,base," + String.join(",", why.factors()));
    for (int row = 0; row < why.requestCount(); row++) {
      String[] cells = lines.get(row + 1).split(",");
      assertThat(Long.parseLong(cells[0])).isEqualTo(why.requestIndex(row));
      assertThat(Double.parseDouble(cells[1])).isEqualTo(why.prediction(row));
      assertThat(Double.parseDouble(cells[2])).isEqualTo(why.baseValue());
      double[] attributions = why.attributions(row);
      for (int f = 0; f < attributions.length; f++) {
        assertThat(Double.parseDouble(cells[3 + f])).isEqualTo(attributions[f]);
      }
    }
  }

  @Test
  void aColumnNamedLikeXgboostsDefaultNameDoesNotTakeOverThatColumnsSplits() {
    // xgboost's dump calls column 0 (input_tokens) "f0"; the user's noise column "f0" is column 5 or so.
    SplittableRandom noise = new SplittableRandom(9);
    FeatureTable table = FeatureTable.builder().extraColumns(List.of("f0"), r -> new double[] {noise.nextInt(3)})
        .build(records(200, 8));
    assertThat(table.columns().indexOf("f0")).isGreaterThan(0);

    Surrogate surrogate = XgboostSurrogate.builder().trees(30).build().fit(table, SurrogateTarget.e2e());
    SurrogateExplanation why = surrogate.explain();

    assertThat(surrogate.conversionGap()).isLessThan(1e-3);
    assertThat(why.ranking().get(0)).isEqualTo(FeatureTable.INPUT_TOKENS);
    assertThat(why.importance().stream().filter(i -> i.factor().equals("f0")).findFirst().orElseThrow()
        .meanAbsShap()).isLessThan(3.0);
  }

  @Test
  void sameTableAndSeedGiveTheSameModel() {
    FeatureTable table = FeatureTable.builder().build(records(200, 2));
    XgboostSurrogate trainer = XgboostSurrogate.builder().trees(30).seed(5).build();

    SurrogateExplanation a = trainer.fit(table, SurrogateTarget.e2e()).explain();
    SurrogateExplanation b = trainer.fit(table, SurrogateTarget.e2e()).explain();

    assertThat(b.values().predictions()).isEqualTo(a.values().predictions());
    assertThat(b.fit().rSquared()).isEqualTo(a.fit().rSquared());
  }

  @Test
  void tailTargetIsAClassifierExplainedInLogOdds() {
    FeatureTable table = FeatureTable.builder().build(records(400, 3));

    Surrogate surrogate = XgboostSurrogate.builder().trees(50).build()
        .fit(table, SurrogateTarget.tail(LatencyMetric.E2E, 0.8));
    SurrogateExplanation why = surrogate.explain();

    assertThat(why.unit()).isEqualTo("log-odds");
    assertThat(why.importance().get(0).toString()).endsWith(" log-odds");
    // The P80 of the 320 training rows' E2E. Three requests in four have 100–500 input tokens, the rest
    // 4000–8000, so P80 is about the long quarter's 20th percentile: 4800 tokens, 50 + 480 + 2 × ~20 ms.
    assertThat(surrogate.tailThresholdMillis().getAsDouble()).isBetween(520.0, 680.0);
    assertThat(surrogate.toString()).contains("e2e_ms_above_p80 (above ");
    assertThat(XgboostSurrogate.builder().trees(5).build().fit(table, SurrogateTarget.e2e()).tailThresholdMillis())
        .isEmpty();
    assertThat(why.ranking().get(0)).isEqualTo(FeatureTable.INPUT_TOKENS);
    assertThat(why.fit().auc().getAsDouble()).isGreaterThan(0.95);
    assertThat(why.fit().logLoss().getAsDouble()).isLessThan(0.3);
    assertThat(why.maxEfficiencyGap()).isLessThan(1e-9);
  }

  @Test
  void rejectsTooFewRowsAndBadParameters() {
    FeatureTable small = FeatureTable.builder().build(records(10, 4));
    assertThatThrownBy(() -> XgboostSurrogate.builder().build().fit(small, SurrogateTarget.e2e()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 20");
    assertThatThrownBy(() -> XgboostSurrogate.builder().eta(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eta");
    assertThatThrownBy(() -> XgboostSurrogate.builder().heldOutFraction(1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heldOutFraction");
    assertThatThrownBy(() -> XgboostSurrogate.builder().maxDepth(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxDepth");
  }

  @Test
  void missingXgboostIsAClearIllegalStateNamingTheCoordinates() {
    ClassLoader without = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader());
    assertThatThrownBy(() -> XgboostSurrogate.requireXgboost(without))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("ml.dmlc:xgboost4j_2.12");
    assertThat(XgboostSurrogate.isAvailable()).isTrue();
  }

  @Test
  void withoutXgboostOnTheClasspathTheModuleStillLoadsAndFitFailsClearly() throws Exception {
    // The module's classes, core, metrics, Jackson and SLF4J, but not xgboost4j.
    URL[] urls = Stream.of(XgboostSurrogate.class, RequestRecord.class, LatencyMetric.class, ObjectMapper.class,
        JsonFactory.class, JsonAutoDetect.class, LoggerFactory.class)
        .map(c -> c.getProtectionDomain().getCodeSource().getLocation()).distinct().toArray(URL[]::new);
    try (URLClassLoader isolated = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
      Class<?> surrogate = isolated.loadClass(XgboostSurrogate.class.getName());
      assertThat(surrogate.getClassLoader()).isSameAs(isolated);
      assertThat((Boolean) surrogate.getMethod("isAvailable").invoke(null)).isFalse();
      Object builder = surrogate.getMethod("builder").invoke(null);
      Object trainer = builder.getClass().getMethod("build").invoke(builder);
      Class<?> table = isolated.loadClass(FeatureTable.class.getName());
      Class<?> target = isolated.loadClass(SurrogateTarget.class.getName());
      assertThatThrownBy(() -> {
        try {
          trainer.getClass().getMethod("fit", table, target).invoke(trainer, null, null);
        } catch (InvocationTargetException e) {
          throw e.getCause();
        }
      }).isInstanceOf(IllegalStateException.class).hasMessageContaining("add the Maven dependency ml.dmlc:xgboost4j");
      // The tree package works without xgboost, its JSON dump reader included.
      Class<?> dump = isolated.loadClass("io.infermark.attribution.tree.XgboostJsonDump");
      Object model = dump.getMethod("parse", List.class, List.class, double.class).invoke(null,
          List.of("{\"nodeid\": 0, \"leaf\": 1.5, \"cover\": 3}"), List.of("a"), 2.0);
      assertThat(model.getClass().getMethod("predict", double[].class).invoke(model, new double[] {0})).isEqualTo(3.5);
    }
  }

  @Test
  void onlyTheTrainerReferencesXgboostClasses() throws IOException, URISyntaxException {
    Path classes = Path.of(XgboostSurrogate.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> referencing = new ArrayList<>();
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
        String bytes = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
        if (bytes.contains("ml/dmlc/")) {
          referencing.add(classes.relativize(p).toString());
        }
      }
    }
    assertThat(referencing).containsExactly("io/infermark/attribution/surrogate/XgboostTrainer.class");
  }
}
