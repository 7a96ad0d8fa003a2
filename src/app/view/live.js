// The page minimt serve answers at / (ViewOptions::live): a box above the heatmaps where the
// user types sentences, one a line. Sending them POSTs {"texts": [...], "view": true} to
// /v1/attention; the answer is this page again with their attention, which replaces the
// document, box included. A refusal (a JSON error) is shown beside the box.
page.live = (function () {
  var el = page.dom.el;
  var shown = page.data.sentences.map(function (s) { return s.source; }).join('\n');
  var box = el('textarea', { id: 'live-text', rows: '2', cols: '60',
                             placeholder: 'Type a sentence (one per line), then Translate' }, []);
  box.value = shown;
  var send = el('button', { id: 'live-send', type: 'submit' }, ['Translate']);
  var said = el('span', { id: 'live-status', 'data-state': 'idle' }, []);
  var form = el('form', { id: 'live-form' }, [box, ' ', send, ' ', said]);
  document.querySelector('header').insertBefore(form, document.querySelector('header h1'));

  function tell(state, text) {
    said.setAttribute('data-state', state);
    said.textContent = text;
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var texts = box.value.split('\n').filter(function (line) { return line.trim() !== ''; });
    if (!texts.length) return tell('error', 'type a sentence first');
    tell('pending', 'translating\u2026');
    send.disabled = true;
    fetch('/v1/attention', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                             body: JSON.stringify({ texts: texts, view: true }) })
      .then(function (answer) {
        return answer.text().then(function (text) {
          if (!answer.ok) throw new Error(JSON.parse(text).error || answer.statusText);
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
