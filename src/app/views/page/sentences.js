// The sentences view: for each sentence of the data, its section with the texts, and per
// attention type a section with a row of empty figures per layer (one per head, then the
// average over heads, hidden at first) and the rollouts under it, then the logit lens (lens.js).
// render.js draws into them.
page.sentences = (function () {
  var el = page.dom.el, visible = page.dom.visible;
  var ROLLOUT_LABEL = 'rollout: a heuristic, not an explanation';

  function plot() {
    return el('div', { class: 'plot' }, [el('canvas', { class: 'cells' }), el('canvas', { class: 'overlay' })]);
  }

  // One row of figures per layer of `m`, the matrices of one type.
  function layers(type, m) {
    return m.layers.map(function (label, l) {
      var figures = [];
      for (var h = 0; h <= m.heads.length; h++) {
        var average = h === m.heads.length, head = average ? 'avg' : h;
        // In words which head, masked or not, and which heads an average is over (data.js).
        var caption = 'layer ' + visible(label) + ' \u00b7 ' + page.data.headText(m, l, head);
        var masked = !average && (page.data.isMasked(m, l, h) || page.data.isMasked(m, l, h, 'a') ||
                                  page.data.isMasked(m, l, h, 'b'));
        figures.push(el('figure', { class: 'heatmap' + (average ? ' average' : '') + (masked ? ' masked' : ''), 'data-type': type,
                                    'data-layer': String(l), 'data-head': average ? 'avg' : String(h),
                                    hidden: average ? '' : null },
                        [el('figcaption', { title: 'show only this heatmap' }, [caption]), plot()]));
      }
      return el('div', { class: 'layer', 'data-layer': String(l), 'data-label': visible(label) },
                [el('div', { class: 'heads' }, figures)]);
    });
  }

  // The rollouts of `type` in sentence `s` (--rollout): a row each, labelled as a heuristic.
  function rollouts(s, type) {
    return page.data.kinds.filter(function (k) {
      return k.rollout && k.of === type && s.attention[k.type];
    }).map(function (k) {
      var figure = el('figure', { class: 'heatmap rollout', 'data-type': k.type, 'data-layer': '0', 'data-head': '0' },
                      [el('figcaption', { title: 'show only the rollouts' }, [k.caption]), plot()]);
      return el('div', { class: 'layer rollout', 'data-layer': '0', 'data-rollout': k.type },
                [el('p', { class: 'heuristic' }, [el('strong', {}, [ROLLOUT_LABEL + '.']), ' ' + k.note]),
                 el('div', { class: 'heads' }, [figure])]);
    });
  }

  // What the pieces right of the decoder's rows are (labels.js: outputName): the model's own
  // choices, or the target it was given (teacher forcing) with its own choice where it differs.
  var OUTPUT_NOTES = {
    'predicted': 'On the right of each row: predicted, the piece the model chose there and its probability.',
    'target (given)': 'On the right of each row: target (given), the piece minimt score gave the decoder ' +
        '(teacher forcing), not one it chose, and the model\u2019s probability of it; where the model\u2019s own ' +
        'most likely piece differs, \u201cmodel:\u201d that piece and its probability.',
    'given, then predicted': 'On the right of each row: the pieces given (a prefix: teacher forcing, with ' +
        '\u201cmodel:\u201d the model\u2019s own choice where it differs), then the pieces it predicted; ' +
        'each with the model\u2019s probability of it.'
  };

  // The section of one attention type of sentence `s`.
  function attention(s, kind) {
    var m = s.attention[kind.type], more = rollouts(s, kind.type), children = [el('h3', {}, [kind.heading])];
    var output = kind.right ? page.labels.outputName(page.data.axes(s, kind.type)) : null;
    var axes = output ? kind.axes.replace('(the predicted piece on the right)', '(on the right: ' + output + ')') : kind.axes;
    if (m || more.length) children.push(el('p', { class: 'axes' }, [axes]));
    if ((m || more.length) && output) children.push(el('p', { class: 'axes output-column' }, [OUTPUT_NOTES[output]]));
    if (!m)
      children.push(el('p', { class: 'note' }, ['Not in the dump (it was written with a selection that ' +
                                                'leaves this out).']));
    else
      children = children.concat(layers(kind.type, m));
    return el('section', { class: 'attention', 'data-type': kind.type },
              children.concat(more, page.attribution.parts(s, kind)));
  }

  // The section of sentence `s`, the k-th shown (only the first is visible at first).
  function sentence(s, k) {
    var children = [
      el('h2', {}, ['Sentence ' + s.number]),
      el('dl', { class: 'texts' }, [el('dt', {}, ['source']), el('dd', {}, [visible(s.source)]),
                                    el('dt', {}, [s.given_tokens && s.given_tokens >= s.output_tokens.length ?
                                                  'target (given)' : 'translation']),
                                    el('dd', {}, [visible(s.translation)])])];
    if (s.error)
      children.push(el('p', { class: 'note error' }, ['This sentence was not translated: ' + visible(s.error)]));
    else if (!s.source_tokens.length)
      children.push(el('p', { class: 'note' }, ['A blank line: no tokens, no attention to show.']));
    else
      page.data.kinds.forEach(function (kind) { if (!kind.rollout) children.push(attention(s, kind)); });
    var lens = !s.error && s.source_tokens.length ? page.lens.build(s) : null;
    if (lens) children.push(lens);
    return el('section', { class: 'sentence', id: 'sentence-' + s.number, 'data-index': String(k),
                           hidden: k ? '' : null }, children);
  }

  // Adds the sections of every sentence to `parent`.
  function build(parent) {
    var shown = page.data.sentences;
    shown.forEach(function (s, k) { parent.appendChild(sentence(s, k)); });
    if (shown.length) return;
    // minimt serve's page before any sentence: the form above (live.js) asks for them.
    parent.appendChild(el('p', { class: 'note' }, [page.data.all.live ?
        'Type a sentence in the box above (one per line) and press Translate: the page shows its ' +
        'attention, every head of the three types, with the values the form asks for (scores, ' +
        'weight \u00d7 norm: the values menu) and the logit lens under each sentence.' :
        'The dump holds no sentences.']));
  }

  return { build: build };
}());
