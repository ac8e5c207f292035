package io.infermark.attribution.phase;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.transport.netty.HttpVersionPolicy;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Seed 000 §4.4, a sidecar in front of the server amplifying time to first byte, measured per layer:
 * the same load over HTTP/1.1 and over h2c through a relay that holds the first bytes the server sends
 * on each new connection for {@value #SIDECAR_MS} ms (a proxy finishing its own upstream set-up). On
 * HTTP/1.1 those first bytes are the first response's head, so the cost lands in {@code waiting} and
 * looks like the server; on HTTP/2 they are the server's SETTINGS, so it lands in {@code settings}
 * and the phase split names the layer.
 */
class SidecarSettingsScenarioTest {

  static final long SIDECAR_MS = 40;

  /** A TCP relay that holds the first server-to-client bytes of each connection; bounded to the test. */
  static final class Sidecar implements AutoCloseable {
    private final ServerSocket listener;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "sidecar-relay");
      t.setDaemon(true);
      return t;
    });

    Sidecar(int upstreamPort, long holdMillis) throws IOException {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      threads.execute(() -> {
        while (!listener.isClosed()) {
          try {
            Socket client = listener.accept();
            client.setTcpNoDelay(true);
            Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
            upstream.setTcpNoDelay(true);
            threads.execute(() -> pump(client, upstream, 0));
            threads.execute(() -> pump(upstream, client, holdMillis));
          } catch (IOException e) {
            return; // closed
          }
        }
      });
    }

    int port() {
      return listener.getLocalPort();
    }

    private static void pump(Socket from, Socket to, long holdFirstMillis) {
      byte[] buf = new byte[16384];
      boolean first = true;
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) >= 0) {
          if (first && holdFirstMillis > 0) {
            Thread.sleep(holdFirstMillis); // the sidecar's own set-up, paid once per connection
          }
          first = false;
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // one side closed: close both
      } finally {
        try {
          from.close();
          to.close();
        } catch (IOException e) {
          // already closed
        }
      }
    }

    @Override
    public void close() throws IOException {
      listener.close();
      threads.shutdownNow();
    }
  }

  private static RunResult run(SimulatorProtocol protocol) throws IOException {
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(10))
        .interTokenInterval(Duration.ofMillis(2)).outputTokensBetween(8, 8).build(), protocol);
        Sidecar sidecar = new Sidecar(sim.port(), SIDECAR_MS);
        OpenAiTarget target = OpenAiTarget.chat("http://127.0.0.1:" + sidecar.port() + "/v1", sim.config().model())
            .transport(NettyTransport.builder().httpVersion(protocol == SimulatorProtocol.H2C
                ? HttpVersionPolicy.HTTP_2 : HttpVersionPolicy.HTTP_1_1).build()).build()) {
      return Benchmark.target(target).preflight(false).prompts(Prompt.user("Where does the time go?"))
          .params(GenerationParams.builder().maxTokens(8).build())
          .load(LoadProfile.concurrency(4).requests(40)).run();
    }
  }

  /** What this request's phases before {@code phase} took, ns: where a late stamp can move the time it ends at. */
  private static long before(RequestPhases p, LatencyPhase phase) {
    long sum = 0;
    for (LatencyPhase earlier : p.phases().subList(0, p.phases().indexOf(phase))) {
      sum += p.nanos(earlier);
    }
    return sum;
  }

  @Test
  void theSidecarsSetUpLandsInWaitingOverHttp1AndInSettingsOverHttp2() throws IOException {
    RunResult h1 = run(SimulatorProtocol.HTTP_1_1);
    RunResult h2 = run(SimulatorProtocol.H2C);
    assertThat(h1.records()).allMatch(RequestRecord::succeeded);
    assertThat(h2.records()).allMatch(RequestRecord::succeeded);
    long hold = TimeUnit.MILLISECONDS.toNanos(SIDECAR_MS);
    // The hold starts after the send, so the milestone it delays is at least the hold after the send (exact). A
    // milestone before it that the client stamps late (its I/O thread held up) moves some of the hold into the phase
    // before: at most what this request's own phases before took, not a whole-run percentile (the client floor),
    // which one late stamp on a busy machine exceeds by chance.

    // HTTP/1.1: each of the 4 connections' first response waited for the sidecar: "waiting", no settings phase
    List<RequestRecord> h1Openers = h1.records().stream()
        .filter(r -> r.phases().offsetNanos(Phase.CONNECT_START).isPresent()).toList();
    assertThat(h1Openers).isNotEmpty();
    for (RequestRecord r : h1Openers) {
      RequestPhases p = RequestPhases.of(r, LatencyBasis.SERVICE_TIME);
      assertThat(r.phases().offsetNanos(Phase.RESPONSE_HEADERS_START).getAsLong()).isGreaterThanOrEqualTo(hold);
      assertThat(p.nanos(LatencyPhase.WAITING)).as("%s: %s", r, p)
          .isGreaterThanOrEqualTo(hold - before(p, LatencyPhase.WAITING));
      assertThat(p.nanos(LatencyPhase.SETTINGS)).isZero();
    }
    // HTTP/2: one connection; its SETTINGS came through the sidecar: "settings" holds the hold
    List<RequestRecord> h2Openers = h2.records().stream()
        .filter(r -> r.phases().offsetNanos(Phase.SETTINGS_RECEIVED).isPresent()).toList();
    assertThat(h2Openers).hasSize(1);
    RequestPhases opener = RequestPhases.of(h2Openers.get(0), LatencyBasis.SERVICE_TIME);
    assertThat(h2Openers.get(0).phases().offsetNanos(Phase.SETTINGS_RECEIVED).getAsLong()).isGreaterThanOrEqualTo(hold);
    assertThat(opener.nanos(LatencyPhase.SETTINGS)).as("%s", opener)
        .isGreaterThanOrEqualTo(hold - before(opener, LatencyPhase.SETTINGS));

    var log = LoggerFactory.getLogger(SidecarSettingsScenarioTest.class);
    log.info("HTTP/1.1 through the sidecar:\n{}", PhaseDecomposition.of(h1, LatencyBasis.SERVICE_TIME).table(0.9));
    log.info("h2c through the sidecar:\n{}", PhaseDecomposition.of(h2, LatencyBasis.SERVICE_TIME).table(0.9));
  }
}
