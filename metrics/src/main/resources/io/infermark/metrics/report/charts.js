/* infermark report charts: draws every <figure class="chart"> from the JSON beside it with uPlot.
   Line charts: hover values in the legend, drag to zoom on x, double-click to reset.
   Heatmaps: cells coloured on a log scale, a colour bar with its unit, the hovered cell's count.
   Timelines: one bar per request (waiting for the first token, then decoding), the hovered request's times. */
(function () {
  "use strict";
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
  var WIDTH = 620, HEIGHT = 300;
  var ITL_COLORS = ["#16a34a", "#f59e0b", "#dc2626"];

  function fmt(v) {
    if (v == null || !isFinite(v)) return "\u2013";
    var a = Math.abs(v);
    if (a === 0) return "0";
    if (a >= 100) return v.toFixed(0);
    if (a >= 1) return v.toFixed(2);
    return v.toPrecision(3);
  }

  function valueFmt(u, v) { return fmt(v); }

  function ticks(u, vals) { return vals.map(function (v) { return v == null ? "" : fmt(v); }); }

  // a log axis labels 1, 2 and 5 of each decade and leaves its other grid lines unlabelled
  function logTicks(u, vals) {
    return vals.map(function (v) {
      if (v == null || !(v > 0)) return "";
      var m = Math.round(v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9)) * 1000) / 1000;
      return m === 1 || m === 2 || m === 5 ? fmt(v) : "";
    });
  }

  function readout(fig) {
    var r = fig.querySelector(".readout");
    if (!r) {
      r = document.createElement("div");
      r.className = "readout";
      r.textContent = "\u00a0";
      fig.appendChild(r);
    }
    return r;
  }

  function markPlugin(marks) {
    return {
      hooks: {
        draw: function (u) {
          var ctx = u.ctx;
          ctx.save();
          ctx.setLineDash([6, 4]);
          ctx.lineWidth = 1.5 * devicePixelRatio;
          ctx.font = (11 * devicePixelRatio) + "px sans-serif";
          marks.forEach(function (m, i) {
            var x = u.valToPos(m.x, "x", true);
            if (!isFinite(x)) return;
            ctx.strokeStyle = "#555";
            ctx.fillStyle = "#333";
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            ctx.fillText(m.name, x + 4 * devicePixelRatio, u.bbox.top + (14 + 14 * i) * devicePixelRatio);
          });
          ctx.restore();
        }
      }
    };
  }

  function line(spec, el, fig) {
    var tables = spec.series.map(function (s) {
      var xs = [], ys = [];
      for (var i = 0; i < s.x.length; i++) {
        var x = s.x[i];
        if (x == null || !isFinite(x) || (spec.logX && x <= 0)) continue;
        xs.push(x);
        ys.push(s.y[i] == null || !isFinite(s.y[i]) || (spec.logY && s.y[i] <= 0) ? null : s.y[i]);
      }
      return [xs, ys];
    });
    var data = tables.length === 1 ? tables[0] : uPlot.join(tables);
    if (data[0].length === 0) {
      el.textContent = "no data";
      return;
    }
    var series = [{ label: spec.x, value: valueFmt }];
    spec.series.forEach(function (s, i) {
      var one = {
        label: s.name, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: true, value: valueFmt,
        points: { show: !!s.points || !!s.scatter, size: s.scatter ? 7 : 5 }
      };
      if (s.scatter) one.paths = function () { return null; }; // a scatter series: its points, no line
      series.push(one);
    });
    var opts = {
      width: WIDTH, height: HEIGHT,
      scales: {
        x: { time: false, distr: spec.logX ? 3 : 1 },
        y: spec.logY ? { distr: 3 } : spec.yMax != null ? { range: [0, spec.yMax] } : {
          range: function (u, min, max) { return [Math.min(0, min == null ? 0 : min), max == null || max <= 0 ? 1 : max * 1.05]; }
        }
      },
      axes: [{ label: spec.x, values: spec.logX ? logTicks : ticks }, { label: spec.y, values: spec.logY ? logTicks : ticks, size: 60 }],
      series: series,
      cursor: { drag: { x: true, y: false } },
      legend: { show: true, live: true },
      plugins: spec.marks && spec.marks.length ? [markPlugin(spec.marks)] : []
    };
    return new uPlot(opts, data, el);
  }

  function colour(f) {
    // white to dark blue, as the count's share of the largest on a log scale
    var r = Math.round(255 - f * (255 - 8)), g = Math.round(255 - f * (255 - 48)), b = Math.round(255 - f * (255 - 107));
    return "rgb(" + r + "," + g + "," + b + ")";
  }

  function scaleBar(fig, spec) {
    var bar = document.createElement("div");
    bar.className = "scale";
    var stops = [];
    for (var i = 0; i <= 10; i++) stops.push(colour(i / 10) + " " + (i * 10) + "%");
    bar.innerHTML = "<span class='lo'></span><span class='grad'></span><span class='hi'></span><span class='unit'></span>";
    bar.querySelector(".grad").style.background = "linear-gradient(to right," + stops.join(",") + ")";
    bar.querySelector(".lo").textContent = "1";
    bar.querySelector(".hi").textContent = String(spec.max);
    bar.querySelector(".unit").textContent = spec.unit + " (log colour scale)";
    fig.appendChild(bar);
  }

  function heatmap(spec, el, fig) {
    if (!spec.max) {
      el.textContent = "no data";
      return;
    }
    var T = spec.counts.length * spec.interval;
    var edges = spec.edges;
    var logMax = Math.log1p(spec.max);
    var out = readout(fig);
    var opts = {
      width: WIDTH, height: HEIGHT,
      scales: { x: { time: false, range: [0, T] }, y: { distr: 3, range: [edges[0], edges[edges.length - 1]] } },
      axes: [{ label: spec.x, values: ticks }, { label: spec.y, values: logTicks, size: 60 }],
      series: [{ label: spec.x }, { label: "requests", show: false }],
      legend: { show: false },
      cursor: { drag: { x: true, y: false }, points: { show: false } },
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx;
          for (var i = 0; i < spec.counts.length; i++) {
            var x0 = u.valToPos(i * spec.interval, "x", true), x1 = u.valToPos((i + 1) * spec.interval, "x", true);
            var row = spec.counts[i];
            for (var j = 0; j < row.length; j++) {
              if (!row[j]) continue;
              var y0 = u.valToPos(edges[j], "y", true), y1 = u.valToPos(edges[j + 1], "y", true);
              ctx.fillStyle = colour(Math.log1p(row[j]) / logMax);
              ctx.fillRect(x0, y1, Math.max(1, x1 - x0 + 0.5), Math.max(1, y0 - y1 + 0.5));
            }
          }
        }],
        setCursor: [function (u) {
          var l = u.cursor.left, t = u.cursor.top;
          if (l == null || l < 0) { out.textContent = "\u00a0"; return; }
          var x = u.posToVal(l, "x"), y = u.posToVal(t, "y");
          var i = Math.floor(x / spec.interval), j = -1;
          for (var k = 0; k < edges.length - 1; k++) if (y >= edges[k] && y < edges[k + 1]) j = k;
          if (i < 0 || i >= spec.counts.length || j < 0) { out.textContent = "\u00a0"; return; }
          out.textContent = (spec.counts[i][j] || 0) + " " + spec.unit + ": " + fmt(i * spec.interval) + "\u2013"
            + fmt((i + 1) * spec.interval) + " s, " + fmt(edges[j]) + "\u2013" + fmt(edges[j + 1]) + " ms";
        }]
      }
    };
    var u = new uPlot(opts, [[0, T], [null, null]], el);
    scaleBar(fig, spec);
    return u;
  }

  function timeline(spec, el, fig) {
    var rows = spec.rows; // [send s, first token s | null, end s, index, ok (1/0), output tokens]
    if (!rows.length) {
      el.textContent = "no data";
      return;
    }
    var T = 0;
    rows.forEach(function (r) { T = Math.max(T, r[2]); });
    var out = readout(fig);
    var n = rows.length;
    var opts = {
      width: WIDTH, height: Math.max(HEIGHT, Math.min(600, 40 + n * 2)),
      scales: { x: { time: false, range: [0, T > 0 ? T : 1] }, y: { range: [0, n] } },
      axes: [{ label: "time since the run started (s)", values: ticks },
             { label: "request (by send time)", values: ticks, size: 60 }],
      series: [{ label: "time" }, { label: "requests", show: false }],
      legend: { show: false },
      cursor: { drag: { x: true, y: false }, points: { show: false } },
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx;
          for (var k = 0; k < n; k++) {
            var r = rows[k];
            var y0 = u.valToPos(k, "y", true), y1 = u.valToPos(k + 1, "y", true);
            var h = Math.max(1, y0 - y1 - 0.5);
            var xs = u.valToPos(r[0], "x", true), xf = u.valToPos(r[1] == null ? r[2] : r[1], "x", true),
              xe = u.valToPos(r[2], "x", true);
            ctx.fillStyle = r[4] ? "#9ecae1" : "#ef4444";
            ctx.fillRect(xs, y1, Math.max(1, xf - xs), h);
            if (r[1] != null && r[6]) {
              // decoding coloured by each inter-token gap against the ITL thresholds, as vLLM's timeline
              r[6].forEach(function (seg) {
                var a = u.valToPos(seg[0], "x", true), z = u.valToPos(seg[1], "x", true);
                ctx.fillStyle = ITL_COLORS[seg[2]];
                ctx.fillRect(a, y1, Math.max(1, z - a), h);
              });
            } else if (r[1] != null) {
              ctx.fillStyle = "#08519c";
              ctx.fillRect(xf, y1, Math.max(1, xe - xf), h);
            }
          }
        }],
        setCursor: [function (u) {
          var t = u.cursor.top;
          if (t == null || t < 0) { out.textContent = "\u00a0"; return; }
          var k = Math.floor(u.posToVal(t, "y"));
          if (k < 0 || k >= n) { out.textContent = "\u00a0"; return; }
          var r = rows[k];
          out.textContent = "request #" + r[3] + (r[4] ? "" : " (failed)") + ": sent at " + fmt(r[0]) + " s, "
            + (r[1] == null ? "no first token" : "first token after " + fmt((r[1] - r[0]) * 1000) + " ms")
            + ", ended after " + fmt((r[2] - r[0]) * 1000) + " ms" + (r[5] != null ? ", " + r[5] + " output tokens" : "");
        }]
      }
    };
    return new uPlot(opts, [[0, T], [null, null]], el);
  }

  var DRAW = { line: line, heatmap: heatmap, timeline: timeline };
  document.querySelectorAll("figure.chart").forEach(function (fig) {
    var el = fig.querySelector(".plot");
    try {
      var spec = JSON.parse(fig.querySelector("script.chart-data").textContent);
      DRAW[spec.type](spec, el, fig);
      fig.setAttribute("data-rendered", "true");
    } catch (e) {
      el.textContent = "this chart could not be drawn: " + e;
      fig.setAttribute("data-rendered", "failed");
      console.error("infermark chart", e);
    }
  });
})();
