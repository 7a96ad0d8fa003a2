// Drawing the current choice: shows the chosen sentence's sections, sizes each type's heatmaps
// (layout.js) and draws them (heatmap.js), or a method's attribution maps (attribution.js), then
// the legend, the address and the status corner.
page.render = (function () {
  var HINT = 'The cells here are too small for token labels: pick one layer or head, a larger ' +
             'cell size, or hover over the cells.';
  var status = document.getElementById('minimt-status');
  var drawn = 0, started = 0;

  // The heatmaps of one type's section `part` of sentence `s`: whether it drew any, or null
  // when the section has nothing to draw whatever the choice (a type not in the dump).
  function drawType(s, part) {
    var pick = page.controls.pick, layerMode = pick.layer.value;
    var type = part.getAttribute('data-type'), m = page.data.matrices(s, type), sizing = m;
    var rows = [], any = false, labelsHidden = false;
    part.querySelectorAll('.layer').forEach(function (row) {
      // A rollout row (data-rollout: its key) shows with every layer or alone; heads do not apply.
      var rolled = row.getAttribute('data-rollout'), rm = rolled ? page.data.matrices(s, rolled) : m;
      var layer = +row.getAttribute('data-layer');
      row.hidden = !rm || (rolled ? layerMode !== 'all' && layerMode !== 'Lrollout'
                                  : layerMode !== 'all' && 'L' + m.layers[layer] !== layerMode);
      if (row.hidden) return;
      sizing = sizing || rm;
      var shown = [];
      row.querySelectorAll('figure.heatmap').forEach(function (figure) {
        var h = figure.getAttribute('data-head'), head = h === 'avg' ? 'avg' : +h;
        figure.hidden = !rolled && !page.controls.headVisible(m, head);
        if (!figure.hidden) shown.push({ figure: figure, head: head, m: rm, type: rolled || type });
      });
      rows.push({ layer: layer, shown: shown });
    });
    if (!sizing) return null;
    var plan = page.layout.plan(s, type, sizing, part.clientWidth - 24, page.layout.captionWidths(rows),
                                pick.cell.value);
    rows.forEach(function (r) {
      r.shown.forEach(function (f, i) {
        any = true;
        var box = page.labels.box(s, type, plan.cell, plan.labels, i === 0, i === r.shown.length - 1);
        if (!box.any) labelsHidden = true;
        page.heatmap.draw(f.figure, s, f.type, f.m, r.layer, f.head, plan.cell, box, page.controls.state.scale);
        drawn++;
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
    return any;
  }

  function render() {
    started = performance.now();
    var pick = page.controls.pick, k = +pick.sentence.value || 0, s = page.data.sentences[k];
    var sections = document.querySelectorAll('section.sentence');
    for (var i = 0; i < sections.length; i++) sections[i].hidden = +sections[i].getAttribute('data-index') !== k;
    var section = sections[k];
    drawn = 0;
    if (!section) return finish();
    var typeMode = pick.types.value, values = page.controls.state.values;
    var method = page.values.isAttribution(values) ? values : null;  // attribution.js draws it
    section.querySelectorAll('section.attention').forEach(function (part) {
      var type = part.getAttribute('data-type');
      part.hidden = typeMode !== 'all' && typeMode !== type;
      if (part.hidden) return;
      if (method) { drawn += page.attribution.draw(s, part, method); return; }
      page.attribution.draw(s, part, null);
      var any = drawType(s, part);
      if (any === null) return;
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
    var values = page.controls.state.values;
    page.attribution.controls(page.values.isAttribution(values) ? values : null);
    // A pin on a figure the values menu hid (weights <-> an attribution map) points at nothing.
    var pinned = page.reading.pinned();
    if (pinned && pinned.figure.offsetParent === null) {
      page.reading.unpin();
      page.panel.hide();
    }
    page.legend.draw(page.controls.state.scale);
    page.address.save();
    status.textContent = 'ok: ' + drawn + ' heatmap' + (drawn === 1 ? '' : 's');
    status.setAttribute('data-state', 'ok');
    status.setAttribute('data-ms', String(Math.round(performance.now() - started)));
  }

  return { render: render };
}());
