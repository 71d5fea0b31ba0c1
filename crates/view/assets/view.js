// msctp view: the page's own script (map, time series, marks, live feed).
// Data: window.MSCTP_DATA (crates/view/src/data.rs, ViewData); live:
// window.MSCTP_LIVE is the path of a server-sent event stream or null.
(function () {
  'use strict';
  var D = window.MSCTP_DATA;
  var status = { errors: 0, messages: [] };
  window.addEventListener('error', function (e) {
    status.errors++;
    status.messages.push(String(e.message));
    writeStatus();
  });
  var consoleError = console.error;
  console.error = function () {
    status.errors++;
    status.messages.push(Array.prototype.join.call(arguments, ' '));
    writeStatus();
    return consoleError.apply(console, arguments);
  };
  var t0 = performance.now();

  var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf',
    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
  var CATS = {
    handover: { color: '#d62728', label: 'handover decisions' },
    asconf: { color: '#9467bd', label: 'ASCONF / addresses' },
    path: { color: '#8c564b', label: 'path state' },
    timeout: { color: '#ff7f0e', label: 'T3 timeouts' },
    fast_rtx: { color: '#e377c2', label: 'fast retransmits' },
    link: { color: '#17becf', label: 'link layer / network' },
    baseline: { color: '#2ca02c', label: 'baselines (MIP, FMIPv6, TCP handoff)' },
    other: { color: '#7f7f7f', label: 'other association events' }
  };
  var shown = {};
  Object.keys(CATS).forEach(function (k) { shown[k] = k !== 'other'; });

  var app = document.getElementById('app');
  function el(tag, attrs, parent) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
    });
    if (parent) parent.appendChild(e);
    return e;
  }

  // ---- layout ------------------------------------------------------------
  var head = el('header', {}, app);
  el('h1', { text: D.title }, head);
  var ctl = el('div', { class: 'controls' }, head);
  var play = el('button', { id: 'play', text: '▶ play' }, ctl);
  var speed = el('select', { id: 'speed' }, ctl);
  [1, 5, 20, 60].forEach(function (s) {
    var o = el('option', { value: String(s), text: s + '×' }, speed);
    if (s === 5) o.selected = true;
  });
  var slider = el('input', { id: 'slider', type: 'range', min: '0', step: '0.001', value: '0' }, ctl);
  var tlabel = el('span', { id: 'tlabel', text: 't = 0.000 s' }, ctl);
  var zoomSel = el('select', { id: 'zoomto' }, ctl);
  el('option', { value: '', text: 'zoom: 200 ms around…' }, zoomSel);
  var reset = el('button', { id: 'reset', text: 'whole run' }, ctl);
  var legend = el('div', { class: 'cats' }, head);
  Object.keys(CATS).forEach(function (k) {
    var l = el('label', {}, legend);
    var c = el('input', { type: 'checkbox' }, l);
    c.checked = shown[k];
    c.addEventListener('change', function () { shown[k] = c.checked; redrawAll(); });
    var sw = el('span', { class: 'swatch' }, l);
    sw.style.background = CATS[k].color;
    l.appendChild(document.createTextNode(CATS[k].label));
  });
  var main = el('div', { class: 'main' }, app);
  var mapBox = el('div', { class: 'map', id: 'map' }, main);
  var charts = el('div', { class: 'charts', id: 'charts' }, main);
  var tip = el('div', { class: 'tip', id: 'tip' }, document.body);
  var statusEl = el('pre', { id: 'status' }, document.body);

  function writeStatus() {
    if (!statusEl) return;
    statusEl.setAttribute('data-errors', String(status.errors));
    statusEl.textContent = JSON.stringify(status);
  }

  // ---- time -----------------------------------------------------------------
  function lastTime() {
    var m = D.duration_s || 0;
    function scan(list) {
      (list || []).forEach(function (s) { if (s.t.length) m = Math.max(m, s.t[s.t.length - 1]); });
    }
    scan(D.paths); scan(D.goodput); scan(D.delays); scan(D.queues);
    return m;
  }
  var tEnd = lastTime();
  var cur = 0;
  slider.max = String(tEnd);

  // ---- the map -------------------------------------------------------------
  var map = null;
  var mobiles = (D.map && D.map.mobiles) || [];
  var cells = (D.map && D.map.cells) || [];
  function position(wp, t) {
    if (!wp.length) return null;
    if (t <= wp[0][0]) return [wp[0][1], wp[0][2]];
    var lo = 0, hi = wp.length - 1;
    if (t >= wp[hi][0]) return [wp[hi][1], wp[hi][2]];
    while (hi - lo > 1) {
      var mid = (lo + hi) >> 1;
      if (wp[mid][0] <= t) lo = mid; else hi = mid;
    }
    var a = wp[lo], b = wp[hi];
    var f = b[0] > a[0] ? (t - a[0]) / (b[0] - a[0]) : 0;
    return [a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2])];
  }
  function fmtRate(bps) {
    return bps >= 1e6 ? (bps / 1e6).toFixed(bps % 1e6 ? 1 : 0) + ' Mbit/s' : (bps / 1e3).toFixed(0) + ' kbit/s';
  }
  function buildMap() {
    if (!cells.length && !mobiles.length) {
      el('p', { text: 'No map (a live transfer, or a run without cells).' }, mapBox);
      return;
    }
    var xs = [], ys = [];
    cells.forEach(function (c) {
      xs.push(c.x_m - c.radius_m, c.x_m + c.radius_m);
      ys.push(c.y_m - c.radius_m, c.y_m + c.radius_m);
    });
    mobiles.forEach(function (m) {
      m.waypoints.forEach(function (w) { xs.push(w[1]); ys.push(w[2]); });
    });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var W = 440, H = 440;
    // Same metres per pixel on both axes.
    var span = Math.max(x1 - x0, (y1 - y0) * W / H, 1) * 1.08;
    var cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    var xr = [cx - span / 2, cx + span / 2];
    var yr = [cy - span * H / W / 2, cy + span * H / W / 2];
    map = new uPlot({
      title: 'map (m)',
      width: W, height: H,
      scales: { x: { time: false, range: function () { return xr; } },
                y: { range: function () { return yr; } } },
      legend: { show: false },
      cursor: { show: false },
      series: [{}, { stroke: 'transparent', points: { show: false } }],
      axes: [{ label: 'x (m)' }, { label: 'y (m)', size: 60 }],
      hooks: { draw: [drawMap] }
    }, [xr, yr], mapBox);
  }
  function drawMap(u) {
    var c = u.ctx, dpr = window.devicePixelRatio || 1;
    function px(x, y) { return [u.valToPos(x, 'x', true), u.valToPos(y, 'y', true)]; }
    var mpp = Math.abs(u.valToPos(1, 'x', true) - u.valToPos(0, 'x', true));
    c.save();
    var here = mobiles.map(function (m) { return position(m.waypoints, cur); });
    cells.forEach(function (cell, i) {
      var p = px(cell.x_m, cell.y_m);
      var inside = here.some(function (h) {
        return h && Math.hypot(h[0] - cell.x_m, h[1] - cell.y_m) <= cell.radius_m;
      });
      c.beginPath();
      c.arc(p[0], p[1], cell.radius_m * mpp, 0, 2 * Math.PI);
      c.fillStyle = COLORS[i % COLORS.length] + (inside ? '33' : '14');
      c.fill();
      c.strokeStyle = COLORS[i % COLORS.length];
      c.lineWidth = (inside ? 2.5 : 1) * dpr;
      c.stroke();
      c.fillStyle = '#222';
      c.font = (12 * dpr) + 'px sans-serif';
      c.fillText(cell.name + ' ' + fmtRate(cell.rate_bps) + ', r ' + cell.radius_m + ' m',
        p[0] + 4 * dpr, p[1] - 4 * dpr);
    });
    mobiles.forEach(function (m, i) {
      c.beginPath();
      m.waypoints.forEach(function (w, k) {
        var p = px(w[1], w[2]);
        if (k) c.lineTo(p[0], p[1]); else c.moveTo(p[0], p[1]);
      });
      c.strokeStyle = '#555';
      c.setLineDash([4 * dpr, 3 * dpr]);
      c.lineWidth = dpr;
      c.stroke();
      c.setLineDash([]);
      var h = here[i];
      if (h) {
        var p = px(h[0], h[1]);
        c.beginPath();
        c.arc(p[0], p[1], 6 * dpr, 0, 2 * Math.PI);
        c.fillStyle = '#000';
        c.fill();
        c.fillText(m.name, p[0] + 8 * dpr, p[1] + 14 * dpr);
      }
    });
    c.restore();
    statusEl.setAttribute('data-mobile', JSON.stringify(here));
  }

  // ---- time series ---------------------------------------------------------
  var plots = [];
  var syncing = false;
  function visibleMarks() {
    return (D.marks || []).filter(function (m) { return shown[m.cat]; });
  }
  function drawMarks(u) {
    var c = u.ctx, dpr = window.devicePixelRatio || 1;
    var top = u.bbox.top, h = u.bbox.height;
    var x0 = u.scales.x.min, x1 = u.scales.x.max;
    c.save();
    c.lineWidth = dpr;
    visibleMarks().forEach(function (m) {
      if (m.t < x0 || m.t > x1) return;
      var x = Math.round(u.valToPos(m.t, 'x', true)) + 0.5;
      c.strokeStyle = CATS[m.cat].color;
      c.globalAlpha = 0.75;
      c.beginPath();
      c.moveTo(x, top);
      c.lineTo(x, top + h);
      c.stroke();
    });
    c.restore();
  }
  function placeNow(u) {
    var x = u.valToPos(cur, 'x');
    u._now.style.display = (cur >= u.scales.x.min && cur <= u.scales.x.max) ? 'block' : 'none';
    u._now.style.left = x + 'px';
  }
  function onScale(u, key) {
    if (key !== 'x' || syncing) return;
    syncing = true;
    plots.forEach(function (p) {
      if (p !== u) p.setScale('x', { min: u.scales.x.min, max: u.scales.x.max });
    });
    syncing = false;
  }
  function onCursor(u) {
    var left = u.cursor.left;
    if (left == null || left < 0) { tip.style.display = 'none'; return; }
    var near = visibleMarks().filter(function (m) {
      var x = u.valToPos(m.t, 'x');
      return Math.abs(x - left) <= 4;
    });
    if (!near.length) { tip.style.display = 'none'; return; }
    tip.textContent = '';
    near.slice(0, 8).forEach(function (m) {
      var line = el('div', {}, tip);
      var sw = el('span', { class: 'swatch' }, line);
      sw.style.background = CATS[m.cat].color;
      line.appendChild(document.createTextNode(
        m.t.toFixed(6) + ' s  ' + m.source + '  ' + m.kind + (m.detail ? '  ' + m.detail : '')));
    });
    if (near.length > 8) el('div', { text: '… ' + (near.length - 8) + ' more' }, tip);
    var r = u.over.getBoundingClientRect();
    tip.style.left = (window.scrollX + r.left + left + 12) + 'px';
    tip.style.top = (window.scrollY + r.top + (u.cursor.top || 0) + 12) + 'px';
    tip.style.display = 'block';
    statusEl.setAttribute('data-tip', tip.textContent);
  }
  // One chart: `groups` is a list of series (data.rs Series), `col` the
  // column to draw, `stepped` for values that hold until the next change.
  function chart(title, unit, groups, col, stepped, scale) {
    var tables = [], series = [{ label: 't (s)' }];
    groups.forEach(function (g, i) {
      var ys = g.cols[col];
      if (!ys) return;
      tables.push([g.t, ys.map(function (v) { return v == null ? null : v * (scale || 1); })]);
      series.push({
        label: g.name,
        stroke: COLORS[i % COLORS.length],
        width: 1.25,
        spanGaps: true,
        points: { show: false },
        paths: stepped ? uPlot.paths.stepped({ align: 1 }) : undefined
      });
    });
    if (!tables.length) return null;
    var data = tables.length === 1 ? tables[0] : uPlot.join(tables);
    var box = el('div', { class: 'chart' }, charts);
    var u = new uPlot({
      title: title,
      width: Math.max(600, charts.clientWidth - 10), height: 190,
      scales: { x: { time: false } },
      series: series,
      axes: [{}, { label: unit, size: 70 }],
      cursor: { sync: { key: 'msctp' }, drag: { x: true, y: false } },
      hooks: { draw: [drawMarks, placeNow], setScale: [onScale], setCursor: [onCursor] }
    }, data, box);
    u._groups = groups; u._col = col; u._scale = scale || 1;
    u._now = el('div', { class: 'now' }, u.over);
    plots.push(u);
    placeNow(u);
    return u;
  }
  function buildCharts() {
    charts.textContent = '';
    plots = [];
    var src = D.paths_traced ? 'every change' : 'samples';
    if (D.decimated_from) src += '; extremes of ' + D.decimated_from + ' rows';
    chart('cwnd per path (' + src + ')', 'bytes', D.paths, 'cwnd', true);
    chart('ssthresh per path', 'bytes', D.paths, 'ssthresh', true);
    chart('flight size per path', 'bytes', D.paths, 'flight', true);
    chart('SRTT per path', 'ms', D.paths, 'srtt_ms', true);
    chart('goodput per flow', 'Mbit/s', D.goodput, 'goodput_bps', true, 1e-6);
    chart('one-way delay per message', 'ms', D.delays, 'delay_ms', false);
    chart('jitter (RFC 3550) per message', 'ms', D.delays, 'jitter_ms', false);
    chart('queue length', 'packets', D.queues, 'packets', true);
    if (!plots.length) el('p', { text: 'No series yet.' }, charts);
  }

  // ---- controls -----------------------------------------------------------
  function setTime(t) {
    cur = Math.max(0, Math.min(tEnd, t));
    slider.value = String(cur);
    tlabel.textContent = 't = ' + cur.toFixed(3) + ' s';
    if (map) map.redraw(false, false);
    plots.forEach(placeNow);
    statusEl.setAttribute('data-t', cur.toFixed(3));
  }
  function zoom(a, b) {
    plots.forEach(function (p) { p.setScale('x', { min: a, max: b }); });
  }
  function redrawAll() { plots.forEach(function (p) { p.redraw(false, false); }); }
  slider.addEventListener('input', function () { setTime(parseFloat(slider.value)); });
  var playing = false, last = 0;
  function frame(ts) {
    if (!playing) return;
    if (last) setTime(cur + (ts - last) / 1000 * parseFloat(speed.value));
    last = ts;
    if (cur >= tEnd) { toggle(); return; }
    requestAnimationFrame(frame);
  }
  function toggle() {
    playing = !playing;
    play.textContent = playing ? '❚❚ pause' : '▶ play';
    last = 0;
    if (playing) requestAnimationFrame(frame);
  }
  play.addEventListener('click', toggle);
  reset.addEventListener('click', function () { zoom(0, tEnd); });
  function fillZoomList() {
    while (zoomSel.options.length > 1) zoomSel.remove(1);
    (D.marks || []).filter(function (m) { return m.cat === 'handover'; }).slice(0, 200)
      .forEach(function (m) {
        el('option', { value: String(m.t), text: m.t.toFixed(3) + ' s ' + m.source + ' ' + m.detail }, zoomSel);
      });
  }
  zoomSel.addEventListener('change', function () {
    var t = parseFloat(zoomSel.value);
    if (isFinite(t)) { zoom(t - 0.1, t + 0.1); setTime(t); }
  });

  // ---- live feed -----------------------------------------------------------
  // Each message: {t, paths: [{name, cwnd, ssthresh, flight, srtt_ms,
  // rto_ms}], goodput: [{name, goodput_bps}], marks: [Mark]}.
  function append(list, name, t, vals) {
    var s = null;
    list.forEach(function (x) { if (x.name === name) s = x; });
    if (!s) { s = { name: name, t: [], cols: {} }; list.push(s); }
    s.t.push(t);
    Object.keys(vals).forEach(function (k) {
      if (vals[k] === undefined) return;
      if (!s.cols[k]) s.cols[k] = s.t.slice(0, -1).map(function () { return null; });
      s.cols[k].push(vals[k]);
    });
  }
  var dirty = false;
  // `#snapshot=N` (headless tests, screenshots): close the stream after N
  // messages, so that the browser sees its network go idle.
  var snap = /[#&]snapshot=([0-9]+)/.exec(location.hash);
  function live(path) {
    var es = new EventSource(path);
    var got = 0;
    es.onmessage = function (ev) {
      got++;
      if (snap && got >= parseInt(snap[1], 10)) es.close();
      var m = JSON.parse(ev.data);
      (m.paths || []).forEach(function (p) {
        append(D.paths, p.name, m.t, { cwnd: p.cwnd, ssthresh: p.ssthresh, flight: p.flight,
          srtt_ms: p.srtt_ms, rto_ms: p.rto_ms });
      });
      (m.goodput || []).forEach(function (g) {
        append(D.goodput, g.name, m.t, { goodput_bps: g.goodput_bps });
      });
      (m.marks || []).forEach(function (k) { D.marks.push(k); });
      tEnd = Math.max(tEnd, m.t);
      dirty = true;
    };
    setInterval(function () {
      if (!dirty) return;
      dirty = false;
      var n = plots.length;
      var wasFollowing = !n || plots[0].scales.x.max >= tEnd - 1.5;
      slider.max = String(tEnd);
      if (n !== D.paths.length) buildCharts();
      plots.forEach(function (u) {
        var tables = [];
        u._groups.forEach(function (g) {
          if (g.cols[u._col]) tables.push([g.t, g.cols[u._col].map(function (v) {
            return v == null ? null : v * u._scale; })]);
        });
        if (!tables.length) return;
        u.setData(tables.length === 1 ? tables[0] : uPlot.join(tables), false);
      });
      if (wasFollowing) zoom(Math.max(0, tEnd - 30), tEnd);
      fillZoomList();
      setTime(tEnd);
      statusEl.setAttribute('data-live-points', String(D.paths.reduce(function (a, s) {
        return a + s.t.length; }, 0)));
      statusEl.setAttribute('data-live-handovers', String(D.marks.filter(function (k) {
        return k.cat === 'handover'; }).length));
    }, 250);
  }

  // ---- start ---------------------------------------------------------------
  buildMap();
  buildCharts();
  fillZoomList();
  var h = /[#&]t=([0-9.]+)/.exec(location.hash);
  setTime(h ? parseFloat(h[1]) : 0);
  var z = /[#&]zoom=([0-9.]+),([0-9.]+)/.exec(location.hash);
  if (z) zoom(parseFloat(z[1]), parseFloat(z[2])); else if (tEnd > 0) zoom(0, tEnd);
  if (window.MSCTP_LIVE) live(window.MSCTP_LIVE);
  // Self-test (`#selftest`, the headless-browser test): step the slider
  // through the run and record where the mobile is at each step, then
  // zoom on the first handover and hover its mark.
  function selftest(done) {
    status.steps = [];
    [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
      slider.value = String(f * tEnd);
      slider.dispatchEvent(new Event('input'));
      status.steps.push({ t: cur, mobile: mobiles.map(function (m) { return position(m.waypoints, cur); }),
        slider: parseFloat(slider.value) });
    });
    var hm = (D.marks || []).filter(function (m) { return m.cat === 'handover'; })[0];
    if (!hm || !plots.length) { done(); return; }
    zoom(hm.t - 0.1, hm.t + 0.1);
    setTime(hm.t);
    setTimeout(function () {
      var u = plots[0];
      status.zoom = [u.scales.x.min, u.scales.x.max];
      u.setCursor({ left: u.valToPos(hm.t, 'x'), top: 10 });
      setTimeout(function () { status.tip = tip.textContent; done(); }, 50);
    }, 50);
  }
  function ready() {
    status.ready = true;
    status.ready_ms = Math.round(performance.now() - t0);
    writeStatus();
  }
  status.init_ms = Math.round(performance.now() - t0);
  // Since the navigation started: the page is open and drawn.
  status.opened_ms = Math.round(performance.now());
  status.plots = plots.length;
  status.marks = (D.marks || []).length;
  if (/selftest/.test(location.hash)) selftest(ready); else ready();
})();
