#!/usr/bin/python3
"""minimt serve against an attacker and a careless client (docs/security.md, docs/robustness.md
"minimt serve requests"), the server under `prlimit --as=1.5G` the whole time:

  1. one request must not take the server down or make it work without bound: a body nested
     100,000 deep; Range headers of thousands of ranges on the page and on POSTs (no 206, the
     whole answer once); an attention request inside every documented limit whose answer
     would be larger than --max-answer-bytes (413 naming the limit, never a truncated 200),
     and the bound holding (an answer is refused under a limit one byte below its size);
  2. slow clients: with --connections 4 --timeout 2, 16 connections that each send half a
     header line, a health check is answered within the timeout;
  3. HTTP that says one thing twice, or lies: bytes after a malformed request line are no
     request (the hidden POST is not translated, the connection closes); two Content-Length
     headers (equal or not), a negative one, one beside Transfer-Encoding; Expect:
     100-continue with a body over the limit (413 before any "100 Continue"); duplicate JSON
     keys; integers past 32 bits (2^64-1 no longer wraps to -1); and more of each kind;
  4. the fuzzer's seeds (tests/fuzz/corpus/http_request/), each sent as a connection's bytes.
After every case the server must still answer /v1/health, and at the end it must still be
the same process, alive.

    test_serve_hostile.py MINIMT_BINARY

Ends with "N passed, N failed"; exits 1 on any failure.
"""
import json
import os
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "models", "en-fr")
SEEDS = os.path.join(ROOT, "tests", "fuzz", "corpus", "http_request")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_support import Server, Tally  # noqa: E402


def memory_limit(minimt):
    """prlimit --as=1.5G, unless the build is sanitized (ASan reserves terabytes of address
    space; tools/test.sh --sanitize runs this test there without the limit)."""
    linked = subprocess.run(["ldd", minimt], capture_output=True, text=True).stdout
    return [] if "libasan" in linked else ["prlimit", "--as=%d" % (1536 << 20)]


MEMORY = []


def exchange(port, data, timeout=5.0, half_close=False):
    """Sends `data` on a new connection and reads until the server closes it or `timeout`
    passes; (bytes read, whether the server closed, seconds taken)."""
    s = socket.create_connection(("127.0.0.1", port))
    start = time.time()
    try:
        s.sendall(data)
    except OSError:
        pass
    if half_close:
        s.shutdown(socket.SHUT_WR)
    s.settimeout(0.2)
    got, closed = b"", False
    while time.time() - start < timeout:
        try:
            chunk = s.recv(1 << 20)
        except socket.timeout:
            continue
        except OSError:  # reset after the answer: closed all the same
            closed = True
            break
        if not chunk:
            closed = True
            break
        got += chunk
    s.close()
    return got, closed, time.time() - start


def answers(data):
    """The (status, body) of each HTTP answer in `data`, by Content-Length."""
    out = []
    while data.startswith(b"HTTP/1.1 "):
        head, _, rest = data.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if status == 100:
            data = rest
            out.append((100, b""))
            continue
        out.append((status, rest[:length]))
        data = rest[length:]
    return out


def post(path, body, extra=b""):
    return (b"POST %s HTTP/1.1\r\nHost: x\r\n%sContent-Length: %d\r\n\r\n%s" %
            (path.encode(), extra, len(body), body))


def alive(t, server, after):
    try:
        status, body = server.get("/v1/health")
    except OSError as e:
        status, body = None, repr(e).encode()
    t.check(status == 200 and server.process.poll() is None,
            "the server answers after %s: %r %r" % (after, status, body[:100]))


def one_request_costs(t, server):
    # A body nested 100,000 deep (195 KB): refused, no recursion.
    deep = b'{"text":"a","beam_size":' + b"[" * 100000 + b"]" * 100000 + b"}"
    got, _, _ = exchange(server.port, post("/v1/translate", deep), timeout=10)
    a = answers(got)
    t.check(len(a) == 1 and a[0][0] == 400 and b"more than 32 deep" in a[0][1],
            "a body nested 100,000 deep: %r" % (a[:1] or got[:200]))
    alive(t, server, "a body nested 100,000 deep")
    # Ranges: ignored everywhere (the answer whole, once, 200).
    ranges = b"bytes=" + b",".join(b"%d-%d" % (i, i + 100000) for i in range(0, 2700 * 3, 3))
    status, page = server.get("/")
    for name, request in [
            ("GET /", b"GET / HTTP/1.1\r\nHost: x\r\nRange: " + ranges + b"\r\n\r\n"),
            ("POST /v1/attention", post("/v1/attention", json.dumps(
                {"text": " ".join(["the red house"] * 40)}).encode(),
                b"Range: " + ranges + b"\r\n"))]:
        got, _, _ = exchange(server.port, request, timeout=30)
        a = answers(got)
        ok = len(a) == 1 and a[0][0] == 200 and b"206" not in got[:12]
        if ok and name == "GET /":
            ok = a[0][1] == page
        if ok and name != "GET /":
            ok = isinstance(json.loads(a[0][1]), dict)
        t.check(ok, "%s with %d ranges: %r" % (name, 2700, [(s, len(b)) for s, b in a]))
        alive(t, server, "Range on " + name)


def answer_bound(t, minimt):
    # A legal /v1/attention request (300 long sentences, 240 KB, inside every documented
    # limit): 413 naming --max-answer-bytes before any of it is written out; never a cut 200.
    sentence = " ".join(["the red house and the small dog sees the cat"] * 8)
    texts = [sentence + " %d" % i for i in range(300)]
    body = json.dumps({"texts": texts}).encode()
    flags = ["--model", MODEL, "--max-body-bytes", str(1 << 20), "--threads", "2"]
    with Server(minimt, flags, wrapper=MEMORY) as server:
        # Connection: close, so that the queue is looked at as soon as the refusal is read.
        got, _, seconds = exchange(server.port,
                                   post("/v1/attention", body, b"Connection: close\r\n"),
                                   timeout=120)
        a = answers(got)
        error = json.loads(a[0][1]) if a and a[0][0] == 413 else {}
        t.check(len(a) == 1 and error.get("field") == "max_answer_bytes" and
                "--max-answer-bytes" in error.get("error", ""),
                "300 long sentences on /v1/attention: %r" % ([(s, b[:200]) for s, b in a],))
        alive(t, server, "an answer over the limit")
        # The refused request's lines not yet taken leave the queue with it: nothing of it is
        # still waiting to be translated (before: the other 284 sentences were, and the next
        # client waited for them).
        status, body = server.get("/v1/health")
        t.check(status == 200 and json.loads(body).get("queued_lines") == 0,
                "after the refusal, the server's queue: %r %r" % (status, body[:100]))
        # The count is an upper bound of what is written: an answer of A bytes is refused by a
        # server whose limit is A - 1, and whole under a limit of A * 3.
        small = json.dumps({"texts": ["I am a student.", "The black cat sees the small dog."] * 3,
                            "dump_types": ["cross", "decoder"]}).encode()
        got, _, _ = exchange(server.port, post("/v1/attention", small), timeout=60)
        whole = answers(got)
        size = len(whole[0][1]) if whole and whole[0][0] == 200 else 0
        t.check(size > 0 and json.loads(whole[0][1])["sentences"][5]["translation"] ==
                "Le chat noir voit le petit chien.", "a small attention request: %d bytes" % size)
    for limit, want in [(size - 1, 413), (size * 3, 200)]:
        limit = max(limit, 1 << 16)
        with Server(minimt, ["--model", MODEL, "--max-answer-bytes", str(limit)],
                    wrapper=MEMORY) as server:
            got, _, _ = exchange(server.port, post("/v1/attention", small), timeout=60)
            a = answers(got)
            t.check(len(a) == 1 and a[0][0] == want and (want != 200 or len(a[0][1]) == size),
                    "an answer of %d bytes under --max-answer-bytes %d: %r, want %d" %
                    (size, limit, [(s, len(b)) for s, b in a], want))


def slow_clients(t, minimt):
    # --connections 4 --timeout 2: 16 connections that each send half a header line; a health
    # check on the 17th is answered within the timeout (before: 7.8 s).
    with Server(minimt, ["--model", MODEL, "--connections", "4", "--timeout", "2"],
                wrapper=MEMORY) as server:
        stalled = []
        for _ in range(16):
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHo")
            stalled.append(s)
        for round_ in range(2):
            start = time.time()
            got, _, _ = exchange(server.port, b"GET /v1/health HTTP/1.1\r\nHost: x\r\n"
                                 b"Connection: close\r\n\r\n", timeout=10)
            took = time.time() - start
            a = answers(got)
            t.check(a and a[0][0] == 200 and took < 2.0,
                    "16 stalled connections, --connections 4 --timeout 2: health in %.2f s "
                    "(round %d): %r" % (took, round_, a[:1]))
            for _ in range(8):  # the crowd comes back
                s = socket.create_connection(("127.0.0.1", server.port))
                s.sendall(b"POST /v1/translate HTTP/1.1\r\nContent-Length: 10\r\n\r\n{")
                stalled.append(s)
        for s in stalled:
            s.close()
        alive(t, server, "stalled clients")


def said_twice_or_lied(t, server):
    body = b'{"text":"I am a student."}'
    cases = [
        # name, bytes, want statuses in order, the connection must close
        ("a malformed request line, then a hidden POST",
         b"GET /\x01 HTTP/1.1\r\n\r\n" + post("/v1/translate", body), [400], True),
        ("a request line without a version, then a hidden POST",
         b"GARBAGE\r\n\r\n" + post("/v1/translate", body), [400], True),
        ("two Content-Length that differ",
         b"POST /v1/translate HTTP/1.1\r\nContent-Length: %d\r\nContent-Length: 5\r\n\r\n%s"
         % (len(body), body), [400], True),
        ("two equal Content-Length",
         b"POST /v1/translate HTTP/1.1\r\nContent-Length: %d\r\nContent-Length: %d\r\n\r\n%s"
         % (len(body), len(body), body), [400], True),
        ("a Content-Length list",
         b"POST /v1/translate HTTP/1.1\r\nContent-Length: %d, %d\r\n\r\n%s"
         % (len(body), len(body), body), [400], True),
        ("Content-Length: -1", b"POST /v1/translate HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
         [400], True),
        ("Content-Length: +27", b"POST /v1/translate HTTP/1.1\r\nContent-Length: +27\r\n\r\n"
         + body, [400], True),
        ("Content-Length past 64 bits",
         b"POST /v1/translate HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
         [400], True),
        ("Content-Length beside Transfer-Encoding",
         b"POST /v1/translate HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
         b"0\r\n\r\n", [400], True),
        ("Transfer-Encoding: gzip", b"POST /v1/translate HTTP/1.1\r\nTransfer-Encoding: gzip\r\n"
         b"\r\n" + body, [411], True),
        ("Expect: 100-continue with 50 MB",
         b"POST /v1/translate HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 50000000\r\n\r\n",
         [413], True),
        ("Expect: something else",
         b"POST /v1/translate HTTP/1.1\r\nExpect: 200-ok\r\nContent-Length: %d\r\n\r\n%s"
         % (len(body), body), [417], True),
        ("a NUL in a header", b"GET /v1/health HTTP/1.1\r\nX-A: \x00\r\n\r\n", [400], True),
        ("HTTP/2's preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", [400], True),
        ("a request line of 100,000 bytes", b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\n\r\n",
         [413], True),
        ("a body after a 413 is no request",
         b"POST /v1/translate HTTP/1.1\r\nContent-Length: 50000000\r\n\r\n" +
         post("/v1/translate", body), [413], True),
        ("a request for a path with a NUL", b"GET /v1/health\x00 HTTP/1.1\r\n\r\n", [400], True),
        ("GET on a POST endpoint, then a good request",
         b"GET /v1/translate HTTP/1.1\r\n\r\n" +
         post("/v1/translate", body, b"Connection: close\r\n"), [405, 200], True),
        ("a health check, then HTTP/1.0 (closes)",
         b"GET /v1/health HTTP/1.1\r\n\r\nGET /v1/health HTTP/1.0\r\n\r\n", [200, 200], True),
    ]
    for name, data, want, closes in cases:
        got, closed, seconds = exchange(server.port, data, timeout=server.timeout + 2)
        a = answers(got)
        statuses = [status for status, _ in a if status != 100]
        bodies_ok = all(b'"error"' in b for s, b in a if s >= 400)
        t.check(statuses == want and (closed or not closes) and seconds < server.timeout and
                bodies_ok and b"100 Continue" not in got[:40],
                "%s: %r closed=%s in %.1f s, want %r%s" %
                (name, [(s, b[:120]) for s, b in a], closed, seconds, want,
                 " and closed" if closes else ""))
        # A translation answer is never among the refusals' (the hidden request was not read).
        t.check(b"translation" not in got or want[-1] == 200, "%s: hidden request answered" % name)
    # HEAD: the head of GET's answer (its Content-Length), no body.
    got, closed, _ = exchange(server.port, b"HEAD / HTTP/1.1\r\nConnection: close\r\n\r\n")
    head, _, rest = got.partition(b"\r\n\r\n")
    t.check(head.startswith(b"HTTP/1.1 200 ") and b"Content-Length: %d" % len(server.get("/")[1])
            in head and rest == b"" and closed, "HEAD /: %r + %d bytes" % (head[:80], len(rest)))
    alive(t, server, "HTTP that says one thing twice")
    # The JSON: one thing said twice, and numbers that do not fit.
    for document, field in [
            (b'{"text":"a","text":"b"}', "text"),
            (b'{"text":"a","beam_size":2,"beam_size":1}', "beam_size"),
            (b'{"text":"a","dump_types":["cross"],"dump_types":["encoder"]}', "dump_types"),
            (b'{"text":"a","dump_layers":[18446744073709551615]}', "dump_layers"),
            (b'{"text":"a","dump_layers":[-9223372036854775808]}', "dump_layers"),
            (b'{"text":"a","dump_heads":[4294967296]}', "dump_heads"),
            (b'{"text":"a","max_length":1e400}', None),
            (b'{"text":"a","dump_layers":' + b"[" * 40 + b"]" * 40 + b"}", None)]:
        got, _, _ = exchange(server.port, post("/v1/attention", document))
        a = answers(got)
        error = json.loads(a[0][1]) if a else {}
        t.check(len(a) == 1 and a[0][0] == 400 and (field is None or error.get("field") == field),
                "%r: %r, want 400 naming %r" % (document[:60], a[:1], field))
    alive(t, server, "JSON that says one thing twice")


def fuzz_seeds(t, server):
    for name in sorted(os.listdir(SEEDS)):
        raw, framed = b"", open(os.path.join(SEEDS, name), "rb").read()
        while framed:  # the seed's pieces, as the fuzzer reads them
            length = framed[0] % 64 + 1
            raw, framed = raw + framed[1:1 + length], framed[1 + length:]
        got, _, _ = exchange(server.port, raw, timeout=server.timeout + 2, half_close=True)
        t.check(got.startswith(b"HTTP/1.1 "), "seed %s: %r" % (name, got[:100]))
    alive(t, server, "the fuzzer's seeds")


def main():
    global MEMORY
    minimt = os.path.abspath(sys.argv[1])
    MEMORY = memory_limit(minimt)
    t = Tally()
    flags = ["--model", MODEL, "--max-body-bytes", "400000", "--max-sentences", "8",
             "--timeout", "3"]
    with Server(minimt, flags, wrapper=MEMORY) as server:
        pid = server.process.pid
        t.run("one request's cost", lambda: one_request_costs(t, server))
        t.run("HTTP and JSON that say one thing twice", lambda: said_twice_or_lied(t, server))
        t.run("the fuzzer's seeds", lambda: fuzz_seeds(t, server))
        t.check(server.process.poll() is None and server.process.pid == pid,
                "the same server process is alive at the end")
    t.run("an answer past --max-answer-bytes", lambda: answer_bound(t, minimt))
    t.run("slow clients", lambda: slow_clients(t, minimt))
    t.finish()


if __name__ == "__main__":
    main()
