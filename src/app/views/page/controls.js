// The header's menus: sentence, layer, head, types shown, cell size, values drawn and colour
// scale, filled from the data; which heatmaps the choice shows.
page.controls = (function () {
  var pick = {
    sentence: document.getElementById('pick-sentence'), layer: document.getElementById('pick-layer'),
    head: document.getElementById('pick-head'), types: document.getElementById('pick-types'),
    cell: document.getElementById('pick-cell'), scale: document.getElementById('pick-scale'),
    values: document.getElementById('pick-values')
  };
  var state = { scale: 'linear', values: 'weights' };  // the colour scale and the values drawn

  function option(select, value, text) {
    var o = document.createElement('option');
    o.value = value;
    o.textContent = text;
    select.appendChild(o);
  }

  // The menus that do not depend on the sentence.
  function fill() {
    page.data.sentences.forEach(function (s, k) {
      var text = s.source.length > 60 ? s.source.slice(0, 59) + '\u2026' : s.source;
      option(pick.sentence, String(k), s.number + ': ' + (text || '(blank)') + (s.error ? ' (failed)' : ''));
    });
    // Rollouts (--rollout) are drawn in the section of the type they extend, not picked apart.
    page.data.kinds.forEach(function (k) { if (!k.rollout) option(pick.types, k.type, k.name.toLowerCase()); });
    // The values menu shows only when the dump holds scores or norms to draw instead.
    var views = page.values.available();
    views.forEach(function (mode) { option(pick.values, mode, page.values.name(mode)); });
    document.getElementById('values-label').hidden = views.length < 2;
    option(pick.cell, 'auto', 'auto');
    [4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32].forEach(function (px) { option(pick.cell, String(px), px + ' px'); });
  }

  function current() { return page.data.sentences[+pick.sentence.value || 0]; }

  // Layer and head choices for the current sentence: the union over its types.
  function fillLayerAndHead() {
    var s = current(), layers = [], heads = [], keepLayer = pick.layer.value, keepHead = pick.head.value;
    var rolled = false;
    page.data.kinds.forEach(function (k) {
      var m = s && s.attention[k.type];  // a dump without sentences has none
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

  // Whether the head menu shows head `head` (a position in m.heads, or 'avg') of matrices `m`.
  function headVisible(m, head) {
    var mode = pick.head.value;
    if (mode === 'all') return head !== 'avg';
    if (mode === 'avg') return head === 'avg';
    if (mode === 'all+avg') return true;
    return head !== 'avg' && 'H' + m.heads[head] === mode;
  }

  return { pick: pick, state: state, fill: fill, current: current, fillLayerAndHead: fillLayerAndHead,
           headVisible: headVisible };
}());
