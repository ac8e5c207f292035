package io.infermark.core.stream;

import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class JsonScannerTest {

  private static final byte[] A = SseDecoder.ascii("a");
  private static final byte[] B = SseDecoder.ascii("b");
  private static final byte[] CONTENT = SseDecoder.ascii("content");

  private static JsonScanner scanner(String json) {
    JsonScanner s = new JsonScanner();
    byte[] bytes = utf8("xx" + json + "yy"); // a range inside a larger buffer
    s.reset(bytes, 2, bytes.length - 4);
    return s;
  }

  /** Skips the whole document, validating it. */
  private static void validate(String json) {
    JsonScanner s = scanner(json);
    s.skipValue();
    s.endDocument();
  }

  @Test
  void walksObjectsAndFindsKeysAfterSkippingNestedValues() {
    JsonScanner s = scanner("{ \"x\": {\"a\": [1, {\"b\": \"}]\\\"{\"}], \"c\": null}, \"a\" :\n\t\"found\", \"b\": true }");
    List<String> seen = new ArrayList<>();
    s.beginObject();
    while (s.nextField()) {
      if (s.fieldIs(A)) {
        s.readString();
        seen.add("a=" + s.stringValue());
      } else if (s.fieldIs(B)) {
        seen.add("b=" + s.readBoolean());
      } else {
        s.skipValue();
      }
    }
    s.endDocument();
    assertThat(seen).containsExactly("a=found", "b=true");
  }

  @Test
  void walksArraysElementByElement() {
    JsonScanner s = scanner("[ 1, -2 , 3e2, [], {} ]");
    List<Long> values = new ArrayList<>();
    s.beginArray();
    while (s.nextElement()) {
      if (s.peek() == JsonScanner.NUMBER) {
        values.add(s.readLong());
      } else {
        s.skipValue();
      }
    }
    s.endDocument();
    assertThat(values).containsExactly(1L, -2L, 300L);
  }

  @Test
  void emptyContainersHaveNoMembers() {
    JsonScanner s = scanner("{\"a\":{},\"b\":[]}");
    s.beginObject();
    assertThat(s.nextField()).isTrue();
    s.beginObject();
    assertThat(s.nextField()).isFalse();
    assertThat(s.nextField()).isTrue();
    s.beginArray();
    assertThat(s.nextElement()).isFalse();
    assertThat(s.nextField()).isFalse();
    assertThat(s.atEnd()).isTrue();
  }

  @Test
  void decodesEveryEscapeIncludingSurrogatePairs() {
    JsonScanner s = scanner("\"q\\\"b\\\\s\\/f\\bb\\ff\\nn\\rr\\tt \\u00e9\\u4e2d \\ud83d\\ude00 raw é😀\"");
    s.readString();
    assertThat(s.stringEscaped()).isTrue();
    assertThat(s.stringValue()).isEqualTo("q\"b\\s/f\bb\ff\nn\rr\tt é中 😀 raw é😀");
  }

  @Test
  void stringWithoutEscapesIsDecodedAsUtf8() {
    JsonScanner s = scanner("\"известни\"");
    s.readString();
    assertThat(s.stringEscaped()).isFalse();
    assertThat(s.stringValue()).isEqualTo("известни");
  }

  @Test
  void invalidUtf8InsideAStringBecomesReplacementCharacters() {
    byte[] bytes = {'"', 'a', (byte) 0xC3, '"'};
    JsonScanner s = new JsonScanner();
    s.reset(bytes, 0, bytes.length);
    s.readString();
    assertThat(s.stringValue()).isEqualTo("a\uFFFD");
  }

  @Test
  void escapedKeysAndStringsCompareByTheirDecodedValue() {
    JsonScanner s = scanner("{\"\\u0063ontent\":\"\\u0061\"}");
    s.beginObject();
    s.nextField();
    assertThat(s.fieldIs(CONTENT)).isTrue();
    assertThat(s.fieldIs(A)).isFalse();
    s.readString();
    assertThat(s.stringIs(A)).isTrue();
    assertThat(s.stringIs(B)).isFalse();
    assertThat(s.nextField()).isFalse();
  }

  @Test
  void entersOptionalContainersAndSkipsWhateverElseStandsThere() {
    JsonScanner s = scanner("[{\"a\":1}, null, \"x\", [2], {}, [], 3]");
    List<String> seen = new ArrayList<>();
    s.beginArray();
    while (s.nextElement()) {
      if (s.peek() == JsonScanner.ARRAY) {
        boolean entered = s.enterArray();
        int n = 0;
        while (s.nextElement()) {
          s.skipValue();
          n++;
        }
        seen.add("array " + entered + " " + n);
      } else if (s.enterObject()) {
        int n = 0;
        while (s.nextField()) {
          s.skipValue();
          n++;
        }
        seen.add("object " + n);
      } else {
        seen.add("skipped");
      }
    }
    s.endDocument();
    assertThat(seen).containsExactly("object 1", "skipped", "skipped", "array true 1", "object 0", "array true 0",
        "skipped");
    JsonScanner a = scanner("[{}, 1]");
    a.beginArray();
    a.nextElement();
    assertThat(a.enterArray()).isFalse();
    a.nextElement();
    assertThat(a.enterArray()).isFalse();
    assertThat(a.nextElement()).isFalse();
    a.endDocument();
  }

  @Test
  void enteringAnOptionalContainerValidatesWhatItSkips() {
    assertThatThrownBy(() -> scanner("{\"a\" 1}").enterArray())
        .hasMessage("expected ':' after a field name at offset 5");
    assertThatThrownBy(() -> scanner("[1,]").enterObject())
        .hasMessage("unexpected ']', expected a value at offset 3");
  }

  @Test
  void readNonNullConsumesAnyValueAndSaysWhetherItWasNull() {
    JsonScanner s = scanner("[null, false, 0, \"\", {\"a\":null}, []]");
    List<Boolean> present = new ArrayList<>();
    s.beginArray();
    while (s.nextElement()) {
      present.add(s.readNonNull());
    }
    s.endDocument();
    assertThat(present).containsExactly(false, true, true, true, true, true);
    assertThatThrownBy(() -> scanner("nul").readNonNull()).hasMessage("invalid literal, expected null at offset 0");
  }

  @Test
  void testsStringsForNullAndEmptiness() {
    JsonScanner s = scanner("[null, \"\", \"x\", 5, {\"k\": 1}]");
    List<Boolean> nonEmpty = new ArrayList<>();
    s.beginArray();
    while (s.nextElement()) {
      nonEmpty.add(s.readNonEmptyString());
    }
    assertThat(nonEmpty).containsExactly(false, false, true, false, false);
    JsonScanner n = scanner("[null, 1]");
    n.beginArray();
    n.nextElement();
    assertThat(n.skipNull()).isTrue();
    n.nextElement();
    assertThat(n.skipNull()).isFalse();
    assertThat(n.readLong()).isEqualTo(1);
  }

  @ParameterizedTest
  @CsvSource({
      "0, 0", "-0, 0", "42, 42", "-17, -17", "1.5, 1.5", "-1.5e3, -1500", "1E-2, 0.01", "2.5E+2, 250",
      "0.028, 0.028", "209.562, 209.562", "63.611208294901566, 63.611208294901566",
      "35714.28571428571, 35714.28571428571", "1e400, Infinity", "-1e-400, -0.0",
      "123456789012345678901234567890, 1.2345678901234568E29", "4883583458, 4883583458"})
  void readsNumbersAsDoubles(String json, double expected) {
    assertThat(scanner(json).readDouble()).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({
      "0, 0", "-42, -42", "9223372036854775807, 9223372036854775807", "12.9, 12", "-3e2, -300",
      "99999999999999999999, 9223372036854775807"})
  void readsNumbersAsLongs(String json, long expected) {
    assertThat(scanner(json).readLong()).isEqualTo(expected);
  }

  @Test
  void doublesMatchTheJdkParserForRandomInputs() {
    Random random = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      String text;
      switch (i % 3) {
        case 0:
          text = Double.toString(random.nextDouble() * Math.pow(10, random.nextInt(30) - 15));
          break;
        case 1:
          text = (random.nextBoolean() ? "-" : "") + random.nextInt(1_000_000) + "." + random.nextInt(1_000_000);
          break;
        default:
          text = random.nextInt(100_000) + "e" + (random.nextInt(50) - 25);
          break;
      }
      assertThat(scanner(text).readDouble()).as(text).isEqualTo(Double.parseDouble(text));
    }
  }

  @Test
  void nestingUpToTheLimitIsAccepted() {
    int depth = JsonScanner.MAX_DEPTH;
    assertThatCode(() -> validate("[".repeat(depth) + "]".repeat(depth))).doesNotThrowAnyException();
  }

  @Test
  void nestingBeyondTheLimitIsRejected() {
    int depth = JsonScanner.MAX_DEPTH + 1;
    assertThatThrownBy(() -> validate("[".repeat(depth) + "]".repeat(depth)))
        .isInstanceOf(JsonScanner.MalformedJsonException.class)
        .hasMessageContaining("nesting deeper than 256");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", "   ", "{", "}", "[1}", "{\"a\":1]", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{\"a\":1,}", "[1,]", "[,1]",
      "{,}", "{a:1}", "{'a':1}", "\"unterminated", "\"bad \\x escape\"", "\"bad \\u12G4\"", "\"\\u12\"",
      "\"ctrl \u0001 char\"", "\"tab\tinside\"", "01", "1.", "-", ".5", "+1", "1e", "1e+", "--1", "tru", "nul",
      "falsey", "{\"a\":1}}", "[1] 2", "{\"a\":}", "NaN", "Infinity"})
  void malformedJsonIsRejectedWithAClearMessage(String json) {
    assertThatThrownBy(() -> validate(json))
        .isInstanceOf(JsonScanner.MalformedJsonException.class)
        .hasMessageMatching(".*(expected|unexpected|unterminated|invalid|control character|after the end).* at offset \\d+");
  }

  @Test
  void errorMessagesSayWhatWasExpectedAndWhere() {
    assertThatThrownBy(() -> validate("{\"a\" 1}"))
        .hasMessage("expected ':' after a field name at offset 5");
    assertThatThrownBy(() -> validate("[1,]"))
        .hasMessage("unexpected ']', expected a value at offset 3");
    assertThatThrownBy(() -> validate("{\"a\":1} x"))
        .hasMessage("unexpected 'x' after the end of the JSON value at offset 8");
  }

  /**
   * The exact message and offset of every kind of error the scanner raises, so that a change to
   * how it checks its input cannot change what a malformed stream's failure says.
   */
  static Stream<Arguments> malformedDocumentsAndTheirMessages() {
    return Stream.of(
        Arguments.of("", "unexpected end of input, expected a value at offset 0"),
        Arguments.of("   ", "unexpected end of input, expected a value at offset 3"),
        Arguments.of("{", "unexpected end of input inside an object at offset 1"),
        Arguments.of("{\"a\":1,", "unexpected end of input inside an object at offset 7"),
        Arguments.of("{\"a\":1,  ", "unexpected end of input inside an object at offset 9"),
        Arguments.of("[1,", "unexpected end of input, expected a value at offset 3"),
        Arguments.of("[1, ", "unexpected end of input, expected a value at offset 4"),
        Arguments.of("}", "unexpected '}', expected a value at offset 0"),
        Arguments.of("[1}", "unexpected '}', expected ',' or ']' in an array at offset 2"),
        Arguments.of("[1 2]", "unexpected '2', expected ',' or ']' in an array at offset 3"),
        Arguments.of("{\"a\":1]", "unexpected ']', expected ',' or '}' in an object at offset 6"),
        Arguments.of("{\"a\":1 \"b\":2}", "unexpected '\"', expected ',' or '}' in an object at offset 7"),
        Arguments.of("{\"a\":1\u0000}", "unexpected byte 0x00, expected ',' or '}' in an object at offset 6"),
        Arguments.of("{\"a\" 1}", "expected ':' after a field name at offset 5"),
        Arguments.of("{\"a\"", "expected ':' after a field name at offset 4"),
        Arguments.of("{\"a\":1 ,  \"b\"", "expected ':' after a field name at offset 13"),
        Arguments.of("{\"a\":1,}", "unexpected '}', expected a field name at offset 7"),
        Arguments.of("{ \"a\":1,\n 2}", "unexpected '2', expected a field name at offset 10"),
        Arguments.of("{,}", "unexpected ',', expected a field name at offset 1"),
        Arguments.of("{'a':1}", "unexpected ''', expected a field name at offset 1"),
        Arguments.of("[1,]", "unexpected ']', expected a value at offset 3"),
        Arguments.of("[1,\t]", "unexpected ']', expected a value at offset 4"),
        Arguments.of("[,1]", "unexpected ',', expected a value at offset 1"),
        Arguments.of("[\u00e9]", "unexpected byte 0xC3, expected a value at offset 1"),
        Arguments.of("{\"a\":}", "unexpected '}', expected a value at offset 5"),
        Arguments.of("\"unterminated", "unterminated string at offset 13"),
        Arguments.of("\"abc\\", "unterminated string at offset 4"),
        Arguments.of("\"bad \\x escape\"", "invalid escape \\x in a string at offset 5"),
        Arguments.of("\"bad \\u12G4\"", "invalid \\u escape in a string at offset 5"),
        Arguments.of("\"\\u12\"", "invalid \\u escape in a string at offset 1"),
        Arguments.of("\"ctrl \u0001 char\"", "unescaped control character byte 0x01 in a string at offset 6"),
        Arguments.of("01", "invalid number: unexpected '1' at offset 1"),
        Arguments.of("1e5.", "invalid number: unexpected '.' at offset 3"),
        Arguments.of("1.", "invalid number: expected a digit after '.' at offset 2"),
        Arguments.of("1.e5", "invalid number: expected a digit after '.' at offset 2"),
        Arguments.of("-", "invalid number: expected a digit at offset 1"),
        Arguments.of("1e+", "invalid number: expected a digit in the exponent at offset 3"),
        Arguments.of("tru", "invalid literal, expected true at offset 0"),
        Arguments.of("trux", "invalid literal, expected true at offset 0"),
        Arguments.of("nul", "invalid literal, expected null at offset 0"),
        Arguments.of("falsey", "unexpected 'y' after the end of the JSON value at offset 5"),
        Arguments.of("[1] 2", "unexpected '2' after the end of the JSON value at offset 4"),
        Arguments.of("NaN", "unexpected 'N', expected a value at offset 0"));
  }

  @ParameterizedTest
  @MethodSource("malformedDocumentsAndTheirMessages")
  void eachKindOfErrorHasItsExactMessageAndOffset(String json, String message) {
    assertThatThrownBy(() -> validate(json))
        .isInstanceOf(JsonScanner.MalformedJsonException.class)
        .hasMessage(message);
  }

  @Test
  void readingTheWrongTypeSaysWhichTypeWasExpected() {
    assertThatThrownBy(() -> scanner("[]").beginObject()).hasMessage("unexpected '[', expected an object at offset 0");
    assertThatThrownBy(() -> scanner("{}").beginArray()).hasMessage("unexpected '{', expected an array at offset 0");
    assertThatThrownBy(() -> scanner("1").readString()).hasMessage("unexpected '1', expected a string at offset 0");
    assertThatThrownBy(() -> scanner("}").readString()).hasMessage("unexpected '}', expected a value at offset 0");
    assertThatThrownBy(() -> scanner("\"1\"").readLong()).hasMessage("unexpected '\"', expected a number at offset 0");
    assertThatThrownBy(() -> scanner("true").readDouble()).hasMessage("unexpected 't', expected a number at offset 0");
    assertThatThrownBy(() -> scanner("null").readBoolean())
        .hasMessage("unexpected 'n', expected true or false at offset 0");
  }

  @Test
  void readingTheWrongTypeIsRejected() {
    assertThatThrownBy(() -> scanner("[]").beginObject()).hasMessageContaining("expected an object");
    assertThatThrownBy(() -> scanner("{}").beginArray()).hasMessageContaining("expected an array");
    assertThatThrownBy(() -> scanner("1").readString()).hasMessageContaining("expected a string");
    assertThatThrownBy(() -> scanner("\"1\"").readLong()).hasMessageContaining("expected a number");
    assertThatThrownBy(() -> scanner("null").readBoolean()).hasMessageContaining("expected true or false");
  }

  @Test
  void scannerIsReusableAcrossDocuments() {
    JsonScanner s = new JsonScanner();
    byte[] first = utf8("{\"a\":[[[");
    s.reset(first, 0, first.length);
    assertThatThrownBy(() -> {
      s.skipValue();
    }).isInstanceOf(JsonScanner.MalformedJsonException.class);
    byte[] second = utf8("{\"a\":\"ok\"}");
    s.reset(second, 0, second.length);
    s.beginObject();
    s.nextField();
    s.readString();
    assertThat(s.stringValue()).isEqualTo("ok");
    assertThat(s.nextField()).isFalse();
    s.endDocument();
  }
}
