package io.infermark.attribution.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.attribution.tree.XgboostJsonDump.Naming;
import java.util.List;
import org.junit.jupiter.api.Test;

class XgboostJsonDumpTest {

  /** A stump on {@code split}: x < 0.5 (or missing) → 1, else → 2. */
  private static String stump(String split) {
    return "{\"nodeid\": 0, \"split\": \"" + split + "\", \"split_condition\": 0.5, \"yes\": 1, \"no\": 2,"
        + " \"missing\": 1, \"cover\": 4, \"children\": [{\"nodeid\": 1, \"leaf\": 1, \"cover\": 3},"
        + " {\"nodeid\": 2, \"leaf\": 2, \"cover\": 1}]}";
  }

  @Test
  void indexNamingReadsF0AsColumnZeroEvenWhenAnotherColumnIsNamedF0() {
    TreeEnsemble model = XgboostJsonDump.parse(List.of(stump("f0")), List.of("a", "f0"), 0, Naming.INDEXES);

    // Column 0 ("a") decides: 0 < 0.5 → 1 whatever column 1 holds; 1 ≥ 0.5 → 2.
    assertThat(model.predict(new double[] {0, 1})).isEqualTo(1);
    assertThat(model.predict(new double[] {1, 0})).isEqualTo(2);
  }

  @Test
  void namesNamingReadsSplitsAsTheGivenNames() {
    TreeEnsemble model = XgboostJsonDump.parse(List.of(stump("f0")), List.of("a", "f0"), 0, Naming.NAMES);

    // Now "f0" is the user's column 1.
    assertThat(model.predict(new double[] {0, 1})).isEqualTo(2);
    assertThat(model.predict(new double[] {1, 0})).isEqualTo(1);
  }

  @Test
  void withoutANamingModeANameThatIsAnotherColumnsDefaultNameIsRejected() {
    assertThatThrownBy(() -> XgboostJsonDump.parse(List.of(stump("f0")), List.of("a", "f0"), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("feature name 'f0' is column 1")
        .hasMessageContaining("Naming.INDEXES");
    assertThatThrownBy(() -> XgboostJsonDump.parse(List.of(stump("a")), List.of("f1", "a"), 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'f1' is column 0");
  }

  @Test
  void withoutANamingModeUnambiguousNamesReadEitherForm() {
    // "f0" at column 0 and "f9" (no column 9) cannot be confused with another column.
    List<String> names = List.of("f0", "b", "f9");
    assertThat(XgboostJsonDump.parse(List.of(stump("f0")), names, 0).predict(new double[] {1, 0, 0})).isEqualTo(2);
    assertThat(XgboostJsonDump.parse(List.of(stump("f1")), names, 0).predict(new double[] {0, 1, 0})).isEqualTo(2);
    assertThat(XgboostJsonDump.parse(List.of(stump("b")), names, 0).predict(new double[] {0, 1, 0})).isEqualTo(2);
    assertThat(XgboostJsonDump.parse(List.of(stump("f9")), names, 0).predict(new double[] {0, 0, 1})).isEqualTo(2);
    assertThat(XgboostJsonDump.parse(List.of(stump("f2")), names, 0).predict(new double[] {0, 0, 1})).isEqualTo(2);
  }

  @Test
  void leafValuesAndCoversAreReadAsXgboostsFloats() {
    String tree = "{\"nodeid\": 0, \"split\": \"f0\", \"split_condition\": 0.5, \"yes\": 1, \"no\": 2,"
        + " \"missing\": 1, \"cover\": 0.3, \"children\": [{\"nodeid\": 1, \"leaf\": 0.1, \"cover\": 0.1},"
        + " {\"nodeid\": 2, \"leaf\": -0.7, \"cover\": 0.2}]}";

    TreeEnsemble model = XgboostJsonDump.parse(List.of(tree), List.of("a"), 0, Naming.INDEXES);

    assertThat(model.predict(new double[] {0})).isEqualTo((double) 0.1f).isNotEqualTo(0.1);
    assertThat(model.predict(new double[] {1})).isEqualTo((double) -0.7f);
    // Expected value: cover-weighted leaves over the parent's cover, with every cover a float.
    double expected = ((double) 0.1f * (double) 0.1f + (double) 0.2f * (double) -0.7f) / (double) 0.3f;
    assertThat(model.expectedValue()).isEqualTo(expected);
  }

  @Test
  void eachNamingModeRejectsTheOtherModesNames() {
    assertThatThrownBy(() -> XgboostJsonDump.parse(List.of(stump("a")), List.of("a", "b"), 0, Naming.INDEXES))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("splits on 'a'").hasMessageContaining("f0 … f1 (Naming.INDEXES");
    assertThatThrownBy(() -> XgboostJsonDump.parse(List.of(stump("f2")), List.of("a", "b"), 0, Naming.INDEXES))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("splits on 'f2'");
    assertThatThrownBy(() -> XgboostJsonDump.parse(List.of(stump("f01")), List.of("a", "b"), 0, Naming.INDEXES))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("splits on 'f01'");
    assertThatThrownBy(() -> XgboostJsonDump.parse(List.of(stump("f0")), List.of("a", "b"), 0, Naming.NAMES))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("splits on 'f0'").hasMessageContaining("[a, b] (Naming.NAMES)");
  }
}
