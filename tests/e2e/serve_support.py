"""What test_serve.py needs around minimt serve: the server as a process on a free port, HTTP
requests to it, a tally of checks, and the live page in headless Chromium (tests/browser.py).
Stdlib only.
"""
import base64
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from browser import Browser  # noqa: E402


def wait_for(page, script, seconds=60):
    """The first truthy value of `script` in `page`, polled; None after `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = page.evaluate(script)
        if value:
            return value
        time.sleep(0.1)
    return None


class Tally:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, condition, what):
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what, flush=True)
        return condition

    def run(self, name, case):
        start = time.time()
        try:
            case()
        except Exception:  # a case that breaks is a failure, the others still run
            self.check(False, "%s raised:\n%s" % (name, traceback.format_exc()))
        print("%s: %.1f s" % (name, time.time() - start), flush=True)

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        raise SystemExit(1 if self.failed else 0)


class Server:
    """minimt serve FLAGS --port 0, up until its 'listening on' line; stopped at the end."""

    def __init__(self, minimt, flags, wrapper=()):
        """`wrapper`: a command the server runs under (prlimit --as=... to bound its memory)."""
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([*wrapper, minimt, "serve", "--port", "0", *flags],
                                        stdout=subprocess.DEVNULL, stderr=self.log)
        self.timeout = int(flags[flags.index("--timeout") + 1]) if "--timeout" in flags else 5
        deadline = time.time() + 120
        while time.time() < deadline:
            found = re.search(r"listening on http://[^:]+:(\d+)/", self.stderr())
            if found:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("minimt serve did not start: " + self.stderr())

    def stderr(self):
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)

    def request(self, method, path, body=None, timeout=120):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            connection.request(method, path, body=body, headers=headers)
            answer = connection.getresponse()
            return answer.status, answer.read()
        finally:
            connection.close()

    def get(self, path):
        return self.request("GET", path)

    def post_raw(self, path, body, timeout=120):
        return self.request("POST", path, body, timeout)

    def post(self, path, document, timeout=120):
        return self.post_raw(path, json.dumps(document).encode(), timeout)


def browser_types_and_sends(t, server, program, model, minimt, sentence="The cat sat on the mat.",
                            screenshot=None):
    """Opens / in Chromium, types `sentence` into the box, sends it: every head must appear."""
    scratch = tempfile.mkdtemp(prefix="serve-page-")
    dump = os.path.join(scratch, "dump.json")
    subprocess.run([minimt, "translate", "-q", "--model", model, "--dump-attention", dump,
                    sentence], check=True, timeout=120, stdout=subprocess.DEVNULL)
    with open(dump) as f:
        written = json.load(f)["sentences"][0]
    heads = sum(len(written[key]) * len(written[key][0])
                for key in ("encoder_self_attention", "decoder_self_attention", "cross_attention"))
    try:
        with Browser(scratch, program) as browser, \
                browser.page("http://127.0.0.1:%d/" % server.port, size=(1400, 1000)) as page:
            empty = wait_for(page, "document.getElementById('live-text') && "
                                    "document.getElementById('minimt-status').textContent")
            t.check(empty == "ok: 0 heatmaps", "the page before a sentence: %r" % empty)
            page.evaluate("document.getElementById('live-text').focus()")
            browser.call("Input.insertText", page.session, text=sentence)
            page.evaluate("document.getElementById('live-send').click()")
            status = wait_for(
                page, "(function () { var s = document.getElementById('minimt-status');"
                      " return s && /^ok: [1-9]/.test(s.textContent) && s.textContent; })()")
            t.check(status == "ok: %d heatmaps" % heads,
                    "typed %r: status %r, want 'ok: %d heatmaps'" % (sentence, status, heads))
            shown = page.evaluate("[document.querySelectorAll("
                                  "'figure.heatmap:not(.average) canvas.cells').length,"
                                  " document.getElementById('live-text').value,"
                                  " document.querySelector('dl.texts dd').textContent]")
            t.check(shown == [heads, sentence, sentence],
                    "after sending: heatmaps, the box and the source shown: %r" % (shown,))
            if screenshot:
                shot = browser.call("Page.captureScreenshot", page.session, format="png")
                with open(screenshot, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
