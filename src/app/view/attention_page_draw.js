// The second part of the attention page's script: attention_page.cmake joins attention_page_data.js and
// attention_page_draw.js, in that order, inside one closure in the page's <script>; they share
// its variables.
  // ---- drawing ----
  var drawn = 0, labelsHidden = false;
  var HINT = 'The cells here are too small for token labels: pick one layer or head, a larger ' +
             'cell size, or hover over the cells.';
  function draw(figure, s, type, m, layer, head, cell, box) {
    var ratio = window.devicePixelRatio || 1;
    var withLabels = box.any, font = box.font, rowText = box.rowText, colText = box.colText;
    var rightText = box.rightText, left = box.left, top = box.top, right = box.right;
    if (!withLabels) labelsHidden = true;
    var width = left + m.cols * cell + right + 1, height = top + m.rows * cell + 1;
    var canvases = figure.querySelectorAll('canvas');
    var base = canvases[0], over = canvases[1];
    [base, over].forEach(function (c) {
      c.width = Math.round(width * ratio);
      c.height = Math.round(height * ratio);
      c.style.width = width + 'px';
      c.style.height = height + 'px';
    });
    var ctx = base.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, height);

    var w = weights(m, layer, head), rows = m.rows, cols = m.cols;
    var bitmap = document.createElement('canvas');
    bitmap.width = cols;
    bitmap.height = rows;
    var bctx = bitmap.getContext('2d'), image = bctx.createImageData(cols, rows);
    for (var i = 0; i < rows; i++)
      for (var j = 0; j < cols; j++) {
        var rgb = shade(w[i * cols + j]), p = 4 * (i * cols + j);
        image.data[p] = rgb[0]; image.data[p + 1] = rgb[1]; image.data[p + 2] = rgb[2]; image.data[p + 3] = 255;
      }
    bctx.putImageData(image, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(bitmap, left, top, cols * cell, rows * cell);
    if (m.lower) {  // the causal mask: keys after the query
      ctx.fillStyle = maskFill(ctx);
      for (var r = 0; r < rows; r++)
        if (r + 1 < cols) ctx.fillRect(left + (r + 1) * cell, top + r * cell, (cols - r - 1) * cell, cell);
    }
    ctx.strokeStyle = '#9aa1ab';
    ctx.lineWidth = 1;
    ctx.strokeRect(left - 0.5, top - 0.5, cols * cell + 1, rows * cell + 1);
    if (withLabels) {
      ctx.font = font;
      ctx.fillStyle = '#1d2330';
      ctx.textBaseline = 'middle';
      ctx.textAlign = 'right';
      if (rowText) rowText.forEach(function (t, i) { ctx.fillText(t, left - 4, top + (i + 0.5) * cell); });
      if (rightText) {
        ctx.textAlign = 'left';
        ctx.fillStyle = '#7a5a00';
        rightText.forEach(function (t, i) {
          ctx.fillText('\u2192 ' + t, left + cols * cell + 4, top + (i + 0.5) * cell);
        });
        ctx.fillStyle = '#1d2330';
      }
      ctx.save();
      ctx.textAlign = 'left';
      ctx.translate(left, top - 4);
      ctx.rotate(-Math.PI / 2);
      colText.forEach(function (t, j) { ctx.fillText(t, 0, (j + 0.5) * cell); });
      ctx.restore();
    }
    figure.minimt = { s: s, type: type, m: m, layer: layer, head: head, cell: cell, left: left, top: top,
                      width: width, height: height, ratio: ratio, w: w };
    drawn++;
  }

  var started = 0;
  function render() {
    started = performance.now();
    var k = +pick.sentence.value || 0, s = DATA.sentences[k];
    for (var i = 0; i < sections.length; i++) sections[i].hidden = +sections[i].getAttribute('data-index') !== k;
    var section = sections[k];
    drawn = 0;
    if (!section) return finish();
    var layerMode = pick.layer.value, typeMode = pick.types.value;
    section.querySelectorAll('section.attention').forEach(function (part) {
      var type = part.getAttribute('data-type'), m = matrices(s, type), sizing = m;
      part.hidden = typeMode !== 'all' && typeMode !== type;
      if (part.hidden) return;
      var rows = [], any = false;
      part.querySelectorAll('.layer').forEach(function (row) {
        // A rollout row (data-rollout: its key) shows with every layer or alone; heads do not apply.
        var rolled = row.getAttribute('data-rollout'), rm = rolled ? matrices(s, rolled) : m;
        var layer = +row.getAttribute('data-layer');
        row.hidden = !rm || (rolled ? layerMode !== 'all' && layerMode !== 'Lrollout'
                                    : layerMode !== 'all' && 'L' + m.layers[layer] !== layerMode);
        if (row.hidden) return;
        sizing = sizing || rm;
        var shown = [];
        row.querySelectorAll('figure.heatmap').forEach(function (figure) {
          var h = figure.getAttribute('data-head'), head = h === 'avg' ? 'avg' : +h;
          figure.hidden = !rolled && !headVisible(m, head);
          if (!figure.hidden) shown.push({ figure: figure, head: head, m: rm, type: rolled || type });
        });
        rows.push({ layer: layer, shown: shown });
      });
      if (!sizing) return;
      var plan = layout(s, type, sizing, part.clientWidth - 24, captionWidths(rows));
      labelsHidden = false;
      rows.forEach(function (r) {
        r.shown.forEach(function (f, i) {
          any = true;
          var box = labelBox(s, type, plan.cell, plan.labels, i === 0, i === r.shown.length - 1);
          draw(f.figure, s, f.type, f.m, r.layer, f.head, plan.cell, box);
        });
      });
      var hint = part.querySelector('.label-hint');
      if (!hint) {
        hint = document.createElement('p');
        hint.className = 'hint label-hint';
        hint.textContent = HINT;
        part.querySelector('.axes').after(hint);
      }
      hint.hidden = !labelsHidden;
      var note = part.querySelector('.empty-choice');
      if (!any && !note) {
        note = document.createElement('p');
        note.className = 'note empty-choice';
        note.textContent = 'Nothing here for this layer and head.';
        part.appendChild(note);
      } else if (any && note) {
        note.remove();
      }
    });
    return finish();
  }
  function finish() {
    drawLegend();
    saveHash();
    status.textContent = 'ok: ' + drawn + ' heatmap' + (drawn === 1 ? '' : 's');
    status.setAttribute('data-state', 'ok');
    status.setAttribute('data-ms', String(Math.round(performance.now() - started)));
  }

  function drawLegend() {
    var c = document.getElementById('legend-scale'), ratio = window.devicePixelRatio || 1;
    var width = 190, height = 26;
    c.width = width * ratio; c.height = height * ratio;
    c.style.width = width + 'px'; c.style.height = height + 'px';
    var ctx = c.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    var x0 = 8, x1 = width - 14;
    for (var x = x0; x < x1; x++) {
      var rgb = shade(scaleMode === 'sqrt' ? Math.pow((x - x0) / (x1 - x0), 2) : (x - x0) / (x1 - x0));
      ctx.fillStyle = 'rgb(' + rgb.join(',') + ')';
      ctx.fillRect(x, 0, 1, 12);
    }
    ctx.strokeStyle = '#9aa1ab';
    ctx.strokeRect(x0 - 0.5, -0.5 + 0.5, x1 - x0 + 1, 12);
    ctx.fillStyle = '#5b6472';
    ctx.font = '10px ' + FONT_FAMILY;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    [0, 0.01, 0.1, 0.25, 0.5, 1].forEach(function (v) {
      if (scaleMode === 'linear' && (v === 0.01 || v === 0.1)) return;
      var pos = scaleMode === 'sqrt' ? Math.sqrt(v) : v, xx = x0 + pos * (x1 - x0);
      ctx.fillRect(xx, 12, 1, 3);
      ctx.fillText(String(v), xx, 15);
    });
    var mask = document.getElementById('legend-mask').getContext('2d');
    mask.fillStyle = maskFill(mask);
    mask.fillRect(0, 0, 24, 14);
    mask.strokeStyle = '#9aa1ab';
    mask.strokeRect(0.5, 0.5, 23, 13);
  }

  // ---- reading a cell ----
  var tip = document.getElementById('minimt-tip'), info = document.getElementById('minimt-info');
  function cellAt(figure, event) {
    var g = figure.minimt;
    if (!g) return null;
    var box = event.target.getBoundingClientRect();
    var x = event.clientX - box.left - g.left, y = event.clientY - box.top - g.top;
    var j = Math.floor(x / g.cell), i = Math.floor(y / g.cell);
    if (x < 0 || y < 0 || i >= g.m.rows || j >= g.m.cols) return null;
    return { i: i, j: j };
  }
  function describe(figure, at) {
    var g = figure.minimt, a = axes(g.s, g.type);
    var where = g.m.rollout ? KINDS[g.type].name : KINDS[g.type].name + ', layer ' + g.m.layers[g.layer] + ', ' +
        (g.head === 'avg' ? 'average of ' + g.m.heads.length + ' heads' : 'head ' + g.m.heads[g.head]);
    var query = 'query ' + at.i + ' ' + shown(a.rows[at.i]) + (a.right ? ' (predicting ' + shown(a.right[at.i]) + ')' : '');
    var key = 'key ' + at.j + ' ' + shown(a.cols[at.j]);
    var masked = g.m.lower && at.j > at.i;
    var weight = masked ? 'masked: a future position, weight exactly 0' : 'weight ' + formatWeight(g.w[at.i * g.m.cols + at.j]);
    // What the model predicted at this query, how surely, and what else it considered.
    var predicted = '';
    if (a.right && a.rightProbs) {
      predicted = 'p(' + shown(a.right[at.i]) + ') = ' + a.rightProbs[at.i].toFixed(4);
      if (a.alternatives && a.alternatives[at.i])
        predicted += '; most likely: ' + a.alternatives[at.i].map(function (alt) {
          return shown(alt.token) + ' ' + alt.probability.toFixed(4);
        }).join(', ');
    }
    return { where: where, query: query, key: key, weight: weight, predicted: predicted };
  }
  function outline(figure, at) {
    var g = figure.minimt, over = figure.querySelectorAll('canvas')[1], ctx = over.getContext('2d');
    ctx.setTransform(g.ratio, 0, 0, g.ratio, 0, 0);
    ctx.clearRect(0, 0, g.width, g.height);
    if (!at) return;
    ctx.fillStyle = 'rgba(194, 24, 91, 0.10)';
    ctx.fillRect(g.left, g.top + at.i * g.cell, g.m.cols * g.cell, g.cell);
    ctx.fillRect(g.left + at.j * g.cell, g.top, g.cell, g.m.rows * g.cell);
    ctx.strokeStyle = '#c2185b';
    ctx.lineWidth = 2;
    ctx.strokeRect(g.left + at.j * g.cell, g.top + at.i * g.cell, g.cell, g.cell);
  }
  var pinned = null;
  document.addEventListener('mousemove', function (event) {
    var target = event.target;
    if (!(target instanceof HTMLCanvasElement) || !target.classList.contains('overlay')) {
      tip.hidden = true;
      return;
    }
    var figure = target.closest('figure'), at = cellAt(figure, event);
    outline(figure, at);
    if (!at) { tip.hidden = true; return; }
    var d = describe(figure, at);
    tip.textContent = d.where + '\n' + d.query + '\n' + d.key + '\n' + d.weight +
        (d.predicted ? '\n' + d.predicted : '');
    tip.hidden = false;
    var x = event.clientX + 14, y = event.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth) x = event.clientX - tip.offsetWidth - 10;
    if (y + tip.offsetHeight > window.innerHeight) y = event.clientY - tip.offsetHeight - 10;
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  });
  document.addEventListener('mouseout', function (event) {
    var target = event.target;
    if (target instanceof HTMLCanvasElement && target.classList.contains('overlay')) {
      var figure = target.closest('figure');
      outline(figure, pinned && pinned.figure === figure ? pinned.at : null);
      tip.hidden = true;
    }
  });
  document.addEventListener('click', function (event) {
    var target = event.target;
    if (target.tagName === 'FIGCAPTION') {  // show this heatmap alone
      var figure = target.closest('figure'), g = figure.minimt;
      if (!g) return;
      pick.layer.value = 'L' + g.m.layers[g.layer];
      pick.head.value = g.m.rollout ? 'all' : g.head === 'avg' ? 'avg' : 'H' + g.m.heads[g.head];
      pick.types.value = KINDS[g.type].of || g.type;
      render();
      figure.scrollIntoView({ block: 'nearest' });
      return;
    }
    if (!(target instanceof HTMLCanvasElement) || !target.classList.contains('overlay')) return;
    var fig = target.closest('figure'), at = cellAt(fig, event);
    if (at) pin(fig, at);
  });
  function pin(fig, at) {
    if (pinned && pinned.figure !== fig && pinned.figure.minimt) outline(pinned.figure, null);
    pinned = { figure: fig, at: at };
    var d = describe(fig, at);
    info.textContent = '';
    info.appendChild(document.createTextNode(d.where + ' \u00b7 ' + d.query + ' \u2192 ' + d.key + ' \u00b7 '));
    var strong = document.createElement('span');
    strong.className = 'weight';
    strong.id = 'minimt-pinned-weight';
    strong.textContent = d.weight;
    info.appendChild(strong);
    outline(fig, at);
    saveHash();
  }

  pick.sentence.addEventListener('change', function () { pinned = null; fillLayerAndHead(); render(); });
  [pick.layer, pick.head, pick.types, pick.cell].forEach(function (select) {
    select.addEventListener('change', function () { pinned = null; render(); });
  });
  pick.scale.addEventListener('change', function () { scaleMode = pick.scale.value; render(); });
  var resizing = null;
  window.addEventListener('resize', function () {
    if (pick.cell.value !== 'auto') return;
    clearTimeout(resizing);
    resizing = setTimeout(render, 150);
  });

  // ---- the view in the address: #sentence=2&layer=1&head=avg&show=cross&cell=12&colour=sqrt
  // and pin=TYPE.LAYER.HEAD.ROW.COL (HEAD a number or avg) to point at one cell ----
  function readHash() {
    var wanted = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (pair) {
      var at = pair.indexOf('=');
      if (at > 0) wanted[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1));
    });
    return wanted;
  }
  function choose(select, value) {
    if (value !== undefined && select.querySelector('option[value="' + value.replace(/"/g, '') + '"]')) {
      select.value = value;
      return true;
    }
    return false;
  }
  var restoring = false;
  function saveHash() {
    if (restoring || !window.history || !history.replaceState) return;
    var s = current(), parts = [];
    if (s && DATA.sentences.length > 1) parts.push('sentence=' + s.number);
    if (pick.layer.value !== 'all') parts.push('layer=' + pick.layer.value.slice(1));
    if (pick.head.value !== 'all') parts.push('head=' + encodeURIComponent(pick.head.value.replace(/^H/, '')));
    if (pick.types.value !== 'all') parts.push('show=' + pick.types.value);
    if (pick.cell.value !== 'auto') parts.push('cell=' + pick.cell.value);
    if (pick.scale.value !== 'linear') parts.push('colour=' + pick.scale.value);
    if (pinned && pinned.figure.minimt) {
      var g = pinned.figure.minimt;
      parts.push('pin=' + [g.type, g.m.layers[g.layer], g.head === 'avg' ? 'avg' : g.m.heads[g.head],
                           pinned.at.i, pinned.at.j].join('.'));
    }
    try { history.replaceState(null, '', parts.length ? '#' + parts.join('&') : location.pathname + location.search); }
    catch (e) { /* some browsers refuse replaceState on file: pages */ }
  }
  function pinFromHash(spec) {
    var p = spec.split('.');
    if (p.length !== 5) return;
    var s = current(), m = s.attention[p[0]];
    if (!m) return;
    var layer = m.layers.indexOf(p[1]), head = p[2] === 'avg' ? 'avg' : m.heads.indexOf(+p[2]);
    if (layer < 0 || head === -1) return;
    var section = document.querySelector('section.sentence[data-index="' + pick.sentence.value + '"]');
    var figure = section && section.querySelector('figure[data-type="' + p[0] + '"][data-layer="' + layer +
                                                  '"][data-head="' + head + '"]');
    var i = +p[3], j = +p[4];
    if (!figure || figure.hidden || !figure.minimt || !(i >= 0 && i < m.rows && j >= 0 && j < m.cols)) return;
    pin(figure, { i: i, j: j });
  }

  // The view the address asks for; what it leaves out is the default view.
  function applyHash(wanted) {
    restoring = true;
    if (wanted.sentence) {
      DATA.sentences.forEach(function (s, k) { if (String(s.number) === wanted.sentence) pick.sentence.value = String(k); });
    }
    fillLayerAndHead();
    if (!choose(pick.layer, wanted.layer !== undefined ? 'L' + wanted.layer : undefined)) pick.layer.value = 'all';
    if (!choose(pick.head, wanted.head) && !choose(pick.head, wanted.head !== undefined ? 'H' + wanted.head : undefined))
      pick.head.value = 'all';
    if (!choose(pick.types, wanted.show)) pick.types.value = 'all';
    if (!choose(pick.cell, wanted.cell)) pick.cell.value = 'auto';
    if (!choose(pick.scale, wanted.colour)) pick.scale.value = 'linear';
    scaleMode = pick.scale.value;
    render();
    if (wanted.pin) pinFromHash(wanted.pin);
    restoring = false;
  }
  applyHash(readHash());
  // Links to a view (minimt heads' grid links each head to its heatmaps).
  window.addEventListener('hashchange', function () {
    pinned = null;
    applyHash(readHash());
    var section = document.querySelector('section.sentence:not([hidden])');
    if (section) section.scrollIntoView();
  });
