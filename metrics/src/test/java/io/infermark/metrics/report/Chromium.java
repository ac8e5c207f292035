package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * Opens a page in real headless Chromium and reports what a person would see: whether every chart drew, what
 * hovering over each chart showed, and every console error or uncaught exception. A probe script is placed
 * into a copy of the page (an error listener first, the checks last); Chromium runs it with a virtual-time
 * budget and prints the resulting DOM, where the probe left its findings as JSON.
 *
 * <p>Chromium must be installed (Debian: {@code apt-get install -y chromium}; {@code .ci/run} installs it). In CI
 * ({@code CI} set) a missing browser fails the test; elsewhere the test is skipped with that instruction.
 */
final class Chromium {

  private Chromium() {}

  /** What the probe found on a page. */
  record Findings(int charts, int rendered, List<String> hovers, List<String> errors, String raw) {}

  /** The browser binary, or the test is skipped (failed in CI). */
  static String require() {
    Optional<String> found = find();
    if (found.isEmpty()) {
      String message = "chromium is not installed (Debian: apt-get install -y chromium; .ci/run installs it)";
      if (System.getenv("CI") != null) {
        throw new AssertionError(message + ": CI must run the browser tests");
      }
      Assumptions.abort(message);
    }
    return found.get();
  }

  static Optional<String> find() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      for (String name : new String[] {"chromium", "chromium-browser", "google-chrome"}) {
        File f = new File(dir, name);
        if (f.canExecute()) {
          return Optional.of(f.getPath());
        }
      }
    }
    return Optional.empty();
  }

  /** The probe: errors are caught from the first script on; after the charts drew, it hovers over each one. */
  private static final String PRELUDE = "<script>window.__errors=[];"
      + "window.addEventListener('error',function(e){__errors.push('uncaught: '+e.message);});"
      + "var __ce=console.error;console.error=function(){__errors.push('console.error: '+"
      + "Array.prototype.map.call(arguments,String).join(' '));__ce.apply(console,arguments);};</script>";

  private static final String PROBE = "<script>setTimeout(function(){"
      + "var figs=document.querySelectorAll('figure.chart'),hovers=[],rendered=0;"
      + "figs.forEach(function(f){if(f.getAttribute('data-rendered')==='true')rendered++;"
      + "var over=f.querySelector('.u-over');if(!over){hovers.push('');return;}"
      + "var r=over.getBoundingClientRect();"
      + "['mouseenter','mousemove'].forEach(function(t){over.dispatchEvent(new MouseEvent(t,{clientX:r.left+r.width*0.5,"
      + "clientY:r.top+r.height*0.5,bubbles:true}));});"
      + "var vals=[].map.call(f.querySelectorAll('.u-legend .u-value'),function(v){return v.textContent;});"
      + "var ro=f.querySelector('.readout');hovers.push(vals.join('|')+(ro?'#'+ro.textContent:''));});"
      + "var out=document.createElement('pre');out.id='probe';"
      + "out.textContent=JSON.stringify({charts:figs.length,rendered:rendered,hovers:hovers,errors:__errors});"
      + "document.body.appendChild(out);},200);</script>";

  /** Opens {@code page} (written to {@code dir}) and returns what the probe found. */
  static Findings open(String html, Path dir, String name) throws IOException, InterruptedException {
    String chromium = require();
    Files.createDirectories(dir);
    String probed = html.replaceFirst("<head>", "<head>" + Matcher.quoteReplacement(PRELUDE))
        .replace("</body>", PROBE + "</body>");
    Path page = dir.resolve(name + ".probe.html").toAbsolutePath();
    Files.writeString(page, probed, StandardCharsets.UTF_8);
    Path profile = Files.createTempDirectory(dir.toAbsolutePath(), "chromium-profile");
    Path dom = dir.resolve(name + ".dom.html");
    Process p = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync",
        "--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1400,2000", "--virtual-time-budget=5000",
        "--dump-dom", page.toUri().toString())
        .redirectOutput(dom.toFile()).redirectError(dir.resolve(name + ".chromium.log").toFile()).start();
    boolean done = p.waitFor(120, TimeUnit.SECONDS);
    if (!done) {
      p.destroyForcibly();
    }
    assertThat(done).as("chromium finished within 120 s").isTrue();
    String out = Files.readString(dom, StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("(?s)<pre id=\"probe\">(.*?)</pre>").matcher(out);
    assertThat(m.find()).as("the probe ran; chromium's DOM: %s", out.length() > 2000 ? out.substring(0, 2000) : out)
        .isTrue();
    com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
        m.group(1).replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"));
    List<String> hovers = new java.util.ArrayList<>();
    json.path("hovers").forEach(h -> hovers.add(h.asText()));
    List<String> errors = new java.util.ArrayList<>();
    json.path("errors").forEach(e -> errors.add(e.asText()));
    return new Findings(json.path("charts").asInt(), json.path("rendered").asInt(), hovers, errors, m.group(1));
  }
}
