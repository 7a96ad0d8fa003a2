// The page of two runs (minimt view A B; data.difference, difference_page.cpp): each heatmap
// draws B - A on the diverging scale (blue: B higher, red: A higher): the weights on one scale
// for the whole page, the largest change of any head; the scores and norms (the values menu)
// each map up to its own largest change. A cell reads B - A and each run's value; above the
// sentences, the table of each head's largest change, as minimt show A B prints it.
page.difference = (function () {
  var el = page.dom.el, visible = page.dom.visible, fixed = page.numbers.fixed, colours = page.colours;
  var numbers = page.numbers, DIFF = page.data.difference;

  // The largest |B - A| of the page, which the darkest colours stand for.
  function scale() { return DIFF && DIFF.scale > 0 ? DIFF.scale : 1; }

  // The colour of a change x; `mode` 'sqrt' stretches the small ones, as it does for weights.
  function painter(mode) {
    var top = scale();
    return function (x) {
      var f = Math.min(1, Math.abs(x) / top);
      if (mode === 'sqrt') f = Math.sqrt(f);
      return colours.diverging(x < 0 ? -f : f, 1);
    };
  }

  // The colour of a change x of map `w` (scores, norms): up to the map's own largest change.
  function mapPainter(w, mode) {
    var top = 0;
    for (var i = 0; i < w.length; i++) if (isFinite(w[i])) top = Math.max(top, Math.abs(w[i]));
    return function (x) {
      var f = top > 0 ? Math.min(1, Math.abs(x) / top) : 0;
      if (mode === 'sqrt') f = Math.sqrt(f);
      return colours.diverging(x < 0 ? -f : f, 1);
    };
  }

  // A change and both runs' values as a cell reads them, `write(x, plus)` writing each number:
  // "B - A +0.4145 (A 0.2227, B 0.6372)".
  function runsText(change, a, b, write) {
    return 'B \u2212 A ' + write(change, true) + ' (A ' + write(a) + ', B ' + write(b) + ')';
  }
  // A weight or a probability to 4 decimals, as printf writes it; a value that is not 0 never as 0.
  function decimals(x, plus) {
    var text = numbers.nonzero(x, 4);
    return plus && x >= 0 && text.charAt(0) !== '+' ? '+' + text : text;
  }
  // A score or a norm to 4 significant digits.
  function significant(x, plus) {
    var text = numbers.general(x, 4);
    return plus && x >= 0 ? '+' + text : text;
  }

  // What a cell of heatmap g (heatmap.js: figure.minimt) reads: B - A, then each run's weight.
  function cellText(g, cell) {
    var a = page.data.runWeights(g.m, g.layer, g.head, 'a')[cell];
    var b = page.data.runWeights(g.m, g.layer, g.head, 'b')[cell];
    return runsText(g.w[cell], a, b, decimals);
  }
  // What a cell reads of the values drawn instead of the weights (g.source: scores or norms).
  function drawnText(g, cell) {
    var a = page.data.runWeights(g.source, g.layer, g.head, 'a')[cell];
    var b = page.data.runWeights(g.source, g.layer, g.head, 'b')[cell];
    return page.values.name(g.values) + ' ' + runsText(g.drawn[cell], a, b, significant);
  }

  // One run in words: its file, model, compute type and the heads it ablated.
  function run(r) {
    var parts = ['model ' + visible(r.model)];
    if (r.compute_type) parts.push(visible(r.compute_type));
    if (r.masked_heads) parts.push('--ablate-heads ' + visible(r.masked_heads));
    return visible(r.name) + ' (' + parts.join(', ') + ')';
  }
  function describeRuns() {
    return 'B = ' + run(DIFF.b) + ' \u00b7 A = ' + run(DIFF.a);
  }

  // A row of the table: the head, its largest change and the cell, linked to its heatmap.
  function row(c) {
    var masked = c.masked_a && c.masked_b ? 'in A and B' : c.masked_a ? 'in A' : c.masked_b ? 'in B' : '';
    var where = c.sentence ? visible(c.query) + ' \u2192 ' + visible(c.key) : '(no cells)';
    var href = '#sentence=' + c.sentence + '&show=' + c.type + '&layer=' + encodeURIComponent(c.layer) +
        '&head=' + c.head + (c.sentence ? '&pin=' + [c.type, c.layer, c.head, c.row, c.col].join('.') : '');
    var swatch = 'background:' + colours.css(painter('linear')(c.change)) +
        (Math.abs(c.change) > 0.6 * scale() ? ';color:#fff' : '');  // readable on the dark end
    return el('tr', { 'data-type': c.type, 'data-layer': String(c.layer), 'data-head': String(c.head) }, [
      el('td', {}, [c.type]), el('td', { class: 'number' }, [visible(c.layer)]),
      el('td', { class: 'number' }, [String(c.head)]),
      el('td', { class: 'number change', style: swatch }, [fixed(c.change, 4, true)]),
      el('td', { class: 'number' }, [fixed(c.a, 4)]), el('td', { class: 'number' }, [fixed(c.b, 4)]),
      el('td', { class: 'number' }, [String(c.sentence)]),
      el('td', {}, [c.sentence ? el('a', { href: href }, [where]) : where]),
      el('td', {}, [masked ? 'ablated ' + masked : ''])]);
  }

  // The section of the table, first in `parent`.
  function build(parent) {
    var head = ['type', 'layer', 'head', 'B \u2212 A', 'A', 'B', 'sentence', 'query \u2192 key', ''];
    var rows = [el('tr', {}, head.map(function (t) { return el('th', {}, [t]); }))];
    DIFF.changes.forEach(function (c) { rows.push(row(c)); });
    var children = [
      el('h2', {}, ['Largest change per head, B \u2212 A']),
      el('p', { class: 'runs' }, [describeRuns()]),
      el('p', { class: 'axes' }, ['Each head\u2019s cell where |B \u2212 A| is largest over the sentences shown, ' +
                                  'the most changed head first; blue: B higher, red: A higher. A row\u2019s ' +
                                  'cell opens its heatmap.']),
      el('table', { id: 'minimt-changes-table' }, rows)];
    if (DIFF.unchanged)
      children.push(el('p', { class: 'note', id: 'minimt-unchanged' },
                       ['and ' + DIFF.unchanged + ' head' + (DIFF.unchanged === 1 ? '' : 's') +
                        ' with B \u2212 A = 0 in every cell']));
    parent.appendChild(el('section', { class: 'changes', id: 'minimt-changes' }, children));
  }

  return { active: !!DIFF, scale: scale, painter: painter, mapPainter: mapPainter, cellText: cellText,
           drawnText: drawnText, runsText: runsText, decimals: decimals, significant: significant,
           describeRuns: describeRuns, build: build };
}());
