// The macemc report page: swim lanes of a path, drawn lazily in chunks of
// rows as they scroll into view, and the state panel of the selected step.
// The data (the script element macemc-data) is written by package
// htmlreport; see pathData there for its layout.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('macemc-data').textContent);
  var S = D.strs;
  var MARKER = {};       // the strings that stand for lines a view leaves out
  (D.markers || []).forEach(function (id) { MARKER[id] = true; });
  var NN = D.nodes.length;
  // The state's sections: every node, every monitor, then the network.
  var TITLES = D.nodes.concat(D.monitors || [], ['network']), NET = TITLES.length - 1;
  var EVW = 5, MSGW = 7, TMW = 3, NTW = 3, PRW = 3;
  var KIND = ['app', 'message', 'datagram', 'timer', 'connerror', 'reset', 'break', 'drop', 'crash', 'duplicate', 'partition', 'heal'];
  var ROW = 22, CHUNK = 100, LONG = 40, CKPT = 512;
  // Lanes share the width the event column leaves, within bounds.
  var GUT = 140, LANE = Math.max(96, Math.min(210, Math.floor(((document.getElementById('lanes-scroll') || {}).clientWidth - GUT - 300) / Math.max(NN, 1))));
  var DESCX = GUT + NN * LANE + 8, WIDTH = DESCX + 1100;
  var COLOR = { msg: '#1f4e9c', dgram: '#1b7f8c', drop: '#c0392b', flight: '#8a8f98', timer: '#b35c00', app: '#27ae60', shared: '#2e9e5b', cycle: '#7d3cbd', crash: '#222', split: '#8e44ad' };

  var scroller = document.getElementById('lanes-scroll');
  var lanesEl = document.getElementById('lanes');
  var stateEl = document.getElementById('state');

  document.querySelectorAll('button.copy').forEach(function (b) {
    b.addEventListener('click', function () {
      var text = b.dataset.copy;
      var done = function () { b.textContent = 'copied'; setTimeout(function () { b.textContent = 'copy'; }, 1200); };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () { selectText(b.previousElementSibling); });
      } else { selectText(b.previousElementSibling); }
    });
  });
  function selectText(el) {
    var r = document.createRange(); r.selectNodeContents(el);
    var s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
  }
  function ready() {
    document.documentElement.dataset.readyMs = String(Math.round(performance.now()));
    document.documentElement.dataset.ready = 'true';
  }
  if (!scroller || !lanesEl || !D.paths.length) { ready(); return; }

  var cur = null;        // the path shown
  var curIndex = -1;
  var sel = -1;          // the selected step
  var sections = [];     // the drawn row ranges of the path: head, tail
  var cmpLive = false;   // the state panel compares with the other path
  var userOpen = {};     // section index -> open, as the user left it
  var observer = new IntersectionObserver(onIntersect, { root: scroller, rootMargin: '900px 0px' });

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'; });
  }
  function fmt(n) { return n.toLocaleString('en-US'); }
  function lx(i) { return GUT + i * LANE + LANE / 2; }

  // prep indexes a path once: what happens at each step.
  function prep(p) {
    if (p.sendsAt) { return p; }
    var n = p.steps, i;
    p.sendsAt = new Array(n + 1); p.endsAt = new Array(n + 1);
    p.timersAt = new Array(n + 1); p.notesAt = new Array(n + 1);
    function push(a, k, v) { (a[k] || (a[k] = [])).push(v); }
    for (i = 0; i < p.msgs.length; i += MSGW) {
      push(p.sendsAt, p.msgs[i], i);
      if (p.msgs[i + 3] >= 0) { push(p.endsAt, p.msgs[i + 3], i); }
    }
    for (i = 0; i < p.timers.length; i += TMW) { push(p.timersAt, p.timers[i], i); }
    for (i = 0; i < p.notes.length; i += NTW) { push(p.notesAt, p.notes[i], i); }
    p.diffAt = new Int32Array(n + 2).fill(-1);
    for (i = 0; i < p.diffs.length; i += 5 + p.diffs[i + 4]) {
      if (p.diffAt[p.diffs[i]] < 0) { p.diffAt[p.diffs[i]] = i; }
    }
    p.viewAt = new Int32Array(n + 2).fill(-1);
    for (i = 0; i < p.views.length; i += 5 + 2 * p.views[i + 4]) {
      if (p.viewAt[p.views[i]] < 0) { p.viewAt[p.views[i]] = i; }
    }
    var np = D.props.length;
    p.pstate = new Uint8Array((n + 1) * np);
    var st = new Uint8Array(np), j = 0, s;
    for (s = 0; s <= n; s++) {
      for (; j < p.props.length && p.props[j] === s; j += PRW) { st[p.props[j + 1]] = p.props[j + 2]; }
      p.pstate.set(st, s * np);
    }
    p.live = new Uint8Array(n + 1);
    var hasLive = D.props.some(function (x) { return x.kind === 'liveness'; });
    for (s = 0; s <= n && hasLive; s++) {
      var ok = 1;
      for (j = 0; j < np; j++) { if (D.props[j].kind === 'liveness' && p.pstate[s * np + j] !== 1) { ok = 0; break; } }
      p.live[s] = ok;
    }
    p.ckpt = {};
    return p;
  }

  // stateAt returns every section's lines (string indexes) after s steps.
  function stateAt(p, s) {
    var base = Math.floor(s / CKPT) * CKPT;
    while (base > 0 && !p.ckpt[base]) { base -= CKPT; }
    var st = (base === 0 ? p.init : p.ckpt[base]).map(function (a) { return a.slice(); });
    for (var t = base + 1; t <= s; t++) {
      var off = p.diffAt[t];
      while (off >= 0 && off < p.diffs.length && p.diffs[off] === t) {
        var k = p.diffs[off + 1], at = p.diffs[off + 2], del = p.diffs[off + 3], nins = p.diffs[off + 4];
        var args = [at, del].concat(p.diffs.slice(off + 5, off + 5 + nins));
        Array.prototype.splice.apply(st[k], args);
        off += 5 + nins;
      }
      if (t % CKPT === 0 && !p.ckpt[t]) { p.ckpt[t] = st.map(function (a) { return a.slice(); }); }
    }
    return st;
  }

  // lineDiff diffs two arrays of line indexes: [op, line] pairs, op one of
  // '=', '-', '+'.
  function lineDiff(a, b) {
    var pre = 0, suf = 0, out = [], i, j;
    while (pre < a.length && pre < b.length && a[pre] === b[pre]) { pre++; }
    while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) { suf++; }
    for (i = 0; i < pre; i++) { out.push(['=', a[i]]); }
    var x = a.slice(pre, a.length - suf), y = b.slice(pre, b.length - suf);
    if (x.length * y.length > 250000) {
      x.forEach(function (l) { out.push(['-', l]); });
      y.forEach(function (l) { out.push(['+', l]); });
    } else {
      var m = x.length, n = y.length, L = [];
      for (i = 0; i <= m; i++) { L.push(new Int32Array(n + 1)); }
      for (i = m - 1; i >= 0; i--) {
        for (j = n - 1; j >= 0; j--) { L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]); }
      }
      i = 0; j = 0;
      while (i < m || j < n) {
        if (i < m && j < n && x[i] === y[j]) { out.push(['=', x[i]]); i++; j++; }
        else if (i < m && (j === n || L[i + 1][j] >= L[i][j + 1])) { out.push(['-', x[i]]); i++; }
        else { out.push(['+', y[j]]); j++; }
      }
    }
    for (i = a.length - suf; i < a.length; i++) { out.push(['=', a[i]]); }
    return out;
  }

  // excerpts returns the excerpts of step s by section: what it changed in
  // a section whose view is cut (see excerpts in cut.go).
  function excerpts(p, s) {
    var out = {}, off = p.viewAt[s];
    while (off >= 0 && off < p.views.length && p.views[off] === s) {
      var n = p.views[off + 4];
      (out[p.views[off + 1]] || (out[p.views[off + 1]] = [])).push(off);
      off += 5 + 2 * n;
    }
    return out;
  }

  // withExcerpts returns a view's lines as [op, line] pairs with the
  // excerpts at offsets offs in place of the pieces they replace.
  function withExcerpts(p, lines, offs) {
    var ops = lines.map(function (l) { return ['=', l]; });
    for (var i = offs.length - 1; i >= 0; i--) {
      var o = offs[i], at = p.views[o + 2], del = p.views[o + 3], n = p.views[o + 4], add = [];
      for (var j = 0; j < n; j++) { add.push(['=-+'[p.views[o + 5 + 2 * j]], p.views[o + 6 + 2 * j]]); }
      Array.prototype.splice.apply(ops, [at, del].concat(add));
    }
    return ops;
  }

  function ev(p, s) { var o = (s - 1) * EVW; return { kind: p.ev[o], node: p.ev[o + 1], peer: p.ev[o + 2], desc: S[p.ev[o + 3]], label: S[p.ev[o + 4]] }; }
  function inCycle(p, s) { return p.cycleLen > 0 && s > p.cycleStart && s <= p.cycleStart + p.cycleLen ? s - p.cycleStart : 0; }

  // ---- the lanes ----

  function showPath(index, step) {
    curIndex = index;
    cur = prep(D.paths[index]);
    document.querySelectorAll('#tabs .tab').forEach(function (t) { t.setAttribute('aria-selected', String(+t.dataset.path === index)); });
    document.querySelectorAll('#marks .mark').forEach(function (m) { m.hidden = +m.dataset.path !== index; });
    observer.disconnect();
    lanesEl.innerHTML = '';
    sections = [];
    var headEnd = cur.tail >= 0 ? cur.tail : cur.steps;
    sections.push(makeSection(0, headEnd));
    if (cur.tail >= 0) {
      lanesEl.appendChild(tailRow());
      var tailSec = makeSection(cur.tail + 1, cur.steps);
      tailSec.el.hidden = true;
      sections.push(tailSec);
    }
    if (cur.fail > cur.steps) {
      // A hung handler's step: the path ends before it, with no state after it.
      var hung = document.createElement('div');
      hung.className = 'hung-row';
      hung.id = 'hung-row';
      hung.innerHTML = '<b>step ' + fmt(cur.fail) + ' did not return:</b> ' + esc(cur.failText.split('\n')[0]) + '. The path ends before it: this step has no state after it.';
      lanesEl.appendChild(hung);
    }
    var gi = document.getElementById('goto');
    if (gi) { gi.max = String(cur.steps); }
    select(Math.max(0, Math.min(step, cur.steps)), true);
  }

  function makeSection(first, last) {
    var sec = { first: first, last: last, el: document.createElement('div') };
    sec.el.className = 'section';
    for (var a = first; a <= last; a += CHUNK) {
      var c = document.createElement('div');
      var b = Math.min(last, a + CHUNK - 1);
      c.className = 'chunk';
      c.style.height = ((b - a + 1) * ROW) + 'px';
      c.style.width = WIDTH + 'px';
      c.dataset.a = a; c.dataset.b = b;
      c._sec = sec;
      sec.el.appendChild(c);
      observer.observe(c);
    }
    lanesEl.appendChild(sec.el);
    return sec;
  }

  function tailRow() {
    var p = cur, n = p.steps - p.tail, live = 0, s, i;
    for (s = p.tail + 1; s <= p.steps; s++) { live += p.live[s]; }
    var div = document.createElement('div');
    div.className = 'tail-row';
    div.id = 'tail-row';
    var top = '';
    for (i = 0; i < p.tailTop.length; i += 2) { top += '<li>' + fmt(p.tailTop[i + 1]) + ' &times; ' + esc(S[p.tailTop[i]]) + '</li>'; }
    div.innerHTML = '<div><b>Steps ' + fmt(p.tail + 1) + '&ndash;' + fmt(p.steps) + ' (' + fmt(n) + ' steps) are collapsed:</b> they only repeat kinds of events seen before' +
      (D.props.some(function (x) { return x.kind === 'liveness'; }) ? (live === 0 ? ', and no state among them is live.' : ' (' + fmt(live) + ' of their states are live).') : '.') +
      ' The most frequent:<ul>' + top + '</ul></div><button type="button" id="tail-toggle">show them</button>';
    div.querySelector('button').addEventListener('click', function () { setTail(sections[1].el.hidden); });
    return div;
  }

  function setTail(open) {
    if (sections.length < 2) { return; }
    sections[1].el.hidden = !open;
    document.getElementById('tail-toggle').textContent = open ? 'hide them' : 'show them';
  }

  function onIntersect(entries) {
    entries.forEach(function (e) {
      var c = e.target;
      if (e.isIntersecting) {
        if (!c._drawn) { drawChunk(c); }
      } else if (c._drawn) {
        c.innerHTML = ''; c._drawn = false;
      }
    });
  }

  // drawVisible draws the chunks in view now, without waiting for the
  // observer, so that a jump shows its rows at once.
  function drawVisible() {
    var top = scroller.scrollTop, bottom = top + scroller.clientHeight;
    sections.forEach(function (sec) {
      if (sec.el.hidden) { return; }
      for (var c = sec.el.firstChild; c; c = c.nextSibling) {
        var ct = c.offsetTop;
        if (!c._drawn && ct < bottom && ct + c.offsetHeight > top) { drawChunk(c); }
      }
    });
    var row = lanesEl.querySelector('.row[data-step="' + sel + '"]');
    if (row) { row.classList.add('sel'); }
  }

  function y(sec, s) { return (s - sec.first) * ROW + ROW / 2; }

  function drawChunk(c) {
    var sec = c._sec, p = cur, a = +c.dataset.a, b = +c.dataset.b, s, i, t;
    var top = (a - sec.first) * ROW, h = (b - a + 1) * ROW;
    var o = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + WIDTH + '" height="' + h + '" viewBox="0 ' + top + ' ' + WIDTH + ' ' + h + '">'];
    for (s = a; s <= b; s++) { o.push(rowBg(p, s, top + (s - a) * ROW)); }
    for (i = 0; i < NN; i++) { o.push('<line class="lane" x1="' + lx(i) + '" y1="' + top + '" x2="' + lx(i) + '" y2="' + (top + h) + '"/>'); }
    gutterBars(o, sec, p, a, b);
    // Messages: whole arrows when short and within the section, stubs otherwise.
    for (t = Math.max(sec.first, a - LONG); t <= b; t++) {
      (p.sendsAt[t] || []).forEach(function (m) { arrow(o, sec, p, m, a, b); });
    }
    for (t = a; t <= b; t++) {
      (p.endsAt[t] || []).forEach(function (m) {
        var s0 = p.msgs[m];
        if (s0 < sec.first || t - s0 > LONG) { stubIn(o, sec, p, m); }
      });
    }
    for (s = Math.max(a, 1); s <= b; s++) { glyph(o, sec, p, s); }
    if (a === 0) { o.push('<text class="desc" x="' + DESCX + '" y="' + (y(sec, 0) + 4) + '">the initial state: every node started</text>'); }
    o.push('</svg>');
    c.innerHTML = o.join('');
    c._drawn = true;
  }

  function rowBg(p, s, top) {
    var cls = 'row', tags = '', ci = inCycle(p, s), tx = 44;
    if (s === p.crit) { cls += ' crit'; }
    if (s === p.fail) { cls += ' fail'; }
    if (ci) { cls += ' cyc'; }
    if (s === sel) { cls += ' sel'; }
    function tag(text, color) { tags += '<text class="tag" x="' + tx + '" y="' + (top + 15) + '" fill="' + color + '">' + text + '</text>'; tx += text.length * 6 + 6; }
    if (s === p.crit) { tag('critical', '#c0392b'); }
    if (p.shared >= 0 && s === p.shared + 1) { tag(p.name === 'live' ? 'goes live way' : 'live diverges', COLOR.shared); }
    if (s === p.fail) { tag(p.stack ? 'panic' : 'fails', '#d35400'); }
    if (ci) { tag('cycle ' + ci + '/' + p.cycleLen, COLOR.cycle); }
    var title = s === 0 ? 'step 0: the initial state' : 'step ' + s + ': ' + ev(p, s).desc;
    var desc = '';
    if (s > 0) {
      desc = ev(p, s).desc;
      (p.timersAt[s] || []).forEach(function (t) { desc += ' \u00b7 ' + S[p.timers[t + 2]]; });
    }
    var live = p.live[s] ? '<circle cx="36" cy="' + (top + ROW / 2) + '" r="3.5" fill="' + COLOR.shared + '"><title>live: every liveness property holds</title></circle>' : '';
    return '<g class="' + cls + '" data-step="' + s + '"><title>' + esc(title) + '</title><rect class="bg" x="0" y="' + top + '" width="' + WIDTH + '" height="' + ROW + '" fill="transparent"/>' +
      '<text class="stepno" x="8" y="' + (top + 15) + '">' + s + '</text>' + live + tags +
      (desc ? '<text class="desc" x="' + DESCX + '" y="' + (top + 15) + '">' + esc(desc) + '</text>' : '') + '</g>';
  }

  // gutterBars draws the steps shared with the live path, the lasso's
  // bracket and the end of the bounded search.
  function gutterBars(o, sec, p, a, b) {
    var lo, hi;
    if (p.shared > 0) {
      lo = Math.max(a, 1); hi = Math.min(b, p.shared);
      if (lo <= hi) { o.push('<rect x="2" y="' + (y(sec, lo) - ROW / 2) + '" width="4" height="' + ((hi - lo + 1) * ROW) + '" fill="' + COLOR.shared + '"><title>steps 1-' + p.shared + ' are shared with the ' + (p.name === 'live' ? 'dead' : 'live') + ' path</title></rect>'); }
    }
    if (p.cycleLen > 0) {
      lo = Math.max(a, p.cycleStart + 1); hi = Math.min(b, p.cycleStart + p.cycleLen);
      if (lo <= hi) { o.push('<rect x="' + (GUT - 8) + '" y="' + (y(sec, lo) - ROW / 2 + 1) + '" width="3" height="' + ((hi - lo + 1) * ROW - 2) + '" fill="' + COLOR.cycle + '"><title>the lasso\'s cycle: steps ' + (p.cycleStart + 1) + '-' + (p.cycleStart + p.cycleLen) + '</title></rect>'); }
    }
    if (p.prefix > 0 && p.prefix >= a && p.prefix <= b && p.prefix < p.steps) {
      var yp = y(sec, p.prefix) + ROW / 2;
      o.push('<line x1="0" y1="' + yp + '" x2="' + WIDTH + '" y2="' + yp + '" stroke="#9aa3af" stroke-dasharray="2 3"><title>the ' + p.prefix + '-step prefix ends after step ' + p.prefix + '; the bounded search starts</title></line>');
    }
    if (p.depth > 0 && p.depth >= a && p.depth <= b && p.depth < p.steps) {
      var yy = y(sec, p.depth) + ROW / 2;
      o.push('<line x1="0" y1="' + yy + '" x2="' + WIDTH + '" y2="' + yy + '" stroke="#9aa3af" stroke-dasharray="6 4"><title>the bounded search ends after step ' + p.depth + '; a random walk goes on</title></line>');
    }
  }

  function msgStyle(flags) {
    var fate = flags & 3, dg = flags & 4;
    if (fate === 1 || fate === 2) { return { color: COLOR.drop, dash: '6 4', marker: 'mm-drop' }; }
    if (fate === 3) { return { color: COLOR.flight, dash: '2 4', marker: 'mm-flight' }; }
    return dg ? { color: COLOR.dgram, dash: '7 3', marker: 'mm-dgram' } : { color: COLOR.msg, dash: '', marker: 'mm-msg' };
  }

  function msgTitle(p, m) {
    var M = p.msgs, f = M[m + 4], fate = f & 3, e = M[m + 3];
    var t = ((f & 8) ? 'a copy of ' : '') + ((f & 4) ? 'datagram ' : '') + S[M[m + 5]] + ' from node ' + M[m + 1] + ' to node ' + M[m + 2] +
      ((f & 8) ? ', made at step ' : ', sent at step ') + M[m];
    if (fate === 0) { t += ', received at step ' + e; }
    if (fate === 1) { t += ', dropped at step ' + e; }
    if (fate === 2) { t += ', ' + lostWhy(p, m); }
    if (fate === 3) { t += ', still in flight at the end of the path'; }
    return esc(t);
  }

  // lostWhy says how a lost message was lost: flags 16 and 32 mark one
  // lost as it was sent; otherwise the event of the step that lost it.
  function lostWhy(p, m) {
    var M = p.msgs, f = M[m + 4], e = M[m + 3];
    if (f & 16) { return 'lost: node ' + M[m + 2] + ' is down'; }
    if (f & 32) { return 'lost: the network is partitioned'; }
    var k = KIND[ev(p, e).kind];
    if (k === 'crash') { return 'lost when node ' + ev(p, e).node + ' crashed at step ' + e; }
    if (k === 'partition') { return 'lost when the network partitioned at step ' + e; }
    return 'lost when the connection broke at step ' + e;
  }

  function endX(p, m) {
    var M = p.msgs, x1 = lx(M[m + 1]), x2 = lx(M[m + 2]), fate = M[m + 4] & 3;
    if (fate === 1) { return x2 - (x2 - x1) / 6; }
    if (fate === 2) { return (x1 + x2) / 2; }
    return x2;
  }

  function arrow(o, sec, p, m, a, b) {
    var M = p.msgs, s = M[m], e = M[m + 3];
    var long = e < 0 || e > sec.last || e - s > LONG;
    if (long) {
      if (s >= a && s <= b) { stubOut(o, sec, p, m); }
      return;
    }
    if (e < a) { return; }
    var st = msgStyle(M[m + 4]), x1 = lx(M[m + 1]), y1 = y(sec, s), x2 = endX(p, m), y2 = y(sec, e);
    var d = M[m + 1] === M[m + 2]
      ? 'M' + x1 + ' ' + y1 + ' C' + (x1 + 60) + ' ' + y1 + ' ' + (x1 + 60) + ' ' + y2 + ' ' + (x2 + 4) + ' ' + y2
      : 'M' + x1 + ' ' + y1 + ' L' + x2 + ' ' + y2;
    o.push('<g><title>' + msgTitle(p, m) + '</title><path d="' + d + '" fill="none" stroke="' + st.color + '" stroke-width="1.5"' + (st.dash ? ' stroke-dasharray="' + st.dash + '"' : '') + ' marker-end="url(#' + st.marker + ')"/>');
    var lxp = M[m + 1] === M[m + 2] ? x1 + 48 : (x1 + x2) / 2, lyp = (y1 + y2) / 2 - 3;
    o.push('<text class="lbl" x="' + lxp + '" y="' + lyp + '" text-anchor="middle" fill="' + st.color + '">' + esc(S[M[m + 6]]) + ((M[m + 4] & 8) ? ' (copy)' : '') + '</text></g>');
  }

  function stubOut(o, sec, p, m) {
    var M = p.msgs, s = M[m], e = M[m + 3], fate = M[m + 4] & 3;
    var st = msgStyle(M[m + 4]), x1 = lx(M[m + 1]), y1 = y(sec, s);
    var dir = M[m + 2] === M[m + 1] ? 1 : Math.sign(lx(M[m + 2]) - x1);
    var x2 = x1 + dir * Math.min(LANE * 0.45, Math.abs(lx(M[m + 2]) - x1) * 0.45 || 30), y2 = y1 + ROW * 0.3;
    var what = fate === 3 ? 'in flight at the end' : (fate === 0 ? 'received' : fate === 1 ? 'dropped' : 'lost') + ' at step ' + fmt(e);
    o.push('<g class="stub" data-goto="' + (e >= 0 ? e : '') + '"><title>' + msgTitle(p, m) + '</title><path d="M' + x1 + ' ' + y1 + ' L' + x2 + ' ' + y2 + '" stroke="' + st.color + '" stroke-width="1.5" stroke-dasharray="2 3" marker-end="url(#' + st.marker + ')"/>' +
      '<text class="lbl" x="' + (x2 + dir * 4) + '" y="' + (y2 + 3) + '" text-anchor="' + (dir < 0 ? 'end' : 'start') + '" fill="' + st.color + '">' + esc(S[M[m + 6]]) + ' \u2192 ' + what + '</text></g>');
  }

  function stubIn(o, sec, p, m) {
    var M = p.msgs, s = M[m], e = M[m + 3];
    var st = msgStyle(M[m + 4]), x2 = endX(p, m), y2 = y(sec, e), from = lx(M[m + 1]);
    var dir = M[m + 1] === M[m + 2] ? 1 : Math.sign(from - x2);
    var x1 = x2 + dir * Math.min(LANE * 0.45, Math.abs(from - x2) * 0.45 || 30), y1 = y2 - ROW * 0.3;
    o.push('<g class="stub" data-goto="' + s + '"><title>' + msgTitle(p, m) + '</title><path d="M' + x1 + ' ' + y1 + ' L' + x2 + ' ' + y2 + '" stroke="' + st.color + '" stroke-width="1.5" stroke-dasharray="2 3" marker-end="url(#' + st.marker + ')"/>' +
      '<text class="lbl" x="' + (x1 + dir * 4) + '" y="' + (y1 + 3) + '" text-anchor="' + (dir < 0 ? 'end' : 'start') + '" fill="' + st.color + '">' + esc(S[M[m + 6]]) + ' sent at step ' + fmt(s) + '</text></g>');
  }

  function glyph(o, sec, p, s) {
    var e = ev(p, s), x = lx(e.node), yy = y(sec, s), k = KIND[e.kind], lbl = '', col = '#333';
    switch (k) {
      case 'app': o.push('<circle cx="' + x + '" cy="' + yy + '" r="6" fill="' + COLOR.app + '"/>'); lbl = e.label; col = '#1e8449'; break;
      case 'message': o.push('<circle cx="' + x + '" cy="' + yy + '" r="4" fill="' + COLOR.msg + '"/>'); break;
      case 'datagram': o.push('<circle cx="' + x + '" cy="' + yy + '" r="4" fill="' + COLOR.dgram + '"/>'); break;
      case 'timer': o.push('<rect x="' + (x - 5) + '" y="' + (yy - 5) + '" width="10" height="10" fill="' + COLOR.timer + '"/>'); lbl = e.label; col = COLOR.timer; break;
      case 'connerror': o.push('<circle cx="' + x + '" cy="' + yy + '" r="5" fill="white" stroke="' + COLOR.drop + '" stroke-width="2"/>'); lbl = e.label; col = COLOR.drop; break;
      case 'reset': o.push('<text x="' + x + '" y="' + (yy + 6) + '" text-anchor="middle" font-size="18" font-weight="bold" fill="' + COLOR.drop + '">\u2715</text>'); lbl = 'reset'; col = COLOR.drop; break;
      case 'break':
        var xp = lx(e.peer);
        o.push('<line x1="' + x + '" y1="' + yy + '" x2="' + xp + '" y2="' + yy + '" stroke="' + COLOR.drop + '" stroke-width="3" stroke-dasharray="2 3"/>');
        o.push('<text class="lbl" x="' + ((x + xp) / 2) + '" y="' + (yy - 4) + '" text-anchor="middle" fill="' + COLOR.drop + '">connection ' + e.node + '\u2013' + e.peer + ' breaks</text>');
        break;
      case 'drop':
        var xd = lx(e.node) - (lx(e.node) - lx(e.peer)) / 6;
        o.push('<text x="' + xd + '" y="' + (yy + 5) + '" text-anchor="middle" font-size="15" font-weight="bold" fill="' + COLOR.drop + '">\u2715</text>');
        break;
      case 'crash':
        o.push('<rect x="' + (x - 7) + '" y="' + (yy - 7) + '" width="14" height="14" fill="' + COLOR.crash + '"/><text x="' + x + '" y="' + (yy + 5) + '" text-anchor="middle" font-size="13" font-weight="bold" fill="white">\u2715</text>');
        lbl = 'crash: down for good'; col = COLOR.crash;
        break;
      case 'duplicate':
        // The copy's arrow starts at the sender's lane.
        x = lx(e.peer);
        o.push('<circle cx="' + x + '" cy="' + yy + '" r="5" fill="white" stroke="' + COLOR.dgram + '" stroke-width="2"/><circle cx="' + (x + 3) + '" cy="' + (yy - 3) + '" r="5" fill="none" stroke="' + COLOR.dgram + '" stroke-width="1.5"/>');
        lbl = e.label; col = COLOR.dgram;
        if (NN > 1 && e.peer === NN - 1) { o.push('<text class="lbl" x="' + (x - 9) + '" y="' + (yy + 4) + '" text-anchor="end" fill="' + col + '">' + esc(lbl) + '</text>'); lbl = ''; }
        break;
      case 'partition':
      case 'heal':
        // Across every lane, with the side cut off named.
        var side = e.peer, x0 = lx(0) - LANE / 2 + 4, x1 = lx(NN - 1) + LANE / 2 - 4, ids = [];
        for (var j = 0; j < NN; j++) { if (Math.floor(side / Math.pow(2, j)) % 2 === 1) { ids.push(j); } }
        o.push('<line x1="' + x0 + '" y1="' + yy + '" x2="' + x1 + '" y2="' + yy + '" stroke="' + COLOR.split + '" stroke-width="' + (k === 'partition' ? 3 : 1.5) + '" stroke-dasharray="' + (k === 'partition' ? '10 4' : '2 4') + '"/>');
        ids.forEach(function (j) { o.push('<circle cx="' + lx(j) + '" cy="' + yy + '" r="4" fill="' + (k === 'partition' ? COLOR.split : 'white') + '" stroke="' + COLOR.split + '" stroke-width="1.5"/>'); });
        o.push('<text class="lbl" x="' + ((x0 + x1) / 2) + '" y="' + (yy - 4) + '" text-anchor="middle" fill="' + COLOR.split + '">' + esc(e.label) + '</text>');
        return;
    }
    // The last lane's labels go left, clear of the event column.
    var left = NN > 1 && e.node === NN - 1;
    if (lbl) { o.push('<text class="lbl" x="' + (left ? x - 9 : x + 9) + '" y="' + (yy + 4) + '"' + (left ? ' text-anchor="end"' : '') + ' fill="' + col + '">' + esc(lbl) + '</text>'); }
  }

  // ---- selection and the state panel ----

  function sectionOf(s) {
    for (var i = 0; i < sections.length; i++) { if (s >= sections[i].first && s <= sections[i].last) { return sections[i]; } }
    return sections[0];
  }

  function select(s, scroll) {
    if (!cur) { return; }
    s = Math.max(0, Math.min(cur.steps, s | 0));
    sel = s;
    lanesEl.querySelectorAll('.row.sel').forEach(function (r) { r.classList.remove('sel'); });
    var row = lanesEl.querySelector('.row[data-step="' + s + '"]');
    if (row) { row.classList.add('sel'); }
    var gi = document.getElementById('goto');
    if (gi) { gi.value = String(s); }
    if (scroll) { scrollTo(s); drawVisible(); }
    renderState();
    try { history.replaceState(null, '', '#' + cur.name + '-' + s); } catch (e) { /* file: URLs in some browsers */ }
  }

  function scrollTo(s) {
    var sec = sectionOf(s);
    if (sec.el.hidden) { setTail(true); }
    var top = sec.el.offsetTop + (s - sec.first) * ROW;
    var head = document.getElementById('lanes-head').offsetHeight;
    if (top < scroller.scrollTop + head || top + ROW > scroller.scrollTop + scroller.clientHeight) {
      scroller.scrollTop = Math.max(0, top - head - scroller.clientHeight / 3);
    }
  }

  // otherPath is the path whose state at the same step the state panel
  // can diff against (the live alternative and the dead path, each the
  // other's; none for the minimized path), or null.
  function otherPath() {
    return cur.other >= 0 ? prep(D.paths[cur.other]) : null;
  }

  function renderState() {
    var p = cur, s = sel, np = D.props.length, h = [], i;
    var e = s > 0 ? ev(p, s) : null;
    h.push('<h2 id="state-title">Step ' + fmt(s) + ' of ' + fmt(p.steps) + ' <small>(' + esc(p.title) + ')</small></h2>');
    h.push('<div class="ev">' + (e ? esc(e.desc) : 'the initial state: every node started') + '</div>');
    var badges = [];
    if (s === p.crit) { badges.push('<span class="crit">critical step: the first dead state (' + esc(p.cond) + ')</span>'); }
    if (s === p.fail) { badges.push('<span class="fail">' + esc(p.failText.split('\n')[0]) + '</span>'); }
    if (p.fail > p.steps && s === p.steps) { badges.push('<span class="fail">the next step, ' + (p.steps + 1) + ', did not return: ' + esc(p.failText.split('\n')[0]) + ' (it has no state after it)</span>'); }
    var ci = inCycle(p, s);
    if (ci) { badges.push('<span class="cyc">cycle ' + ci + '/' + p.cycleLen + '</span>'); }
    if (p.cycleLen > 0 && s === p.cycleStart) { badges.push('<span class="cyc">the cycle starts from this state</span>'); }
    if (p.shared >= 0) {
      var who = p.name === 'live' ? 'dead' : 'live';
      badges.push(s <= p.shared ? '<span>shared with the ' + who + ' path</span>' : '<span>after the ' + who + ' path went another way (step ' + (p.shared + 1) + ')</span>');
    }
    if (p.live[s]) { badges.push('<span class="live">live</span>'); }
    if (s > 0 && s <= p.prefix) { badges.push('<span>in the ' + p.prefix + '-step prefix the search started from (walked without failures)</span>'); }
    else if (s <= p.depth && p.depth > 0) { badges.push('<span>inside the bounded search (' + (p.prefix > 0 ? 'steps ' + (p.prefix + 1) + '-' + p.depth + ', after the prefix' : 'depth ' + p.depth) + ')</span>'); }
    h.push('<div class="badges">' + badges.join('') + '</div>');
    var other = otherPath();
    var canCmp = other && s <= other.statesUntil && s <= p.statesUntil;
    if (other) {
      h.push('<div class="cmp">Diff against: <label><input type="radio" name="cmp" value="prev"' + (!cmpLive || !canCmp ? ' checked' : '') + '> the previous step</label> ' +
        '<label><input type="radio" name="cmp" value="other"' + (cmpLive && canCmp ? ' checked' : '') + (canCmp ? '' : ' disabled') + '> the ' + esc(other.title) + ' at step ' + s + '</label></div>');
    }
    // What the step did.
    var hap = [];
    (p.sendsAt[s] || []).forEach(function (m) { hap.push('<li>' + msgTitle(p, m) + '</li>'); });
    // What the step's failure ended (a drop, a break, a crash, a partition).
    (p.endsAt[s] || []).forEach(function (m) { if ((p.msgs[m + 4] & 3) !== 0 && p.msgs[m] !== s) { hap.push('<li>' + msgTitle(p, m) + '</li>'); } });
    (p.timersAt[s] || []).forEach(function (t) { hap.push('<li>node ' + p.timers[t + 1] + ': ' + esc(S[p.timers[t + 2]]) + '</li>'); });
    (p.notesAt[s] || []).forEach(function (t) { hap.push('<li>node ' + p.notes[t + 1] + ' log: ' + esc(S[p.notes[t + 2]]) + '</li>'); });
    if (hap.length) { h.push('<ul class="happened">' + hap.join('') + '</ul>'); }
    if (np) {
      h.push('<ul class="props">');
      for (i = 0; i < np; i++) {
        var v = p.pstate[s * np + i];
        h.push('<li class="' + (v === 1 ? 'ok' : 'bad') + '">' + (v === 1 ? '\u2713 ' : v >= 2 ? '! ' : '\u2717 ') + esc(D.props[i].kind) + ' ' + esc(D.props[i].name) +
          (v === 2 ? ' (the check panicked)' : v === 3 ? ': the monitor panicked in its Handle at this step, so its state says nothing' : v === 0 ? ' does not hold' : ' holds') + '</li>');
      }
      h.push('</ul>');
    }
    if (p.noStates) {
      h.push('<p class="note">' + esc(p.noStates) + '</p>');
      stateEl.innerHTML = h.join('');
      return;
    }
    if (s > p.statesUntil) {
      h.push('<p class="note">The states after step ' + fmt(p.statesUntil) + ' of this path are not stored in the page: ' + esc(p.statesLimit || 'they would pass its size limit') + '. ' +
        'mdb shows them: <code>' + esc(p.name === 'min' ? D.debug : D.debug + " -c '" + (p.name === 'live' ? 'path live; ' : '') + 'j ' + s + "; state'") + '</code>.</p>');
      stateEl.innerHTML = h.join('');
      return;
    }
    var now = stateAt(p, s);
    var was, cmpWith = cmpLive && canCmp;
    if (cmpWith) { was = stateAt(other, s); } else if (s > 0) { was = stateAt(p, s - 1); }
    if (cmpWith) { h.push('<p class="note">- the ' + esc(other.title) + ', + the ' + esc(p.title) + ', both at step ' + s + '</p>'); }
    var exc = !cmpWith && s > 0 ? excerpts(p, s) : {};
    for (var k = 0; k < now.length; k++) {
      var ops = exc[k] ? withExcerpts(p, now[k], exc[k]) : was ? lineDiff(was[k], now[k]) : now[k].map(function (l) { return ['=', l]; });
      var changed = ops.some(function (x) { return x[0] !== '='; });
      var open = userOpen[k] !== undefined ? userOpen[k] : changed || (!was);
      var body = ops.map(function (x) { return '<div class="' + (x[0] === '=' ? 'eq' : x[0] === '+' ? 'add' : 'del') + (MARKER[x[1]] ? ' cut' : '') + '">' + esc(S[x[1]]) + '</div>'; }).join('');
      if (!body) { body = '<div class="eq">' + (k === NET ? 'nothing in flight' : '(empty)') + '</div>'; }
      h.push('<details class="node' + (changed ? ' changed' : '') + '" data-section="' + k + '"' + (open ? ' open' : '') + '><summary>' + esc(TITLES[k]) + '</summary><div class="st">' + body + '</div></details>');
    }
    if (p.cut && (p.name === 'error' || p.name === 'live')) {
      var at = (p.name === 'live' ? 'path live; ' : '') + 'j ' + s;
      h.push('<p class="note">Long lists and lines are cut in this panel (\u2026 marks what is left out); what a step changed is shown whole. ' +
        'mdb shows the state whole: <code>' + esc(D.debug + " -c '" + at + "; state'") + '</code>' +
        (s > 0 ? ', and what the step changed: <code>' + esc(D.debug + " -c '" + at + "; d'") + '</code>' : '') +
        (cmpWith ? ', and the two paths\' states compared: <code>' + esc(D.debug + " -c 'filediff " + s + "'") + '</code>' : '') + '.</p>');
    }
    if (p.notesLeft) { h.push('<p class="note">' + fmt(p.notesLeft) + ' log annotations of this path are not stored in the page; the .log file has them.</p>'); }
    stateEl.innerHTML = h.join('');
  }

  // ---- events ----

  lanesEl.addEventListener('click', function (ev) {
    // A message drawn as a stub leads to its other end.
    var stub = ev.target.closest('.stub');
    if (stub) { if (stub.dataset.goto !== '') { select(+stub.dataset.goto, true); } return; }
    var row = ev.target.closest('[data-step]');
    if (row) { select(+row.dataset.step, false); scroller.focus({ preventScroll: true }); }
  });
  stateEl.addEventListener('change', function (ev) {
    if (ev.target.name === 'cmp') { cmpLive = ev.target.value === 'other'; renderState(); }
  });
  // A section the user opens or closes stays so from step to step.
  stateEl.addEventListener('click', function (ev) {
    var sum = ev.target.closest('summary'), d = sum && sum.parentElement;
    if (d && d.dataset.section !== undefined) { userOpen[d.dataset.section] = !d.open; }
  });
  scroller.addEventListener('keydown', function (ev) {
    var d = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: 20, PageUp: -20 }[ev.key];
    if (ev.key === 'Home') { select(0, true); ev.preventDefault(); }
    else if (ev.key === 'End') { select(cur.steps, true); ev.preventDefault(); }
    else if (d) {
      var n = sel + d;
      // Stepping into a collapsed tail opens it.
      select(n, true);
      ev.preventDefault();
    }
  });
  document.querySelectorAll('#tabs .tab').forEach(function (t) {
    t.addEventListener('click', function () { showPath(+t.dataset.path, sel); });
  });
  document.querySelectorAll('#marks .mark').forEach(function (m) {
    m.addEventListener('click', function () {
      if (+m.dataset.path !== curIndex) { showPath(+m.dataset.path, +m.dataset.step); } else { select(+m.dataset.step, true); }
    });
  });
  var gi = document.getElementById('goto');
  if (gi) { gi.addEventListener('change', function () { select(+gi.value, true); }); }
  // Layout of the lane heads, and the arrowheads every chunk uses.
  var head = document.getElementById('lanes-head');
  head.querySelector('.gutter-head').style.width = GUT + 'px';
  head.querySelectorAll('.lane-head').forEach(function (d) { d.style.width = LANE + 'px'; d.title = d.textContent; });
  head.querySelector('.desc-head').style.width = (WIDTH - DESCX) + 'px';
  var defs = document.createElement('div');
  defs.innerHTML = '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>' +
    [['mm-msg', COLOR.msg], ['mm-dgram', COLOR.dgram], ['mm-drop', COLOR.drop], ['mm-flight', COLOR.flight]].map(function (m) {
      return '<marker id="' + m[0] + '" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="' + m[1] + '"/></marker>';
    }).join('') + '</defs></svg>';
  document.body.appendChild(defs.firstChild);

  // Open at the step the address names (#live-12), or the telling one.
  var start = 0, step = D.select, m = /^#(\w+)-(\d+)$/.exec(location.hash);
  if (m) {
    for (var i = 0; i < D.paths.length; i++) { if (D.paths[i].name === m[1]) { start = i; step = +m[2]; } }
  }
  showPath(start, step);
  ready();
})();
