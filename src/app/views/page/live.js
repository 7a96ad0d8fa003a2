// The page minimt serve answers at / (ViewOptions::live): a form above the heatmaps where the
// user types sentences, one a line, and picks what the page records besides the weights: the
// scores (dump_scores), weight x norm (dump_norms) and the logit lens (logit_lens), which the
// values menu and the lens table show, the rollout, the attributions (attribute: all, which
// the values menu draws beside cross and decoder self-attention), and heads to ablate
// (ablate_heads, TYPE:LAYER:HEAD,...). Sending POSTs them with {"texts": [...], "view": true} to /v1/attention;
// the answer is this page again with their attention, which replaces the document, form
// included. The server writes the choices it answered into the data (live_request), so the
// form comes back as it was sent. A refusal (a JSON error: a bad spec, too long a sentence) is
// shown beside the box and the page stays.
page.live = (function () {
  var el = page.dom.el;
  // Before any sentence: scores, norms and a lens of 5 tokens, so the page is the full page.
  var DEFAULTS = { dump_scores: true, dump_norms: true, logit_lens: 5, rollout: false, attribute: false,
                   ablate_heads: '' };
  var asked = page.data.all.live_request || DEFAULTS;
  var lensTokens = asked.logit_lens > 0 ? asked.logit_lens : DEFAULTS.logit_lens;

  var shown = page.data.sentences.map(function (s) { return s.source; }).join('\n');
  var box = el('textarea', { id: 'live-text', rows: '2', cols: '60',
                             placeholder: 'Type a sentence (one per line), then Translate' }, []);
  box.value = shown;
  var send = el('button', { id: 'live-send', type: 'submit' }, ['Translate']);
  var said = el('span', { id: 'live-status', 'data-state': 'idle' }, []);

  // A checkbox for one of the request's options, checked as it was last sent.
  function choice(id, key, text, title) {
    var input = el('input', { id: id, type: 'checkbox' }, []);
    input.checked = !!asked[key];
    return { input: input, label: el('label', { title: title }, [input, ' ' + text]) };
  }
  var scores = choice('live-scores', 'dump_scores', 'scores',
                      'dump_scores: the softmax\u2019s input; the values menu draws it, the panel of a row reads it');
  var norms = choice('live-norms', 'dump_norms', 'weight \u00d7 norm',
                     'dump_norms: ||a_ij v_j W_O||, what each key adds through the head; in the values menu');
  var lens = choice('live-lens', 'logit_lens', 'logit lens',
                    'logit_lens ' + lensTokens + ': what each decoder layer would predict, under each sentence');
  var rollout = choice('live-rollout', 'rollout', 'rollout',
                       'rollout: attention rollout, a heuristic, under the encoder and cross-attention');
  var attribute = choice('live-attribute', 'attribute', 'attributions',
                         'attribute: all: saliency, input \u00d7 gradient, integrated gradients (32 steps) and ' +
                         'occlusion of each output token, in the values menu');
  var ablate = el('input', { id: 'live-ablate', type: 'text', size: '16', spellcheck: 'false',
                             placeholder: 'e.g. cross:-1:0' }, []);
  ablate.value = asked.ablate_heads || '';
  var options = el('div', { id: 'live-options' }, [
    'record:', scores.label, norms.label, lens.label, rollout.label, attribute.label,
    el('label', { title: 'ablate_heads: TYPE:LAYER:HEAD,... (encoder, decoder, cross; * for every layer ' +
                          'or head, negative layers from the end): their weights set to 0 after the softmax' },
       ['ablate heads ', ablate])]);
  var form = el('form', { id: 'live-form' }, [box, ' ', send, ' ', said, options]);
  document.querySelector('header').insertBefore(form, document.querySelector('header h1'));

  function tell(state, text) {
    said.setAttribute('data-state', state);
    said.textContent = text;
  }

  // The body of the request: the sentences and the choices of the form.
  function body(texts) {
    var request = { texts: texts, view: true };
    if (scores.input.checked) request.dump_scores = true;
    if (norms.input.checked) request.dump_norms = true;
    if (lens.input.checked) request.logit_lens = lensTokens;
    if (rollout.input.checked) request.rollout = true;
    if (attribute.input.checked) request.attribute = ['all'];
    if (ablate.value.trim() !== '') request.ablate_heads = ablate.value.trim();
    return JSON.stringify(request);
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var texts = box.value.split('\n').filter(function (line) { return line.trim() !== ''; });
    if (!texts.length) return tell('error', 'type a sentence first');
    tell('pending', 'translating\u2026');
    send.disabled = true;
    fetch('/v1/attention', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body(texts) })
      .then(function (answer) {
        return answer.text().then(function (text) {
          if (!answer.ok) {
            var refusal = null;
            try { refusal = JSON.parse(text).error; } catch (e) { /* not JSON: the status says it */ }
            throw new Error(refusal || answer.status + ' ' + answer.statusText);
          }
          document.open();
          document.write(text);
          document.close();
        });
      })
      .catch(function (error) {
        send.disabled = false;
        tell('error', 'error: ' + error.message);
      });
  });
  return { form: form };
}());
