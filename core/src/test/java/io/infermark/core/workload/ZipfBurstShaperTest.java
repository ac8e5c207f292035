package io.infermark.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ZipfBurstShaperTest {

  private final ZipfBurstShaper shaper = ZipfBurstShaper.defaults();

  @Test
  void rankFrequenciesFollowZipfWithTheConfiguredAlpha() {
    int n = 200_000;
    long[] counts = new long[11];
    for (long i = 0; i < n; i++) {
      counts[shaper.plan(i, 0).rank()]++;
    }
    // P(1)/P(2) = 2^1.2 = 2.2974 by definition; the normalised probabilities sum to 1.
    assertThat(shaper.rankProbability(1) / shaper.rankProbability(2)).isCloseTo(Math.pow(2, 1.2), within(1e-12));
    double chiSquare = 0;
    double total = 0;
    for (int k = 1; k <= 10; k++) {
      double expected = n * shaper.rankProbability(k);
      chiSquare += (counts[k] - expected) * (counts[k] - expected) / expected;
      total += shaper.rankProbability(k);
    }
    assertThat(total).isCloseTo(1.0, within(1e-12));
    // Chi-square with 9 degrees of freedom: the 0.1 % critical value is 27.877.
    assertThat(chiSquare).isLessThan(27.877);
    // The log-log slope of frequency against rank is −α.
    double slope = Math.log((double) counts[8] / counts[1]) / Math.log(8);
    assertThat(slope).isCloseTo(-1.2, within(0.03));
  }

  @Test
  void burstMultipliesTokensAndDividesTheGapSoTheirProductIsFixedPerItem() {
    long[] t = shaper.arrivals().schedule(5_000, Long.MAX_VALUE, 0);
    long previous = 0;
    double burstSum = 0;
    for (int i = 0; i < t.length; i++) {
      ZipfBurstShaper.Shaped s = shaper.plan(i, t[i]);
      // 512 + 1024 per rank below the first.
      assertThat(s.contextTokens()).isEqualTo(512 + 1024 * (s.rank() - 1));
      assertThat(s.inputTokens()).isEqualTo((long) s.contextTokens() * (s.burst() + 1));
      assertThat(s.gapNanos() * (s.burst() + 1)).isCloseTo(100_000_000.0, within(1e-6));
      assertThat(s.inputTokens() * s.gapNanos()).isCloseTo(s.contextTokens() * 1e8, within(1e-3));
      // The schedule's integer gap is the planned gap to within the nanosecond rounding.
      assertThat((double) (t[i] - previous)).isCloseTo(s.gapNanos(), within(1.0));
      previous = t[i];
      burstSum += s.burst();
    }
    assertThat(burstSum / t.length).isCloseTo(2.5, within(0.07));
  }

  @Test
  void promptsHaveThePlannedLengthAndHotItemsShareAPrefix() {
    Workload w = shaper.workload();
    Prompt a = null;
    Prompt b = null;
    for (long i = 0; i < 200 && (a == null || b == null); i++) {
      ZipfBurstShaper.Shaped s = shaper.plan(i, 0);
      if (s.rank() == 1 && s.burst() > 0) {
        Prompt p = w.request(i, 0, GenerationParams.defaults()).prompt();
        assertThat(TokenCounter.estimate().count(p)).isEqualTo(s.inputTokens());
        assertThat(p.tags()).containsEntry(WorkloadTags.RANK, "1")
            .containsEntry(WorkloadTags.INPUT_TOKENS_REQUESTED, Long.toString(s.inputTokens()))
            .containsEntry(WorkloadTags.INPUT_TOKENS_ACHIEVED, Long.toString(s.inputTokens()));
        if (a == null) {
          a = p;
        } else {
          b = p;
        }
      }
    }
    String prefix = SyntheticText.words(io.infermark.core.load.Randoms.mix(0 ^ 0x5A17L, 1), 512);
    assertThat(a.text()).startsWith(prefix);
    assertThat(b.text()).startsWith(prefix);
    assertThat(a.text()).isNotEqualTo(b.text());
  }

  @Test
  void contextCanGrowWithElapsedTimeInstead() {
    ZipfBurstShaper byTime = ZipfBurstShaper.builder().contextByTime(1024, Duration.ofSeconds(10)).build();
    assertThat(byTime.plan(3, 0).contextTokens()).isEqualTo(512);
    assertThat(byTime.plan(3, 25_000_000_000L).contextTokens()).isEqualTo(512 + 2 * 1024);
  }

  @Test
  void meanRateIsTheInverseOfTheMeanGap() {
    // E[1/(B+1)] for B ~ Poisson(2.5) = (1 − e^−2.5)/2.5 = 0.367166; mean gap 36.7166 ms.
    double rate = shaper.arrivals().nominalRate().getAsDouble();
    assertThat(rate).isCloseTo(1 / 0.0367166, within(0.001));
    long[] t = shaper.arrivals().schedule(100_000, Long.MAX_VALUE, 0);
    assertThat(100_000 / (t[t.length - 1] / 1e9)).isCloseTo(rate, within(rate * 0.01));
  }

  @Test
  void badParametersFailFast() {
    assertThatThrownBy(() -> ZipfBurstShaper.builder().alpha(0)).hasMessageContaining("alpha must be finite and > 0");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().alpha(-1)).hasMessageContaining("alpha");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().items(0)).hasMessageContaining("items");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().burstMean(-0.5)).hasMessageContaining("burstMean");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().baseGap(Duration.ZERO)).hasMessageContaining("baseGap");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().items(2).rankPrompts(List.of(Prompt.user("a"))).build())
        .hasMessageContaining("one prompt per item");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().burstCap(-1)).hasMessageContaining("burstCap");
    assertThat(ZipfBurstShaper.defaults().toString()).isEqualTo("ZipfBurstShaper[10 items, α 1.2, context 512 + 1024 "
        + "per rank, burst λ 2.5, tokens c·(b+1), base gap 100.000 ms, seed 0]");
    assertThat(ZipfBurstShaper.seedCode().toString()).isEqualTo("ZipfBurstShaper[100 items, α 1.2, context 512 + 1024 "
        + "per rank/N, burst λ 3.0 capped at 5, tokens c·b, base gap 100.000 ms, seed 0]");
  }

  @Test
  void seedCodeFormHasContextByRankShareTokensContextTimesBurstAndBurstCappedAtFive() {
    // Seed 002 §4.3's Go: baseLen := int64(512 + 1024*float64(rank)/float64(N)); Tokens: baseLen * burstFactor;
    // burstFactor: Poisson(λ=3) → [0,5]; Interval: 100e6 / (burstFactor + 1) ns.
    ZipfBurstShaper code = ZipfBurstShaper.seedCode();
    boolean sawZero = false;
    boolean sawCap = false;
    long[] t = code.arrivals().schedule(20_000, Long.MAX_VALUE, 0);
    long previous = 0;
    for (int i = 0; i < t.length; i++) {
      ZipfBurstShaper.Shaped s = code.plan(i, t[i]);
      assertThat(s.contextTokens()).isEqualTo((int) (512 + 1024.0 * s.rank() / 100));
      assertThat(s.burst()).isBetween(0, 5);
      assertThat(s.inputTokens()).isEqualTo((long) s.contextTokens() * s.burst());
      assertThat(s.gapNanos()).isCloseTo(1e8 / (s.burst() + 1), within(1e-6));
      assertThat((double) (t[i] - previous)).isCloseTo(s.gapNanos(), within(1.0));
      previous = t[i];
      sawZero |= s.burst() == 0;
      sawCap |= s.burst() == 5;
    }
    assertThat(sawZero).isTrue();
    assertThat(sawCap).isTrue();
    // E[1/(min(B,5)+1)] for B ~ Poisson(3) = Σ_{k<5} P(k)/(k+1) + P(B ≥ 5)/6 = 0.319554: 31.2936 requests/s.
    double rate = code.arrivals().nominalRate().getAsDouble();
    assertThat(rate).isCloseTo(31.29357084257205, within(1e-9));
    assertThat(t.length / (t[t.length - 1] / 1e9)).isCloseTo(rate, within(rate * 0.01));
  }

  @Test
  void aZeroBurstInTheSeedCodeFormPlansNoTokensAndSendsOneWordThatSaysSo() {
    ZipfBurstShaper code = ZipfBurstShaper.seedCode();
    long i = 0;
    while (code.plan(i, 0).burst() != 0) {
      i++;
    }
    ZipfBurstShaper.Shaped s = code.plan(i, 0);
    assertThat(s.inputTokens()).isZero();
    Prompt p = code.workload().request(i, 0, GenerationParams.defaults()).prompt();
    assertThat(TokenCounter.estimate().count(p)).isEqualTo(1);
    assertThat(p.tags()).containsEntry(WorkloadTags.INPUT_TOKENS_REQUESTED, "0")
        .containsEntry(WorkloadTags.INPUT_TOKENS_ACHIEVED, "1");
    // b = 1 sends exactly the item's context, the first c words of its text.
    while (code.plan(i, 0).burst() != 1) {
      i++;
    }
    ZipfBurstShaper.Shaped one = code.plan(i, 0);
    Prompt q = code.workload().request(i, 0, GenerationParams.defaults()).prompt();
    assertThat(TokenCounter.estimate().count(q)).isEqualTo(one.contextTokens());
    assertThat(q.text()).isEqualTo(SyntheticText.words(io.infermark.core.load.Randoms.mix(0 ^ 0x5A17L, one.rank()),
        one.contextTokens()));
  }

  @Test
  void theTablesTop1Is512ButItsTop100Of107kIsReachableInNeitherForm() {
    // Seed 002 §4.3's table: "Context slope 1024 tokens/rank Top-1请求均长512，Top-100达107K".
    ZipfBurstShaper table = ZipfBurstShaper.builder().items(100).build();
    ZipfBurstShaper code = ZipfBurstShaper.seedCode();
    int top1 = -1;
    int top100 = -1;
    long codeMax = 0;
    java.util.Set<Long> rank100Inputs = new java.util.TreeSet<>();
    for (long i = 0; i < 200_000 && (top1 < 0 || top100 < 0); i++) {
      ZipfBurstShaper.Shaped s = table.plan(i, 0);
      if (s.rank() == 1) {
        top1 = s.contextTokens();
      }
      if (s.rank() == 100) {
        top100 = s.contextTokens();
        rank100Inputs.add(s.inputTokens());
      }
    }
    for (long i = 0; i < 200_000; i++) {
      codeMax = Math.max(codeMax, code.plan(i, 0).inputTokens());
    }
    // Table form, 512 + 1024·(rank − 1): Top-1 512 (the table's figure), Top-100 101,888, not 107K.
    assertThat(top1).isEqualTo(512);
    assertThat(top100).isEqualTo(101_888);
    // 107K would take (107,000 − 512) / 99 = 1,075.6 tokens per rank, or rank 105 (512 + 1024·104 = 107,008).
    assertThat(512 + 1024 * 104).isEqualTo(107_008);
    // With bursts a rank-100 request is c·(b + 1) ∈ {101,888, 203,776, ...} (c·b adds 0): never 104K-110K.
    assertThat(rank100Inputs).allSatisfy(n -> assertThat(n % 101_888).isZero())
        .noneSatisfy(n -> assertThat(n).isBetween(104_000L, 110_000L));
    // Code form, 512 + 1024·rank/N with N = 100: the context is at most 1,536 and a request at most 1,536 × 5.
    assertThat(code.plan(0, 0).contextTokens()).isLessThanOrEqualTo(1_536);
    assertThat(codeMax).isEqualTo(7_680);
  }
}
