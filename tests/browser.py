"""One headless Chromium for a whole test, driven over the DevTools protocol on a pipe.

Starting Chromium costs seconds; a page costs a fraction of one. Browser starts it once
(--remote-debugging-pipe: commands on fd 3, answers on fd 4, each a JSON text ended by a NUL
byte, so no WebSocket library is needed) and opens every page in a fresh browser context: no
cookies, storage or history carry over from one page to the next, as with a fresh profile.

    with Browser(scratch) as browser:
        dom = browser.dom("file:///tmp/page.html#sentence=2")
        browser.screenshot("file:///tmp/page.html", "/tmp/shot.png", size=(1400, 1000))

or, for a whole test, browser_test(__doc__, name, check) (below). Stdlib only. Chromium missing
or failing raises BrowserError: the test reports it as a failure, it is not skipped.
"""

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

import support

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-quic", "--hide-scrollbars", "--remote-debugging-pipe"]
# The page as --dump-dom prints it: the doctype, then the document element.
DOM_SCRIPT = ("(document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '')"
              " + document.documentElement.outerHTML")


# In a minimt page: hovers every cell of one heatmap figure of the shown sentence and returns the
# tooltip texts, row by row; with `values` (JSON: a values menu entry, or null to leave the menu
# as it is) it first picks that entry. null when the menu has no such entry or the figure is not
# drawn. Use: page.evaluate(HOVER_CELLS % (json.dumps(type), layer, head, json.dumps(values))).
HOVER_CELLS = """(function (type, layer, head, values) {
  var pick = document.getElementById('pick-values');
  if (values) {
    if (!pick || !pick.querySelector('option[value="' + values + '"]')) return null;
    pick.value = values;
    pick.dispatchEvent(new Event('change'));
  }
  var fig = document.querySelector('section.sentence:not([hidden]) figure[data-type="' + type +
                                   '"][data-layer="' + layer + '"][data-head="' + head + '"]');
  var g = fig && fig.minimt;
  if (!g) return null;
  fig.scrollIntoView();
  var over = fig.querySelectorAll('canvas')[1], box = over.getBoundingClientRect();
  var tip = document.getElementById('minimt-tip'), out = [];
  for (var i = 0; i < g.m.rows; i++) {
    var row = [];
    for (var j = 0; j < g.m.cols; j++) {
      over.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + g.left + (j + 0.5) * g.cell,
                                                       clientY: box.top + g.top + (i + 0.5) * g.cell,
                                                       bubbles: true }));
      row.push(tip.textContent);
    }
    out.push(row);
  }
  return out;
}(%s, %s, %s, %s))"""


class BrowserError(Exception):
    pass


def above_9(fd):
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    def __init__(self, scratch, program="chromium", timeout=60):
        path = shutil.which(program)
        if not path:
            raise BrowserError("%s is not installed (tools/test.sh installs Debian's chromium; "
                               "or run apt-get install chromium)" % program)
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="profile-", dir=scratch)
        # Our ends of the two pipes, and Chromium's, which go to its fds 3 and 4 (moved above 9
        # first, so that neither already is 3 or 4: dup2 onto itself would keep close-on-exec).
        commands_read, self.commands = (above_9(fd) for fd in os.pipe())
        self.answers, answers_write = (above_9(fd) for fd in os.pipe())
        self.log = tempfile.TemporaryFile(dir=scratch)

        def to_fds_3_and_4():
            os.dup2(commands_read, 3)
            os.dup2(answers_write, 4)

        self.process = subprocess.Popen(
            [path, *FLAGS, "--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            close_fds=False, preexec_fn=to_fds_3_and_4)  # the other fds close on exec
        os.close(commands_read)
        os.close(answers_write)
        self.next_id, self.buffer, self.events = 0, b"", []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.process.poll() is None:
            try:
                self.call("Browser.close")
                self.process.wait(timeout=10)
            except (BrowserError, OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        for fd in (self.commands, self.answers):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def said(self):
        """The end of what Chromium wrote on stdout and stderr (for failure messages)."""
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-400:]

    def _message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.answers], [], [], left)[0]:
                raise BrowserError("Chromium did not answer in %d s: %s" % (self.timeout,
                                                                              self.said()))
            chunk = os.read(self.answers, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium ended: " + self.said())
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(text)

    def call(self, method, session=None, **params):
        """Sends one command and returns its result; events that arrive meanwhile are kept."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise BrowserError("%s: %s" % (method, answer["error"].get("message")))
                return answer.get("result", {})
            self.events.append(answer)

    def wait_event(self, method, session):
        deadline = time.monotonic() + self.timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self.events[i]
                    return event
            self.events.append(self._message(deadline))

    def evaluate(self, session, script):
        result = self.call("Runtime.evaluate", session, expression=script, returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError("script failed: %s" % result["exceptionDetails"].get("text"))
        return result["result"].get("value")

    def _open(self, url, size):
        """A new page in a new browser context, `url` loaded: (context, target, session)."""
        context = self.call("Target.createBrowserContext")["browserContextId"]
        target = self.call("Target.createTarget", url="about:blank",
                           browserContextId=context)["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session)
        if size:
            self.call("Emulation.setDeviceMetricsOverride", session, width=size[0],
                      height=size[1], deviceScaleFactor=1, mobile=False)
        self.events = [e for e in self.events if e.get("sessionId") != session]
        navigated = self.call("Page.navigate", session, url=url)
        if navigated.get("errorText"):
            raise BrowserError("%s: %s" % (url, navigated["errorText"]))
        self.wait_event("Page.loadEventFired", session)
        return context, target, session

    def _close(self, context, target):
        self.call("Target.closeTarget", targetId=target)
        self.call("Target.disposeBrowserContext", browserContextId=context)

    def page(self, url, size=None, until=None):
        """Loads `url` in a fresh context (at `size`, (width, height) in CSS pixels, when given),
        waits for the load event and, with `until`, for a CSS selector to match; then returns a
        Page for questions about it. Use as a context manager: the context ends with it."""
        return Page(self, url, size, until)

    def dom(self, url, size=None, until=None):
        """The document after its scripts ran, as --dump-dom prints it."""
        with self.page(url, size, until) as page:
            return page.evaluate(DOM_SCRIPT)

    def screenshot(self, url, path, size):
        """Writes a PNG of the viewport at `size` to `path`."""
        with self.page(url, size) as page:
            data = self.call("Page.captureScreenshot", page.session, format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


class Page:
    def __init__(self, browser, url, size, until):
        self.browser, self.url, self.size, self.until = browser, url, size, until

    def __enter__(self):
        self.context, self.target, self.session = self.browser._open(self.url, self.size)
        if self.until:
            deadline = time.monotonic() + self.browser.timeout
            while not self.evaluate("!!document.querySelector(%s)" % json.dumps(self.until)):
                if time.monotonic() > deadline:
                    raise BrowserError("%s: nothing matched %r in %d s" %
                                       (self.url, self.until, self.browser.timeout))
                time.sleep(0.02)
        return self

    def __exit__(self, *exc):
        self.browser._close(self.context, self.target)

    def evaluate(self, script):
        return self.browser.evaluate(self.session, script)


def browser_test(doc, name, tally, check):
    """The main of a browser test: --minimt and --chromium on its command line, then
    check(minimt, browser, scratch) with one Browser and a scratch folder; a browser that fails
    is a failure in `tally` (a support.Tally). Returns the exit status."""
    parser = support.parser(doc)
    parser.add_argument("--chromium", default="chromium", help="the browser (default chromium)")
    args = parser.parse_args()
    minimt = support.minimt_from(args)
    with support.scratch(name) as scratch:
        try:
            with Browser(scratch, args.chromium) as browser:
                check(minimt, browser, scratch)
        except BrowserError as e:
            tally.check(False, "the browser: %s" % e)
    return tally.finish()
