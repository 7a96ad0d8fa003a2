// The view in the address: #sentence=2&layer=1&head=avg&show=cross&cell=12&colour=sqrt,
// values=scores, values=norms or an attribution method (what the heatmaps draw), and
// pin=TYPE.LAYER.HEAD.ROW.COL (HEAD a number or avg; an attribution map's:
// TYPE.attribution.0.ROW.COL) to point at one cell. The page keeps the
// address up to date, and opens the view an address asks for (minimt heads' grid links to it).
page.address = (function () {
  var pick = page.controls.pick;
  var restoring = false;

  function read() {
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
  // Writes the current view into the address (not while applying one).
  function save() {
    if (restoring || !window.history || !history.replaceState) return;
    var s = page.controls.current(), parts = [], pinned = page.reading.pinned();
    if (s && page.data.sentences.length > 1) parts.push('sentence=' + s.number);
    if (pick.layer.value !== 'all') parts.push('layer=' + pick.layer.value.slice(1));
    if (pick.head.value !== 'all') parts.push('head=' + encodeURIComponent(pick.head.value.replace(/^H/, '')));
    if (pick.types.value !== 'all') parts.push('show=' + pick.types.value);
    if (pick.cell.value !== 'auto') parts.push('cell=' + pick.cell.value);
    if (pick.scale.value !== 'linear') parts.push('colour=' + pick.scale.value);
    if (pick.values.value && pick.values.value !== 'weights') parts.push('values=' + pick.values.value);
    if (pinned && pinned.figure.minimt) {
      var g = pinned.figure.minimt;
      parts.push('pin=' + [g.type, g.m.layers[g.layer], g.head === 'avg' ? 'avg' : g.m.heads[g.head],
                           pinned.at.i, pinned.at.j].join('.'));
    }
    try { history.replaceState(null, '', parts.length ? '#' + parts.join('&') : location.pathname + location.search); }
    catch (e) { /* some browsers refuse replaceState on file: pages */ }
  }
  function pinFrom(spec) {
    var p = spec.split('.');
    if (p.length !== 5) return;
    var s = page.controls.current(), m = s && s.attention[p[0]], figure = null;
    var section = document.querySelector('section.sentence[data-index="' + pick.sentence.value + '"]');
    if (p[1] === 'attribution') {  // a cell of the map the values menu's method draws (attribution.js)
      figure = section && section.querySelector('figure.attribution[data-type="' + p[0] + '"]');
      m = figure && figure.minimt && figure.minimt.m;
      if (!m) return;
    } else {
      if (!m) return;
      var layer = m.layers.indexOf(p[1]), head = p[2] === 'avg' ? 'avg' : m.heads.indexOf(+p[2]);
      if (layer < 0 || head === -1) return;
      figure = section && section.querySelector('figure[data-type="' + p[0] + '"][data-layer="' + layer +
                                                '"][data-head="' + head + '"]');
    }
    var i = +p[3], j = +p[4];
    if (!figure || figure.hidden || !figure.minimt || !(i >= 0 && i < m.rows && j >= 0 && j < m.cols)) return;
    page.reading.pin(figure, { i: i, j: j });
  }

  // The view the address asks for; what it leaves out is the default view.
  function apply() {
    var wanted = read();
    restoring = true;
    if (wanted.sentence) {
      page.data.sentences.forEach(function (s, k) { if (String(s.number) === wanted.sentence) pick.sentence.value = String(k); });
    }
    page.controls.fillLayerAndHead();
    if (!choose(pick.layer, wanted.layer !== undefined ? 'L' + wanted.layer : undefined)) pick.layer.value = 'all';
    if (!choose(pick.head, wanted.head) && !choose(pick.head, wanted.head !== undefined ? 'H' + wanted.head : undefined))
      pick.head.value = 'all';
    if (!choose(pick.types, wanted.show)) pick.types.value = 'all';
    if (!choose(pick.cell, wanted.cell)) pick.cell.value = 'auto';
    if (!choose(pick.scale, wanted.colour)) pick.scale.value = 'linear';
    page.controls.state.scale = pick.scale.value;
    if (!choose(pick.values, wanted.values)) pick.values.value = 'weights';
    page.controls.state.values = pick.values.value;
    page.render.render();
    if (wanted.pin) pinFrom(wanted.pin);
    restoring = false;
  }

  return { save: save, apply: apply };
}());
