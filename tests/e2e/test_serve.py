#!/usr/bin/python3
"""minimt serve against minimt translate and minimt score, over real HTTP on loopback.

    test_serve.py MINIMT_BINARY [CHROMIUM]

Starts `minimt serve --port 0` (a free port, read from its first line) with the shipped model
and small limits, then:
  - every endpoint with good requests: each answer equals the record `minimt translate
    --format jsonl` (or score, or the dump of --dump-attention) writes for the same sentences
    and options, byte for byte once time_ms is removed; 16 clients at once, each its own
    sentences, get the same answers as alone;
  - bad requests: malformed JSON, invalid UTF-8, wrong types, unknown options, missing fields,
    values out of range, a compute type not loaded, an unknown path: a 4xx with a JSON error
    naming the field; bodies, sentence counts and sentences over the limits: 413;
  - a stalled client (half a request) is dropped after --timeout and holds no translator, and
    so is one that trickles a request a byte at a time; a vanished client (gone before its
    answer) harms no one; SIGTERM in the middle of a request:
    that request is answered in full, then the server exits 0 and accepts no more, an idle
    keep-alive connection holding nothing back;
  - the connection's bytes: pipelined requests answered in order, "Expect: 100-continue"
    answered before the body is sent, request after request on one connection;
  - the load test's client (minimt_load_client, beside MINIMT_BINARY) gets translate's records
    and the refusals' statuses and bodies, in input order;
  - with a long --max-wait-ms, a batch starts at once when every open connection waits for
    its answer, and waits while a silent connection is open;
  - the page at / in headless Chromium (DevTools over a pipe): a sentence typed in its box
    and sent shows every head of the three attention types.
Ends with "N passed, N failed"; exits 1 on any failure.
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "models", "en-fr")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_support import Server, Tally, browser_types_and_sends  # noqa: E402

SENTENCES = ["The cat sat on the mat.", "Hello world.", "", "   ",
             "The small dog sees the red house and the big cat under the table.",
             "caf\u00e9 na\u00efve \u65e5\u672c stra\u00dfe", "Where is the station?"]
LONG = " ".join(["the red house"] * 120)  # longer than the model's max_positions: truncated


def strip_time(record):
    return re.sub(rb',"time_ms":[0-9.]+\}', b"}", record)


def as_array(records):
    """The body of a request with a list: the records, in order, as one JSON array."""
    return b"[" + b",".join(records) + b"]\n"


def cli(minimt, *args):
    result = subprocess.run([minimt, *args, "--model", MODEL, "-q"], capture_output=True,
                            timeout=300)
    return result.stdout


def cli_records(minimt, command, lines, *flags):
    out = cli(minimt, command, "--format", "jsonl", *flags, *lines)
    return [strip_time(line) for line in out.splitlines()]


def good_requests(t, server, minimt):
    # One sentence per request, then all of them in one: translate's records byte for byte.
    for i, sentence in enumerate(SENTENCES + [LONG]):
        status, body = server.post("/v1/translate", {"text": sentence})
        want = cli_records(minimt, "translate", [sentence])
        t.check(status == 200 and [strip_time(body.rstrip(b"\n"))] == want,
                "translate %r: %d %r, want %r" % (sentence[:30], status, body[:200], want))
    status, body = server.post("/v1/translate", {"text": LONG})
    t.check(b'"truncated":true' in body, "a sentence too long for the model: truncated record")
    status, body = server.post("/v1/translate", {"texts": SENTENCES})
    want = cli_records(minimt, "translate", SENTENCES)
    got = strip_time(body) if status == 200 else body
    t.check(got == as_array(want), "texts: %d %r, want %r" % (status, got[:200], want[:2]))
    t.check(status == 200 and body.startswith(b"[{\"line\":1,") and body.endswith(b"}]\n"),
            "texts: an array of the records as written: %r" % body[:40])
    # Each per-request option against its flag.
    options = [({"beam_size": 4}, ["--beam-size", "4"]),
               ({"beam_size": 4, "n_best": 3}, ["--beam-size", "4", "--n-best", "3"]),
               ({"beam_size": 3, "length_penalty": 0.6},
                ["--beam-size", "3", "--length-penalty", "0.6"]),
               ({"prefix": "Le"}, ["--prefix", "Le"]),
               ({"alternatives": 3}, ["--alternatives", "3"]),
               ({"max_length": 4}, ["--max-length", "4"]),
               ({"align": True}, ["--align"]),
               ({"compute_type": "int8"}, ["--compute-type", "int8"])]
    for fields, flags in options:
        status, body = server.post("/v1/translate", dict(fields, texts=SENTENCES[:3]))
        want = cli_records(minimt, "translate", SENTENCES[:3], *flags)
        got = strip_time(body) if status == 200 else body
        t.check(got == as_array(want), "%s: %r, want %r" % (fields, got[:200], want[:1]))
    # Score.
    pairs = [("The cat sat.", "Le chat est assis."), ("Hello world.", "Bonjour le monde.")]
    for source, target in pairs:
        status, body = server.post("/v1/score", {"source": source, "target": target})
        want = cli_records(minimt, "score", [source, target])
        t.check(status == 200 and [strip_time(body.rstrip(b"\n"))] == want,
                "score %r: %r, want %r" % (source, body[:120], want))
    status, body = server.post("/v1/score", {"sources": [p[0] for p in pairs],
                                             "targets": [p[1] for p in pairs], "align": True})
    want = cli_records(minimt, "score", [text for pair in pairs for text in pair], "--align")
    got = strip_time(body) if status == 200 else body
    t.check(got == as_array(want), "score lists with align: %r, want %r" % (got[:200], want[:1]))
    # Attention: the dump of translate --dump-attention, with and without a selection.
    scratch = tempfile.mkdtemp(prefix="serve-")
    for fields, flags in [({}, []), ({"dump_types": ["cross"], "dump_layers": [-1],
                                      "dump_heads": [0, 2], "rollout": True},
                                     ["--dump-types", "cross", "--dump-layers=-1",
                                      "--dump-heads", "0,2", "--rollout"])]:
        dump = os.path.join(scratch, "dump.json")
        cli(minimt, "translate", "--dump-attention", dump, *flags, *SENTENCES[:2])
        with open(dump, "rb") as f:
            want = f.read()
        status, body = server.post("/v1/attention", dict(fields, texts=SENTENCES[:2]))
        t.check(status == 200 and body == want,
                "attention %s: %d, %d bytes, want %d" % (fields, status, len(body), len(want)))
    status, body = server.post("/v1/attention", {"text": SENTENCES[0], "view": True})
    t.check(status == 200 and b'id="minimt-data"' in body and b"live-form" in body,
            "attention view: the live page (%d, %r)" % (status, body[:60]))
    status, body = server.get("/")
    t.check(status == 200 and b"live-form" in body and b"<!DOCTYPE html>" in body,
            "GET /: the page with its box")
    status, body = server.get("/v1/health")
    t.check(status == 200 and json.loads(body)["status"] == "ok", "health: %r" % body)
    status, body = server.get("/v1/models")
    models = json.loads(body) if status == 200 else {}
    t.check(models.get("compute_types") == ["float32", "int8"] and
            models.get("default_compute_type") == "float32" and models.get("model") == MODEL,
            "models: %r" % body)


def concurrent_clients(t, server, minimt):
    # 16 clients at once, each with one of three option sets (batches group requests whose
    # options match): every answer is translate's record for that line and those flags.
    words = "the a cat dog house red blue small big runs sees is was on under".split()
    lines = [" ".join(words[(i * 7 + k * 3) % len(words)] for k in range(3 + i % 6))
             for i in range(48)]
    kinds = [({}, []), ({"beam_size": 4}, ["--beam-size", "4"]),
             ({"compute_type": "int8"}, ["--compute-type", "int8"])]
    want = [cli_records(minimt, "translate", lines, *flags) for _, flags in kinds]
    answers = [None] * len(lines)

    def client(c):
        fields = kinds[c % len(kinds)][0]
        for i in range(c, len(lines), 16):
            status, body = server.post("/v1/translate", dict(fields, text=lines[i]))
            answers[i] = (status, strip_time(body.rstrip(b"\n")))

    threads = [threading.Thread(target=client, args=(c,)) for c in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wrong = [i for i, a in enumerate(answers)
             if a is None or a[0] != 200 or
             a[1] != want[(i % 16) % len(kinds)][i].replace(b'"line":%d,' % (i + 1),
                                                            b'"line":1,', 1)]
    t.check(not wrong, "16 clients at once, three option sets: %d answers differ from "
            "translate's (first %r)" % (len(wrong), wrong[:3]))
    differ = sum(want[0][i] != want[k][i] for k in (1, 2) for i in range(len(lines)))
    t.check(differ > 0, "the option sets give different records for some lines")


def crowd_and_port(t, server, minimt):
    # 64 clients connecting at the same moment (more than httplib's listen backlog of 5 and than
    # --connections): each is answered, none reset.
    barrier = threading.Barrier(64)
    results = [None] * 64

    def client(c):
        barrier.wait()
        try:
            results[c] = server.post("/v1/translate", {"text": "Hello world."}, timeout=60)[0]
        except OSError as e:
            results[c] = repr(e)

    threads = [threading.Thread(target=client, args=(c,)) for c in range(64)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    t.check(results == [200] * 64, "64 clients at once: %r" %
            sorted(set(map(str, results))))
    # A second server on the same port is refused (httplib alone would share it, SO_REUSEPORT).
    second = subprocess.run([minimt, "serve", "--model", MODEL, "--port", str(server.port)],
                            capture_output=True, text=True, timeout=120)
    t.check(second.returncode != 0 and "cannot listen" in second.stderr,
            "a second server on port %d: %d %r" % (server.port, second.returncode,
                                                   second.stderr[-200:]))


def bad_requests(t, server):
    cases = [
        (b"{not json", 400, None),
        (b'{"text": "caf\xe9"}', 400, None),  # invalid UTF-8 in the JSON
        (b"[1, 2]", 400, None),
        (b'{"texts": "one"}', 400, "texts"),
        (b'{"texts": []}', 400, "texts"),
        (b'{"text": 5}', 400, "text"),
        (b"{}", 400, "text"),
        (b'{"text": "a", "texts": ["b"]}', 400, "texts"),
        (b'{"text": "a", "beam_size": "4"}', 400, "beam_size"),
        (b'{"text": "a", "beam_size": 2.5}', 400, "beam_size"),
        (b'{"text": "a", "beam_size": 0}', 400, "beam_size"),
        (b'{"text": "a", "beam_size": 2, "n_best": 3}', 400, "n_best"),
        (b'{"text": "a", "length_penalty": "x"}', 400, "length_penalty"),
        (b'{"text": "a", "align": 1}', 400, "align"),
        (b'{"text": "a", "beam": 4}', 400, "beam"),
        (b'{"text": "a", "seed": 4}', 400, "seed"),
        (b'{"text": "a", "max_length": 100000}', 400, "max_length"),
        (b'{"text": "a", "compute_type": "bf16"}', 400, "compute_type"),
        (b'{"text": "a", "compute_type": "fast"}', 400, "compute_type"),
        (b'{"texts": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}', 413, "texts"),
        (json.dumps({"text": "x" * 3000}).encode(), 413, "text"),
        (json.dumps({"text": "x" * 30000}).encode(), 413, "body"),
    ]
    for body, status, field in cases:
        got, answer = server.post_raw("/v1/translate", body)
        try:
            error = json.loads(answer)
        except ValueError:
            error = {}
        t.check(got == status and isinstance(error.get("error"), str) and
                (field is None or error.get("field") == field),
                "%r: %d %r, want %d naming %r" % (body[:50], got, answer[:160], status, field))
    for path, body, status in [("/v1/score", b'{"source": "a"}', 400),
                               ("/v1/score", b'{"source": "a", "target": "b", "beam_size": 2}', 400),
                               ("/v1/attention", b'{"text": "a", "dump_layers": [7]}', 400),
                               ("/v1/attention", b'{"text": "a", "dump_types": ["x"]}', 400),
                               ("/v1/nothing", b"{}", 404)]:
        got, answer = server.post_raw(path, body)
        t.check(got == status and b'"error"' in answer, "%s %r: %d %r" % (path, body, got, answer))
    got, answer = server.get("/v1/nothing")
    t.check(got == 404 and b'"error"' in answer, "GET /v1/nothing: %d %r" % (got, answer))
    status, _ = server.get("/v1/health")
    t.check(status == 200, "alive after the bad requests")


def stalled_and_vanished(t, server):
    # Two clients send half a request and stall; a third is answered at once.
    stalled = []
    for _ in range(2):
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(b"POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"te")
        stalled.append(s)
    start = time.time()
    status, _ = server.post("/v1/translate", {"text": "Hello world."})
    t.check(status == 200 and time.time() - start < server.timeout - 0.5,
            "answered beside two stalled clients (%d in %.1f s)" % (status, time.time() - start))
    for s in stalled:  # dropped after --timeout (3 s), with a last answer (408) that says why
        s.settimeout(server.timeout + 3)
        try:
            answer = s.recv(1000)
            closed = answer == b"" or (answer.startswith(b"HTTP/1.1 408 ") and
                                       b"\r\nConnection: close\r\n" in answer and
                                       b"Keep-Alive" not in answer and
                                       b'within %d s (--timeout)"' % server.timeout in answer)
        except socket.timeout:
            closed, answer = False, b"nothing"
        t.check(closed, "a stalled client is dropped after the timeout: %r" % answer[:200])
        s.close()
    # More stalled clients than connections: the others are served once those time out.
    stalled = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(6)]
    for s in stalled:
        s.sendall(b"POST /v1/translate HTTP/1.1\r\nHost: x\r\n")
    start = time.time()
    status, _ = server.post("/v1/translate", {"text": "Hello world."}, timeout=30)
    # A stalled connection holds its HTTP thread until its request's time is up (then httplib
    # answers it 400 and the connection is closed).
    t.check(status == 200 and time.time() - start < server.timeout + 2,
            "every connection stalled: served once the timeout passed (%.1f s, timeout %d s)" %
            (time.time() - start, server.timeout))
    for s in stalled:
        s.close()
    # Clients that trickle a request a byte at a time, each byte well within the timeout, on
    # every connection: each is closed once its request has taken the timeout, and another
    # client is served then, not after the trickle ends (a header of 1,000 bytes: 8 minutes).
    stop_trickling = threading.Event()
    closed_after = []

    def trickle():
        s = socket.create_connection(("127.0.0.1", server.port))
        start = time.time()
        data = b"POST /v1/translate HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
        try:
            for byte in data:
                if stop_trickling.is_set():
                    return
                s.sendall(bytes([byte]))
                time.sleep(0.5)
        except OSError:  # closed by the server
            closed_after.append(time.time() - start)
        finally:
            s.close()

    tricklers = [threading.Thread(target=trickle) for _ in range(6)]
    for thread in tricklers:
        thread.start()
    time.sleep(0.5)
    start = time.time()
    status, _ = server.post("/v1/translate", {"text": "Hello world."}, timeout=30)
    served = time.time() - start
    for thread in tricklers:  # each closed at its timeout; the next byte meets the closed socket
        thread.join(timeout=max(0.1, start + server.timeout + 2.5 - time.time()))
    stop_trickling.set()
    for thread in tricklers:
        thread.join()
    # The trickling connections hold slots, not threads: a new client is read beside them, and
    # with every slot taken, the trickler nearest its timeout makes room (after a tenth of it).
    t.check(status == 200 and served < 1.5,
            "every connection trickling a request: served in %.1f s (timeout %d s)" %
            (served, server.timeout))
    t.check(len(closed_after) == 6 and max(closed_after) < server.timeout + 2,
            "a trickling client is closed once its request took the timeout: %r" % closed_after)
    # A client that goes away before its answer.
    body = json.dumps({"texts": ["The small dog sees the red house."] * 8}).encode()
    for _ in range(3):
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(b"POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" %
                  (len(body), body))
        s.close()
    status, answer = server.post("/v1/translate", {"text": "Hello world."})
    t.check(status == 200 and b"translation" in answer, "answered after vanished clients")


_unread = {}  # id(socket): bytes received past the answers read so far


def read_answer(s, timeout=10):
    """One HTTP answer from socket `s`: (status, body), the body by its Content-Length; bytes
    of the next answer (pipelining) kept for the next call."""
    s.settimeout(timeout)
    data = _unread.pop(id(s), b"")
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return None, data
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    if len(body) > length:
        _unread[id(s)] = body[length:]
    return int(head.split()[1]), body[:length]


def connection_bytes(t, server, minimt):
    # Two requests sent in one piece (HTTP/1.1 pipelining): both answered, in order.
    lines = ["The cat sat on the mat.", "Where is the station?"]
    want = [cli_records(minimt, "translate", [line])[0] for line in lines]  # each its line 1
    bodies = [json.dumps({"text": line}).encode() for line in lines]
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall(b"".join(b"POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
                       % (len(body), body) for body in bodies))
    got = []
    try:
        for _ in lines:
            status, body = read_answer(s)
            got.append(strip_time(body.rstrip(b"\n")) if status == 200 else (status, body))
    except socket.timeout:
        got.append("no answer within 10 s")
    s.close()
    t.check(got == want, "two pipelined requests: %r, want %r" % (got, want))

    # "Expect: 100-continue" (curl sends it for bodies over 1 KiB): the go-ahead comes at once,
    # then the answer to the body sent after it.
    body = json.dumps({"text": "Hello world."}).encode()
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall(b"POST /v1/translate HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body))
    s.settimeout(2)
    try:
        go_ahead = s.recv(100)
    except socket.timeout:
        go_ahead = b"nothing within 2 s"
    t.check(go_ahead == b"HTTP/1.1 100 Continue\r\n\r\n", "Expect: 100-continue: %r" % go_ahead)
    s.sendall(body)
    status, answer = read_answer(s)
    s.close()
    t.check(status == 200 and [strip_time(answer.rstrip(b"\n"))] ==
            cli_records(minimt, "translate", ["Hello world."]),
            "the body after 100 Continue: %r %r" % (status, answer[:200]))

    # The Keep-Alive header says what the connection loop does: --timeout, 1,000 requests.
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/v1/health")
    answer = connection.getresponse()
    answer.read()
    keep_alive = answer.getheader("Keep-Alive")
    connection.close()
    t.check(keep_alive == "timeout=%d, max=1000" % server.timeout, "Keep-Alive: %r" % keep_alive)

    # A chunked body, or one without a length: refused (411, the field "body") before any of it
    # is read, and the connection closed after the answer (what is left of the body is no
    # request). httplib alone read a chunked body past --max-body-bytes, and waited for the end
    # of a body without a length until the timeout.
    # The chunked body is 128 KiB, most of it still unread when the server closes: the answer
    # must reach the client all the same (a close with unread bytes resets the connection).
    big = b"20000\r\n" + b"a" * 0x20000 + b"\r\n0\r\n\r\n"
    for name, head in (("chunked", b"Transfer-Encoding: chunked\r\n"), ("no length", b"")):
        s = socket.create_connection(("127.0.0.1", server.port))
        start = time.time()
        request = (b"POST /v1/translate HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n" +
                   (big if head else b'{"text": "Hi."}'))
        sender = threading.Thread(target=lambda: s.sendall(request))
        sender.start()
        try:
            status, body = read_answer(s, timeout=server.timeout + 2)
            error = json.loads(body)
            rest = s.recv(100)
        except (socket.timeout, ValueError, TypeError, OSError) as e:
            status, error, rest = None, repr(e), None
        sender.join(timeout=10)
        s.close()
        t.check(status == 411 and isinstance(error, dict) and error.get("field") == "body" and
                rest == b"" and time.time() - start < server.timeout - 1,
                "a body %s: 411 naming the body, then closed: %r %r %r (%.1f s)" %
                (name, status, error, rest, time.time() - start))

    # Headers without end, sent as fast as the server takes them: refused once the request
    # passes --max-body-bytes and 64 KiB, or its time: the connection is closed long before
    # the client is done (httplib alone kept reading: 982 MB in 12 s).
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ")
    block, sent, start = b"a" * 65536, 0, time.time()
    s.settimeout(1)
    try:
        while sent < (256 << 20) and time.time() - start < 3 * server.timeout:
            sent += s.send(block)
    except OSError:  # closed by the server (or its buffers full past the second)
        pass
    s.close()
    t.check(sent < (64 << 20) and time.time() - start < server.timeout + 2,
            "headers without end: closed after %d KiB, %.1f s" % (sent >> 10, time.time() - start))

    # Headers over the limit, sent at once: 413 naming the body, and the connection closed.
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n")
    try:
        status, body = read_answer(s)
        error = json.loads(body)
    except (socket.timeout, ValueError, TypeError, OSError) as e:
        status, error = None, repr(e)
    s.close()
    t.check(status == 413 and isinstance(error, dict) and error.get("field") == "body" and
            "64 KiB a request may have for its headers" in error.get("error", ""),
            "100,000 bytes of headers: 413 naming the body: %r %r" % (status, error))

    # Request after request on one keep-alive connection, each answered with its own record.
    s = socket.create_connection(("127.0.0.1", server.port))
    answers = []
    for line in lines * 3:
        body = json.dumps({"text": line}).encode()
        s.sendall(b"POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
                  % (len(body), body))
        status, answer = read_answer(s)
        answers.append(strip_time(answer.rstrip(b"\n")) if status == 200 else status)
    s.close()
    t.check(answers == want * 3, "six requests on one connection: %r" % answers)


def sigterm(t, server):
    # Six clients' requests in flight (long sentences, wide beams), then SIGTERM.
    texts = ["The small dog sees the red house and the big cat under the table."] * 8
    results, finished = [None] * 6, [0.0] * 6

    connection_headers = [None] * 6

    def client(c):
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        try:
            connection.request("POST", "/v1/translate",
                               json.dumps({"texts": texts, "beam_size": 16}).encode())
            answer = connection.getresponse()
            results[c] = (answer.status, answer.read())
            connection_headers[c] = (answer.getheader("Connection"), answer.getheader("Keep-Alive"))
        except OSError:
            results[c] = None
        finally:
            connection.close()
        finished[c] = time.time()

    # A keep-alive connection left open and idle after its answer: it must not hold the exit
    # back until its timeout.
    idle = socket.create_connection(("127.0.0.1", server.port))
    body = json.dumps({"text": "Hello world."}).encode()
    idle.sendall(b"POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
                 % (len(body), body))
    idle_status, _ = read_answer(idle)
    threads = [threading.Thread(target=client, args=(c,)) for c in range(6)]
    for thread in threads:
        thread.start()
    time.sleep(0.1)  # accepted and translating
    signalled = time.time()
    server.process.send_signal(signal.SIGTERM)
    for thread in threads:
        thread.join()
    answered = [r for r in results if r and r[0] == 200 and len(json.loads(r[1])) == len(texts)]
    t.check(len(answered) == 6, "SIGTERM: every request in flight answered in full (%d of 6: %r)" %
            (len(answered), [r[:1] if r else r for r in results]))
    t.check(max(finished) > signalled, "SIGTERM came while requests were in flight")
    # Each answer written after SIGTERM is its connection's last, and says so.
    late = [h for h, f in zip(connection_headers, finished) if f > signalled + 0.05]
    t.check(late and all(h == ("close", None) for h in late),
            "answers after SIGTERM say Connection: close: %r" % late)
    code = server.process.wait(timeout=30)
    exited = time.time()
    t.check(code == 0, "SIGTERM: exit status %r, want 0 (%r)" % (code, server.stderr()[-300:]))
    t.check(idle_status == 200 and exited - max(finished) < server.timeout - 1,
            "an idle keep-alive connection does not delay the exit: %.1f s after the last "
            "answer (timeout %d s)" % (exited - max(finished), server.timeout))
    idle.close()
    try:
        socket.create_connection(("127.0.0.1", server.port), timeout=2).close()
        refused = False
    except OSError:
        refused = True
    t.check(refused, "after SIGTERM no connection is accepted")


def sigterm_at_start(t, minimt):
    # SIGTERM the moment the server says it listens (it may not be accepting yet): exit 0.
    for _ in range(5):
        server = Server(minimt, ["--model", MODEL])
        server.process.send_signal(signal.SIGTERM)
        try:
            code = server.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.process.kill()
            code = "still running after 30 s"
        t.check(code == 0, "SIGTERM at start: exit status %r" % (code,))


def load_client(t, server, minimt):
    # tools/serve/load_client.cpp, the load test's generator (built beside minimt): 4
    # connections, one body per request; its answers in input order are translate's records,
    # and the refusals come back with their status and body.
    client = os.path.join(os.path.dirname(minimt), "minimt_load_client")
    if not os.access(client, os.X_OK):
        t.check(False, "no %s: build every target (ninja -C build)" % client)
        return
    lines = SENTENCES + ["The red house is small.", "Where is the cat?", "I see a dog."]
    bodies = [json.dumps({"text": line}) for line in lines] + ['{"text": ', '{"beam": 2}']
    result = subprocess.run([client, "127.0.0.1", str(server.port), "/v1/translate", "4"],
                            input=("\n".join(bodies) + "\n").encode(), capture_output=True,
                            timeout=300)
    answers, out, at = [], result.stdout, 0
    while at < len(out):
        end = out.index(b"\n", at)
        status, _, size = (int(x) for x in out[at:end].split())
        answers.append((status, out[end + 1:end + 1 + size]))
        at = end + 1 + size
    want = [(200, record.replace(b'"line":%d,' % (i + 1), b'"line":1,', 1))
            for i, record in enumerate(cli_records(minimt, "translate", lines))]
    got = [(status, strip_time(body.rstrip(b"\n"))) for status, body in answers[:len(lines)]]
    t.check(result.returncode == 0 and got == want,
            "minimt_load_client: %d answers, %d differ from translate's (first: %r)" %
            (len(answers), sum(a != b for a, b in zip(got, want)),
             next(((a, b) for a, b in zip(got, want) if a != b), None)))
    errors = [(status, json.loads(body).get("field")) for status, body in answers[len(lines):]]
    t.check(errors == [(400, None), (400, "beam")],
            "minimt_load_client: the refusals as sent: %r" % errors)


def batch_starts_when_every_client_waits(t, minimt):
    # --max-wait-ms 6000 and a batch of 32: a batch starts before its wait only once every
    # open connection waits for an answer (no line can join it by waiting).
    flags = ["--model", MODEL, "--threads", "1", "--max-batch", "32", "--max-wait-ms", "6000",
             "--timeout", "60"]
    with Server(minimt, flags) as server:
        want = cli_records(minimt, "translate", ["Hello world."])
        start = time.time()
        status, body = server.post("/v1/translate", {"text": "Hello world."})
        alone = time.time() - start
        t.check(status == 200 and [strip_time(body.rstrip(b"\n"))] == want and alone < 3,
                "the only client: answered in %.2f s (the batch's wait is 6 s): %d %r" %
                (alone, status, body[:100]))
        answers = [None] * 3

        def client(c):
            answers[c] = server.post("/v1/translate", {"text": SENTENCES[c]})

        threads = [threading.Thread(target=client, args=(c,)) for c in range(3)]
        start = time.time()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        three = time.time() - start
        want = cli_records(minimt, "translate", SENTENCES[:3])
        got = [strip_time(a[1].rstrip(b"\n")).replace(b'"line":1,', b'"line":%d,' % (i + 1), 1)
               for i, a in enumerate(answers)]
        t.check(got == want and three < 3, "three clients at once: answered in %.2f s, %r" %
                (three, got == want))
        # A connection open but silent may still send: the batch waits for it, up to 6 s.
        idle = socket.create_connection(("127.0.0.1", server.port))
        time.sleep(0.5)  # served by a thread of its own, so counted
        start = time.time()
        status, body = server.post("/v1/translate", {"text": "Hello world."})
        waited = time.time() - start
        idle.close()
        t.check(status == 200 and waited > 5.5,
                "with a silent connection open the batch waits: %.2f s, %d" % (waited, status))


def main():
    minimt = os.path.abspath(sys.argv[1])
    chromium = sys.argv[2] if len(sys.argv) > 2 else "chromium"
    t = Tally()
    flags = ["--model", MODEL, "--compute-type", "float32,int8", "--threads", "2",
             "--max-sentences", "8", "--max-line-bytes", "2000", "--max-body-bytes", "20000",
             "--max-length", "256", "--connections", "6", "--timeout", "3"]
    with Server(minimt, flags) as server:
        for name, case in [("good requests", lambda: good_requests(t, server, minimt)),
                           ("concurrent clients", lambda: concurrent_clients(t, server, minimt)),
                           ("crowd and port", lambda: crowd_and_port(t, server, minimt)),
                           ("bad requests", lambda: bad_requests(t, server)),
                           ("stalled and vanished clients", lambda: stalled_and_vanished(t, server)),
                           ("the page in Chromium",
                            lambda: browser_types_and_sends(t, server, chromium, MODEL, minimt)),
                           ("the load test's client", lambda: load_client(t, server, minimt)),
                           ("the connection's bytes",
                            lambda: connection_bytes(t, server, minimt)),
                           ("SIGTERM", lambda: sigterm(t, server))]:
            t.run(name, case)
    t.run("SIGTERM at start", lambda: sigterm_at_start(t, minimt))
    t.run("a batch starts when every client waits",
          lambda: batch_starts_when_every_client_waits(t, minimt))
    t.finish()


if __name__ == "__main__":
    main()
