// The page of two runs (minimt view A B; data.difference, difference_page.cpp): each heatmap
// draws B - A on the diverging scale (blue: B higher, red: A higher), one scale for the whole
// page, the largest change of any head; a cell reads B - A and each run's weight; above the
// sentences, the table of each head's largest change, as minimt show A B prints it.
page.difference = (function () {
  var el = page.dom.el, visible = page.dom.visible, fixed = page.numbers.fixed, colours = page.colours;
  var DIFF = page.data.difference;

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

  // What a cell of heatmap g (heatmap.js: figure.minimt) reads: B - A, then each run's weight.
  function cellText(g, cell) {
    var a = page.data.runWeights(g.m, g.layer, g.head, 'a')[cell];
    var b = page.data.runWeights(g.m, g.layer, g.head, 'b')[cell];
    return 'B \u2212 A ' + fixed(g.w[cell], 4, true) + ' (A ' + fixed(a, 4) + ', B ' + fixed(b, 4) + ')';
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

  return { active: !!DIFF, scale: scale, painter: painter, cellText: cellText, describeRuns: describeRuns,
           build: build };
}());
