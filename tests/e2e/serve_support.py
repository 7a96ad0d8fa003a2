"""What test_serve.py needs around minimt serve: the server as a process on a free port, HTTP
requests to it, a tally of checks, and headless Chromium driven over the DevTools protocol on a
pipe (--remote-debugging-pipe: JSON messages ended by a NUL byte on fds 3 and 4). Stdlib only.
"""
import fcntl
import http.client
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import traceback


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

    def __init__(self, minimt, flags):
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([minimt, "serve", "--port", "0", *flags],
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


def _above_9(fd):
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Chromium:
    """Headless Chromium; call(method, session, **params) sends one DevTools command."""

    FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", "--remote-debugging-pipe"]

    def __init__(self, program):
        if not shutil.which(program):
            raise RuntimeError(program + " is not installed (tools/setup.sh --tests installs it)")
        self.profile = tempfile.mkdtemp(prefix="chromium-")
        commands_in, self.commands = (_above_9(fd) for fd in os.pipe())
        self.answers, answers_out = (_above_9(fd) for fd in os.pipe())

        def fds_3_and_4():
            os.dup2(commands_in, 3)
            os.dup2(answers_out, 4)

        self.process = subprocess.Popen(
            [program, *self.FLAGS, "--user-data-dir=" + self.profile, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=fds_3_and_4,
            close_fds=False)
        os.close(commands_in)
        os.close(answers_out)
        self.buffer, self.next_id = b"", 0

    def close(self):
        self.process.kill()
        self.process.wait()
        os.close(self.commands)
        os.close(self.answers)
        shutil.rmtree(self.profile, ignore_errors=True)

    def call(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.answers, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buffer += chunk
            text, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(text)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError("%s: %r" % (method, answer["error"]))
                return answer["result"]

    def evaluate(self, session, script):
        result = self.call("Runtime.evaluate", session, expression=script, returnByValue=True)
        return result["result"].get("value")

    def wait_for(self, session, script, seconds=60):
        deadline = time.time() + seconds
        while time.time() < deadline:
            value = self.evaluate(session, script)
            if value:
                return value
            time.sleep(0.1)
        return None


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
    browser = Chromium(program)
    try:
        target = browser.call("Target.createTarget", url="about:blank")["targetId"]
        session = browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        browser.call("Emulation.setDeviceMetricsOverride", session, width=1400, height=1000,
                     deviceScaleFactor=1, mobile=False)
        browser.call("Page.navigate", session, url="http://127.0.0.1:%d/" % server.port)
        empty = browser.wait_for(session, "document.getElementById('live-text') && "
                                          "document.getElementById('minimt-status').textContent")
        t.check(empty == "ok: 0 heatmaps", "the page before a sentence: %r" % empty)
        browser.evaluate(session, "document.getElementById('live-text').focus()")
        browser.call("Input.insertText", session, text=sentence)
        browser.evaluate(session, "document.getElementById('live-send').click()")
        status = browser.wait_for(
            session, "(function () { var s = document.getElementById('minimt-status');"
                     " return s && /^ok: [1-9]/.test(s.textContent) && s.textContent; })()")
        t.check(status == "ok: %d heatmaps" % heads,
                "typed %r: status %r, want 'ok: %d heatmaps'" % (sentence, status, heads))
        shown = browser.evaluate(session, "[document.querySelectorAll("
                                          "'figure.heatmap:not(.average) canvas.cells').length,"
                                          " document.getElementById('live-text').value,"
                                          " document.querySelector('dl.texts dd').textContent]")
        t.check(shown == [heads, sentence, sentence],
                "after sending: heatmaps, the box and the source shown: %r" % (shown,))
        if screenshot:
            import base64
            shot = browser.call("Page.captureScreenshot", session, format="png")
            with open(screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
    finally:
        browser.close()
        shutil.rmtree(scratch, ignore_errors=True)
