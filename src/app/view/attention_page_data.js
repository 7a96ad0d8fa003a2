// The first part of the attention page's script: attention_page.cmake joins attention_page_data.js and
// attention_page_draw.js, in that order, inside one closure in the page's <script>; they share
// its variables.
  'use strict';
  var status = document.getElementById('minimt-status');
  if (window.minimtEarlyError) throw new Error(window.minimtEarlyError);
  var DATA = JSON.parse(document.getElementById('minimt-data').textContent);
  // Per attention type (C++ writes them, from the one table in view_text.cpp): its name and
  // which of a sentence's token lists are its rows, columns and the pieces right of the rows.
  var KINDS = {};
  DATA.kinds.forEach(function (k) { KINDS[k.type] = k; });
  var LABEL_MIN_CELL = 9, MAX_CELL = 28, LABEL_MAX_PX = 120;
  var FONT_FAMILY = '"DejaVu Sans", "Segoe UI", "Helvetica Neue", Arial, sans-serif';

  // ---- weights: base64 of little-endian IEEE half floats (encode_weights in half_float.cpp) ----
  var HALF = null;
  function halfTable() {
    if (HALF) return HALF;
    HALF = new Float32Array(65536);
    for (var h = 0; h < 65536; h++) {
      var sign = (h & 0x8000) ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
      HALF[h] = e === 0 ? sign * m * Math.pow(2, -24)
              : e === 31 ? (m ? NaN : sign * Infinity)
              : sign * (1 + m / 1024) * Math.pow(2, e - 15);
    }
    return HALF;
  }
  function decode(b64) {
    var bin = atob(b64), n = bin.length >> 1, out = new Float32Array(n), table = halfTable();
    for (var i = 0; i < n; i++)
      out[i] = table[bin.charCodeAt(2 * i) | (bin.charCodeAt(2 * i + 1) << 8)];
    return out;
  }
  // The matrices of one sentence and type, unpacked on first use: [layer][head][row][col].
  function matrices(sentence, type) {
    var m = sentence.attention[type];
    if (!m) return null;
    if (!m.full) {
      var packed = decode(m.w), rows = m.rows, cols = m.cols, count = m.layers.length * m.heads.length;
      var full = new Float32Array(count * rows * cols), k = 0;
      for (var g = 0; g < count; g++)
        for (var i = 0; i < rows; i++) {
          var end = m.lower ? Math.min(i + 1, cols) : cols;
          for (var j = 0; j < end; j++) full[(g * rows + i) * cols + j] = packed[k++];
        }
      if (k !== packed.length) throw new Error('weights of ' + type + ' do not match their shape');
      m.full = full;
      m.averages = [];
    }
    return m;
  }
  // Weights of one heatmap: a head's, or the mean over the heads in the dump.
  function weights(m, layer, head) {
    var size = m.rows * m.cols, H = m.heads.length;
    if (head !== 'avg') return m.full.subarray((layer * H + head) * size, (layer * H + head + 1) * size);
    if (!m.averages[layer]) {
      var avg = new Float32Array(size);
      for (var h = 0; h < H; h++) {
        var base = (layer * H + h) * size;
        for (var x = 0; x < size; x++) avg[x] += m.full[base + x] / H;
      }
      m.averages[layer] = avg;
    }
    return m.averages[layer];
  }

  // ---- colours ----
  var STOPS = [[255, 255, 217], [237, 248, 177], [199, 233, 180], [127, 205, 187], [65, 182, 196],
               [29, 145, 192], [34, 94, 168], [37, 52, 148], [8, 29, 88]];  // YlGnBu
  var scaleMode = 'linear';
  function shade(w) {
    var x = Math.max(0, Math.min(1, w));
    if (scaleMode === 'sqrt') x = Math.sqrt(x);
    var f = x * (STOPS.length - 1), i = Math.min(STOPS.length - 2, Math.floor(f)), t = f - i;
    var a = STOPS[i], b = STOPS[i + 1];
    return [Math.round(a[0] + (b[0] - a[0]) * t), Math.round(a[1] + (b[1] - a[1]) * t),
            Math.round(a[2] + (b[2] - a[2]) * t)];
  }
  var maskPattern = null;
  function maskFill(ctx) {
    if (!maskPattern) {
      var tile = document.createElement('canvas');
      tile.width = tile.height = 6;
      var t = tile.getContext('2d');
      t.fillStyle = '#e3e3e3';
      t.fillRect(0, 0, 6, 6);
      t.strokeStyle = '#8c8c8c';
      t.lineWidth = 1.3;
      t.beginPath();
      t.moveTo(-1, 7); t.lineTo(7, -1); t.moveTo(-1, 1); t.lineTo(1, -1); t.moveTo(5, 7); t.lineTo(7, 5);
      t.stroke();
      maskPattern = tile;
    }
    return ctx.createPattern(maskPattern, 'repeat');
  }

  // ---- text ----
  var measurer = document.createElement('canvas').getContext('2d');
  function shown(token) { return token === '' ? '\u2205' : token; }
  function fit(token, font) {
    measurer.font = font;
    var text = shown(token);
    if (measurer.measureText(text).width <= LABEL_MAX_PX) return text;
    while (text.length > 1 && measurer.measureText(text + '\u2026').width > LABEL_MAX_PX)
      text = text.slice(0, -1);
    return text + '\u2026';
  }
  function widest(labels, font) {
    measurer.font = font;
    var w = 0;
    for (var i = 0; i < labels.length; i++) w = Math.max(w, measurer.measureText(labels[i]).width);
    return Math.ceil(w);
  }
  function fontFor(cell) { return Math.max(9, Math.min(13, cell - 1)) + 'px ' + FONT_FAMILY; }
  function formatWeight(w) {
    if (w === 0) return '0';
    if (w >= 0.001) return w.toFixed(Math.max(3, 3 - Math.floor(Math.log10(w))));  // 4 significant digits
    return w.toExponential(3);
  }

  // ---- axes of each type ----
  function axes(sentence, type) {
    var k = KINDS[type];
    var probs = k.right && sentence.output_log_probs && sentence.output_log_probs.length ?
        sentence.output_log_probs.map(Math.exp) : null;
    var alternatives = k.right && sentence.alternatives && sentence.alternatives.length ?
        sentence.alternatives : null;
    return { rows: sentence[k.rows], cols: sentence[k.cols], right: k.right ? sentence[k.right] : null,
             rightProbs: probs, alternatives: alternatives, rowName: 'query', colName: 'key' };
  }

  // ---- controls ----
  var pick = {
    sentence: document.getElementById('pick-sentence'), layer: document.getElementById('pick-layer'),
    head: document.getElementById('pick-head'), types: document.getElementById('pick-types'),
    cell: document.getElementById('pick-cell'), scale: document.getElementById('pick-scale')
  };
  function option(select, value, text) {
    var o = document.createElement('option');
    o.value = value;
    o.textContent = text;
    select.appendChild(o);
  }
  DATA.sentences.forEach(function (s, k) {
    var text = s.source.length > 60 ? s.source.slice(0, 59) + '\u2026' : s.source;
    option(pick.sentence, String(k), s.number + ': ' + (text || '(blank)') + (s.error ? ' (failed)' : ''));
  });
  // Rollouts (--rollout) are drawn in the section of the type they extend, not picked apart.
  DATA.kinds.forEach(function (k) { if (!k.rollout) option(pick.types, k.type, k.name.toLowerCase()); });
  option(pick.cell, 'auto', 'auto');
  [4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32].forEach(function (px) { option(pick.cell, String(px), px + ' px'); });
  var sections = document.querySelectorAll('section.sentence');

  function current() { return DATA.sentences[+pick.sentence.value || 0]; }
  // Layer and head choices for the current sentence: the union over its types.
  function fillLayerAndHead() {
    var s = current(), layers = [], heads = [], keepLayer = pick.layer.value, keepHead = pick.head.value;
    var rolled = false;
    DATA.kinds.forEach(function (k) {
      var m = s.attention[k.type];
      if (m && k.rollout) rolled = true;
      if (!m || k.rollout) return;
      m.layers.forEach(function (l) { if (layers.indexOf(l) < 0) layers.push(l); });
      m.heads.forEach(function (h) { if (heads.indexOf(h) < 0) heads.push(h); });
    });
    layers.sort(function (a, b) { return +a - +b; });
    heads.sort(function (a, b) { return a - b; });
    pick.layer.textContent = '';
    option(pick.layer, 'all', 'every layer');
    layers.forEach(function (l) { option(pick.layer, 'L' + l, 'layer ' + l); });
    if (rolled) option(pick.layer, 'Lrollout', 'rollout only');
    pick.head.textContent = '';
    option(pick.head, 'all', 'every head');
    option(pick.head, 'avg', 'average over heads');
    option(pick.head, 'all+avg', 'every head + average');
    heads.forEach(function (h) { option(pick.head, 'H' + h, 'head ' + h); });
    if (keepLayer && pick.layer.querySelector('option[value="' + keepLayer + '"]')) pick.layer.value = keepLayer;
    if (keepHead && pick.head.querySelector('option[value="' + keepHead + '"]')) pick.head.value = keepHead;
  }

  function headVisible(m, head) {
    var mode = pick.head.value;
    if (mode === 'all') return head !== 'avg';
    if (mode === 'avg') return head === 'avg';
    if (mode === 'all+avg') return true;
    return head !== 'avg' && 'H' + m.heads[head] === mode;
  }

  // The labels of one heatmap drawn with `cell`-pixel cells: their texts and the margins they
  // take (left: row pieces, top: column pieces, right: the pieces the rows predict). `ends`:
  // row labels only on the first heatmap of a row, predictions only on the last.
  // They depend on the cell size only through the font (9 to 13 px): kept per sentence and type.
  var labelBoxes = {};
  function labelBox(s, type, cell, labels, first, last) {
    var a = axes(s, type), font = fontFor(cell), any = labels !== 'none';
    var key = [s.number, type, font, labels, labels === 'each' || first, labels === 'each' || last].join('|');
    if (labelBoxes[key]) return labelBoxes[key];
    var box = { font: font, any: any, left: 0, top: 0, right: 0, rowText: null, colText: null, rightText: null };
    labelBoxes[key] = box;
    if (!any) return box;
    box.colText = a.cols.map(function (t) { return fit(t, font); });
    box.top = widest(box.colText, font) + 6;
    if (labels === 'each' || first) {
      box.rowText = a.rows.map(function (t) { return fit(t, font); });
      box.left = widest(box.rowText, font) + 6;
    }
    if (a.right && (labels === 'each' || last)) {
      // Each predicted piece with its probability: how sure the model was of it.
      box.rightText = a.right.map(function (t, i) {
        return fit(t, font) + (a.rightProbs ? ' ' + a.rightProbs[i].toFixed(2) : '');
      });
      box.right = widest(box.rightText, font) + 18;
    }
    return box;
  }
  var HEADS_GAP = 14;  // .heads { gap: ... 14px }
  var captionFont = '12px ' + FONT_FAMILY;
  // The width of a row of heatmaps whose captions are `captions` pixels wide (one per heatmap).
  function rowWidth(s, type, m, cell, labels, captions) {
    var count = captions.length, boxes = {};
    function plot(first, last) {
      var key = (first ? 'f' : '') + (last ? 'l' : '');
      if (!boxes[key]) boxes[key] = labelBox(s, type, cell, labels, first, last);
      return boxes[key].left + m.cols * cell + boxes[key].right + 1;
    }
    var total = (count - 1) * HEADS_GAP;
    for (var i = 0; i < count; i++) total += Math.max(captions[i], plot(i === 0, i === count - 1));
    return total;
  }
  // Cell size and labels for one type's heatmaps: the chosen size (labels from 9 px), or what
  // keeps a row of heads on one line of `width` pixels: the largest cell with labels on every
  // heatmap; else with the row's labels only on its first heatmap and the predicted pieces on
  // its last (many heads); else without labels (hover reads them), in quarter pixels.
  function layout(s, type, m, width, captions) {
    if (pick.cell.value !== 'auto') {
      var chosen = +pick.cell.value;
      return { cell: chosen, labels: chosen >= LABEL_MIN_CELL ? 'each' : 'none' };
    }
    var modes = captions.length > 1 ? ['each', 'ends'] : ['each'], cell;
    for (var k = 0; k < modes.length; k++)
      for (cell = MAX_CELL; cell >= LABEL_MIN_CELL; cell--)
        if (rowWidth(s, type, m, cell, modes[k], captions) <= width) return { cell: cell, labels: modes[k] };
    for (cell = LABEL_MIN_CELL - 0.25; cell > 1.5; cell -= 0.25)
      if (rowWidth(s, type, m, cell, 'none', captions) <= width) break;
    return { cell: cell, labels: 'none' };
  }
  // The caption widths of a row of heatmaps, the widest at each position over `rows` (captions
  // do not wrap: figcaption is white-space: nowrap).
  function captionWidths(rows) {
    var widths = [];
    rows.forEach(function (r) {
      r.shown.forEach(function (f, i) {
        var caption = f.figure.querySelector('figcaption');
        measurer.font = (f.figure.classList.contains('average') ? 'italic ' : '') + captionFont;
        var w = caption ? Math.ceil(measurer.measureText(caption.textContent).width) + 1 : 0;
        widths[i] = Math.max(widths[i] || 0, w);
      });
    });
    return widths;
  }

