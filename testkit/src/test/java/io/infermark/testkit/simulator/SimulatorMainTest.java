package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatorMainTest {

  @Test
  void defaultsServeThe8bProfileOnPort8000() {
    SimulatorConfig c = SimulatorMain.parse();

    assertThat(c.port()).isEqualTo(8000);
    assertThat(c.engine()).contains(EngineProfile.llama8bH200());
  }

  @Test
  void everyOptionReachesTheConfiguration() {
    SimulatorConfig c = SimulatorMain.parse("--port", "0", "--host", "0.0.0.0", "--profile", "early-saturation",
        "--model", "m", "--seed", "9", "--output-tokens", "10..20", "--tokens-per-chunk", "3",
        "--reasoning-tokens", "4", "--max-model-len", "4096", "--timeline-retention", "50",
        "--kv-blocks", "77", "--max-running-seqs", "5", "--step-overhead-ms", "1.5", "--no-prefix-caching",
        "--fault", "rate-limited:0.1:1500", "--fault", "slowdown:0.2:1.8:200", "--fault", "stall:0.05:3:400",
        "--fault", "slowdown:0.01:2:0:250");

    EngineProfile e = c.engine().orElseThrow();
    assertThat(e.name()).isEqualTo("early-saturation");
    assertThat(e.kvCacheBlocks()).isEqualTo(77);
    assertThat(e.maxRunningSequences()).isEqualTo(5);
    assertThat(e.stepOverheadMs()).isEqualTo(1.5);
    assertThat(e.prefixCaching()).isFalse();
    assertThat(e.maxBatchedTokens()).isEqualTo(1024);
    assertThat(c.host()).isEqualTo("0.0.0.0");
    assertThat(c.model()).isEqualTo("m");
    assertThat(c.seed()).isEqualTo(9);
    assertThat(c.outputTokensMin()).isEqualTo(10);
    assertThat(c.outputTokensMax()).isEqualTo(20);
    assertThat(c.tokensPerChunk()).isEqualTo(3);
    assertThat(c.reasoningTokens()).isEqualTo(4);
    assertThat(c.maxModelLength()).isEqualTo(4096);
    assertThat(c.timelineRetention()).isEqualTo(50);
    assertThat(c.faultRules()).extracting(FaultRule::fault).containsExactly(
        Fault.rateLimited(Duration.ofMillis(1500)), Fault.slowdown(1.8, Duration.ofMillis(200)),
        Fault.stall(3, Duration.ofMillis(400)), Fault.slowdown(2, Duration.ZERO, Duration.ofMillis(250)));
    assertThat(c.faultRules()).extracting(FaultRule::probability).containsExactly(0.1, 0.2, 0.05, 0.01);
  }

  @Test
  void fixedProfileUsesTheFixedTimings() {
    SimulatorConfig c = SimulatorMain.parse("--profile", "fixed", "--ttft-ms", "12.5", "--itl-ms", "3");

    assertThat(c.engine()).isEmpty();
    assertThat(c.timeToFirstToken()).isEqualTo(Duration.ofNanos(12_500_000));
    assertThat(c.interTokenInterval()).isEqualTo(Duration.ofMillis(3));
  }

  @Test
  void badArgumentsNameTheOptionAndValue() {
    for (List<String> args : List.of(List.of("--port", "x"), List.of("--frobnicate", "1"), List.of("--seed"),
        List.of("--fault", "explode:0.1"), List.of("--fault", "stall:0.1:3"), List.of("--profile", "gpt-5"))) {
      assertThatThrownBy(() -> SimulatorMain.parse(args.toArray(String[]::new)))
          .as("%s", args).isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> SimulatorMain.parse("--port", "x")).hasMessage("--port needs an integer, was 'x'");
    assertThatThrownBy(() -> SimulatorMain.parse("--bogus")).hasMessage("unknown option --bogus (--help lists the options)");
    assertThatThrownBy(() -> SimulatorMain.parse("--bogus", "1")).hasMessage("unknown option --bogus (--help lists the options)");
    assertThatThrownBy(() -> SimulatorMain.parse("--seed", "1", "--itl-ms")).hasMessage("--itl-ms needs a value");
    assertThatThrownBy(() -> SimulatorMain.parse("--fault", "stall:0.1:3"))
        .hasMessage("--fault stall:0.1:3 needs 4 ':'-separated fields; see --help");
    assertThatThrownBy(() -> SimulatorMain.parse("--profile", "gpt-5"))
        .hasMessageStartingWith("unknown engine profile 'gpt-5'");
  }

  @Test
  void coldStartOptionsBuildTheColdStartModel() {
    assertThat(SimulatorMain.parse().coldStart()).isEmpty();
    assertThat(SimulatorMain.parse("--cold-start-ms", "250").coldStart())
        .contains(ColdStart.atStart(Duration.ofMillis(250)));
    assertThat(SimulatorMain.parse("--cold-start-on", "first-request", "--cold-start-ms", "1500.5",
        "--scale-to-zero-ms", "30000").coldStart()).contains(ColdStart.onFirstRequest(Duration.ofNanos(1_500_500_000))
        .scaleToZeroAfter(Duration.ofSeconds(30)));
    assertThat(SimulatorMain.parse("--profile", "fixed", "--cold-start-ms", "40", "--cold-start-on", "start")
        .coldStart()).contains(ColdStart.atStart(Duration.ofMillis(40)));
  }

  @Test
  void swapPreemptionOptionSetsTheCostPerBlockWhateverTheOptionOrder() {
    assertThat(SimulatorMain.parse().engine().orElseThrow().swaps()).isFalse();
    EngineProfile e = SimulatorMain.parse("--swap-preemption-ms", "0.25", "--profile", "early-saturation")
        .engine().orElseThrow();

    assertThat(e.name()).isEqualTo("early-saturation");
    assertThat(e.swaps()).isTrue();
    assertThat(e.swapMsPerBlock()).isEqualTo(0.25);
  }

  @Test
  void badColdStartAndSwapOptionsNameTheOptionAndValue() {
    assertThatThrownBy(() -> SimulatorMain.parse("--cold-start-ms", "0"))
        .hasMessage("--cold-start-ms needs a number of milliseconds > 0, was '0'");
    assertThatThrownBy(() -> SimulatorMain.parse("--cold-start-ms", "-5"))
        .hasMessage("--cold-start-ms needs a number of milliseconds >= 0, was '-5'");
    assertThatThrownBy(() -> SimulatorMain.parse("--cold-start-ms", "10", "--cold-start-on", "boot"))
        .hasMessage("--cold-start-on needs start or first-request, was 'boot'");
    assertThatThrownBy(() -> SimulatorMain.parse("--scale-to-zero-ms", "100"))
        .hasMessage("--scale-to-zero-ms needs --cold-start-ms (the load time)");
    assertThatThrownBy(() -> SimulatorMain.parse("--cold-start-on", "start"))
        .hasMessage("--cold-start-on needs --cold-start-ms (the load time)");
    assertThatThrownBy(() -> SimulatorMain.parse("--cold-start-ms", "10", "--scale-to-zero-ms", "0"))
        .hasMessage("--scale-to-zero-ms needs a number of milliseconds > 0, was '0'");
    assertThatThrownBy(() -> SimulatorMain.parse("--swap-preemption-ms", "0"))
        .hasMessage("--swap-preemption-ms needs a number of ms per block > 0, was '0'");
    assertThatThrownBy(() -> SimulatorMain.parse("--swap-preemption-ms", "Infinity"))
        .hasMessage("--swap-preemption-ms needs a number of ms per block > 0, was 'Infinity'");
    assertThatThrownBy(() -> SimulatorMain.parse("--profile", "fixed", "--swap-preemption-ms", "1"))
        .hasMessageStartingWith("--swap-preemption-ms needs an engine profile");
  }

  @Test
  void helpTextListsTheColdStartAndSwapOptions() {
    assertThat(SimulatorMain.USAGE).contains("--cold-start-ms X", "--cold-start-on WHEN", "--scale-to-zero-ms X",
        "--swap-preemption-ms X");
  }
}
