// Starts the page: builds the views from the data (the heads view first, for minimt heads
// --view), fills the menus, listens to them, and shows the view the address asks for.
(function () {
  var pick = page.controls.pick, main = document.querySelector('main'), title = page.data.all.title;
  document.querySelector('title').textContent = page.dom.visible(title);
  document.querySelector('header h1').textContent = page.dom.visible(title);
  var about = [];
  if (page.data.all.model) about.push('model ' + page.dom.visible(page.data.all.model));
  if (page.data.all.compute_type) about.push('computed in ' + page.dom.visible(page.data.all.compute_type));
  if (page.difference.active) {  // minimt view A B
    about = ['B \u2212 A: ' + page.difference.describeRuns()];
    document.getElementById('minimt-info').textContent = 'Each cell is B \u2212 A: blue where B is ' +
        'higher, red where A is. Hover over a cell to read B \u2212 A and both runs\u2019 values; click ' +
        'to keep it here and open its row in both runs. Click a heatmap\u2019s title to show it alone, large.';
  }
  document.querySelector('header .subtitle').textContent = about.join(' \u00b7 ');
  // The dump's notes: what this model's numbers include (T5: the position bias is in the score).
  var notes = document.getElementById('minimt-notes');
  (page.data.all.notes || []).forEach(function (note) {
    var item = document.createElement('li');
    item.textContent = 'Note: ' + page.dom.visible(note);
    notes.appendChild(item);
  });
  notes.hidden = !notes.firstChild;
  if (page.data.all.heads) page.headsGrid.build(main, page.data.all.heads, page.data.sentences.length);
  if (page.difference.active) page.difference.build(main);
  page.sentences.build(main);
  page.controls.fill();
  page.reading.listen();

  function changed() { page.reading.unpin(); page.panel.hide(); page.render.render(); }
  pick.sentence.addEventListener('change', function () {
    page.reading.unpin();
    page.panel.hide();
    page.controls.fillLayerAndHead();
    page.render.render();
  });
  [pick.layer, pick.head, pick.types, pick.cell].forEach(function (select) {
    select.addEventListener('change', changed);
  });
  pick.scale.addEventListener('change', function () {
    page.controls.state.scale = pick.scale.value;
    page.render.render();
  });
  pick.values.addEventListener('change', function () {
    page.controls.state.values = pick.values.value;
    page.render.render();
  });
  var resizing = null;
  window.addEventListener('resize', function () {
    if (pick.cell.value !== 'auto') return;
    clearTimeout(resizing);
    resizing = setTimeout(page.render.render, 150);
  });

  page.address.apply();
  window.addEventListener('hashchange', function () {
    page.reading.unpin();
    page.panel.hide();
    page.address.apply();
    var section = document.querySelector('section.sentence:not([hidden])');
    if (section) section.scrollIntoView();
  });
}());
