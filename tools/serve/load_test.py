#!/usr/bin/python3
"""Load test of minimt serve (a benchmark, not a timed test): CLIENTS concurrent clients send
the held-out sentences one per request; every answer must be the record `minimt translate -i
--format jsonl` writes for that line (its "line" and "time_ms" aside), and the throughput is
compared with `minimt translate -i --threads N` on the same sentences and machine.

    tools/serve/load_test.py [--minimt build/minimt] [--threads 2] [--clients 64]
        [--sentences tools/model/data/heldout.tsv] [--url http://127.0.0.1:PORT]
        [--serve-flags "--max-batch 16 --max-wait-ms 5"] [--client build/minimt_load_client]
        [--runs 3]

The clients are build/minimt_load_client (tools/serve/load_client.cpp: one thread, CLIENTS
keep-alive connections), whose CPU time is reported too; `--client python` uses CLIENTS Python
threads with http.client instead (0.25 to 0.4 ms of CPU per request, five times the C++ one).

Without --url it starts `minimt serve --threads N` on a free loopback port and reports its
peak memory (VmHWM) at the end; with --url it loads that server (or load balancer) instead.
Prints the figures docs/performance.md quotes; exits 1 on any error or differing answer.
Stdlib only. Every request goes to loopback; the run is bounded by the sentence count.
"""
import argparse
import http.client
import json
import os
import re
import resource
import subprocess
import sys
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def strip(record):
    """A record without its line number and time: what must match."""
    return re.sub(r',"time_ms":[0-9.]+\}$', "}", re.sub(r'^\{"line":\d+,', "{", record.strip()))


def baseline(minimt, model, sources, threads):
    """(records, seconds, CPU seconds) of translate -i over the sentences, the whole process."""
    start, cpu = time.time(), children_cpu()
    result = subprocess.run([minimt, "translate", "-q", "--model", model, "--format", "jsonl",
                             "--threads", str(threads), "-i", "-"], input="\n".join(sources) + "\n",
                            capture_output=True, text=True, check=True)
    return ([strip(line) for line in result.stdout.splitlines()], time.time() - start,
            children_cpu() - cpu)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def self_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread of this process
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid):
    """User and system CPU seconds of process `pid` so far (all its threads)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(minimt, model, threads, flags):
    process = subprocess.Popen([minimt, "serve", "--model", model, "--port", "0", "--threads",
                                str(threads), *flags], stderr=subprocess.PIPE, text=True)
    line = process.stderr.readline()
    found = re.search(r"listening on (http://\S+)", line)
    if not found:
        process.kill()
        raise SystemExit("minimt serve did not start: " + line)
    threading.Thread(target=process.stderr.read, daemon=True).start()  # keep the pipe drained
    return process, found.group(1).rstrip("/")


def load_native(client, url, sources, clients):
    """Sends each sentence as one request through minimt_load_client: (answers, latencies,
    errors, wall seconds, client CPU seconds)."""
    parts = urllib.parse.urlsplit(url)
    bodies = "".join(json.dumps({"text": s}) + "\n" for s in sources).encode("utf-8")
    start, cpu = time.time(), children_cpu()
    result = subprocess.run([client, parts.hostname, str(parts.port), "/v1/translate",
                             str(clients)], input=bodies, capture_output=True)
    seconds, cpu = time.time() - start, children_cpu() - cpu
    if result.returncode != 0:
        raise SystemExit("minimt_load_client failed: " + result.stderr.decode("utf-8", "replace"))
    answers, latencies, errors = [], [], []
    out, at = result.stdout, 0
    for _ in sources:
        end = out.index(b"\n", at)
        status, microseconds, size = (int(x) for x in out[at:end].split())
        text = out[end + 1:end + 1 + size].decode("utf-8")
        at = end + 1 + size
        if status != 200:
            errors.append("%d: %s" % (status, text[:200]))
        answers.append(text if status == 200 else None)
        latencies.append(microseconds / 1e6)
    return answers, latencies, errors, seconds, cpu


def load_python(url, sources, clients):
    """Sends each sentence as one request from `clients` threads (keep-alive connections)."""
    parts = urllib.parse.urlsplit(url)
    answers, latencies, errors = [None] * len(sources), [0.0] * len(sources), []
    next_index = [0]
    lock = threading.Lock()

    def client():
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= len(sources):
                break
            body = json.dumps({"text": sources[i]})
            start = time.perf_counter()
            try:
                connection.request("POST", "/v1/translate", body=body,
                                   headers={"Content-Type": "application/json"})
                answer = connection.getresponse()
                text = answer.read().decode("utf-8")
                if answer.status != 200:
                    errors.append("%d: %s" % (answer.status, text[:200]))
                answers[i] = text
            except (OSError, http.client.HTTPException) as e:
                errors.append("%s: %s" % (type(e).__name__, e))
                connection.close()
                connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
            latencies[i] = time.perf_counter() - start
        connection.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    start, cpu = time.time(), self_cpu()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers, latencies, errors, time.time() - start, self_cpu() - cpu


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100.0 * (len(ordered) - 1))))]


def peak_memory_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def one_run(args, client, sources):
    """translate -i, then the server under load: this run's figures, printed as they come."""
    load_at_start = os.getloadavg()[0]
    want, baseline_seconds, baseline_cpu = baseline(args.minimt, args.model, sources, args.threads)
    process = None
    url = args.url
    if not url:
        process, url = start_server(args.minimt, args.model, args.threads, args.serve_flags.split())
    try:
        cpu = process_cpu(process.pid) if process else None
        if client == "python":
            answers, latencies, errors, seconds, client_cpu = load_python(url, sources,
                                                                          args.clients)
        else:
            answers, latencies, errors, seconds, client_cpu = load_native(client, url, sources,
                                                                          args.clients)
        peak = peak_memory_mb(process.pid) if process else None
        if process:
            cpu = process_cpu(process.pid) - cpu
    finally:
        if process:
            process.terminate()
            process.wait(timeout=60)
    differ = [i for i, a in enumerate(answers) if a is None or strip(a) != want[i]]
    run = {"translate_s": baseline_seconds, "translate_cpu": baseline_cpu, "serve_s": seconds,
           "serve_cpu": cpu, "client_cpu": client_cpu, "errors": len(errors),
           "differ": len(differ), "p50_ms": 1000 * percentile(latencies, 50),
           "p99_ms": 1000 * percentile(latencies, 99), "peak_mb": peak,
           "load": "%.1f/%.1f" % (load_at_start, os.getloadavg()[0])}
    run["ratio"] = baseline_seconds / seconds  # sentences/s over translate -i's
    run["cpu_ratio"] = baseline_cpu / cpu if cpu else None  # sentences per CPU second, the same
    rate, baseline_rate = len(sources) / seconds, len(sources) / baseline_seconds
    print("sentences: %d, clients: %d, threads: %d, %s" %
          (len(sources), args.clients, args.threads, url))
    print("translate -i --threads %d: %.2f s, %.0f sentences/s, CPU %.2f s (whole process)" %
          (args.threads, baseline_seconds, baseline_rate, baseline_cpu))
    print("serve: %.2f s, %.0f sentences/s = %.0f%% of translate -i" %
          (seconds, rate, 100.0 * run["ratio"]))
    if cpu is not None:
        print("serve CPU during the load: %.2f s = %.0f%% of translate -i's sentences per CPU "
              "second" % (cpu, 100.0 * run["cpu_ratio"]))
    if client_cpu is not None:
        print("load client CPU: %.2f s (%.0f us per request)" %
              (client_cpu, 1e6 * client_cpu / len(sources)))
    print("load average (1 min) at the start and the end: %s" % run["load"])
    print("latency per request: p50 %.1f ms, p99 %.1f ms, max %.1f ms" %
          (run["p50_ms"], run["p99_ms"], 1000 * max(latencies)))
    if peak is not None:
        print("server peak memory (VmHWM): %.0f MB" % peak)
    print("errors: %d%s" % (len(errors), (" (first: %s)" % errors[0]) if errors else ""))
    print("answers differing from translate -i: %d%s" %
          (len(differ), (" (first: line %d)" % (differ[0] + 1)) if differ else ""))
    return run


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def table(runs):
    """The runs as the Markdown table docs/performance.md quotes, with a row of medians."""
    def cell(value, form):
        return form % value if value is not None else "-"

    print("| run | translate -i: wall, CPU | serve: wall, CPU | client CPU | serve sentences/s "
          "vs translate -i | sentences per CPU second vs translate -i | p50 | p99 | "
          "peak memory | load (1 min) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for i, r in enumerate(runs):
        print("| %d | %.2f s, %.2f s | %.2f s, %s | %s | %.0f%% | %s | %.1f ms | %.1f ms | %s | "
              "%s |" % (i + 1, r["translate_s"], r["translate_cpu"], r["serve_s"],
                        cell(r["serve_cpu"], "%.2f s"), cell(r["client_cpu"], "%.2f s"),
                        100 * r["ratio"], cell(r["cpu_ratio"] and 100 * r["cpu_ratio"], "%.0f%%"),
                        r["p50_ms"], r["p99_ms"], cell(r["peak_mb"], "%.0f MB"), r["load"]))
    if len(runs) > 1:
        def mid(key):
            values = [r[key] for r in runs if r[key] is not None]
            return median(values) if values else None
        cpu_ratio = mid("cpu_ratio")
        print("| median | | | | %.0f%% | %s | %.1f ms | %.1f ms | %s | |" %
              (100 * mid("ratio"), cell(cpu_ratio and 100 * cpu_ratio, "%.0f%%"), mid("p50_ms"),
               mid("p99_ms"), cell(mid("peak_mb"), "%.0f MB")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minimt", default=os.path.join(ROOT, "build", "minimt"))
    parser.add_argument("--model", default=os.path.join(ROOT, "models", "en-fr"))
    parser.add_argument("--sentences", default=os.path.join(ROOT, "tools", "model", "data",
                                                            "heldout.tsv"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--url", help="load this server or balancer instead of starting one")
    parser.add_argument("--serve-flags", default="", help="more flags for minimt serve")
    parser.add_argument("--client", help="the load generator: minimt_load_client (default: "
                        "beside --minimt) or 'python' (threads with http.client)")
    parser.add_argument("--runs", type=int, default=1,
                        help="runs (each translate -i, then serve), then a table with medians")
    args = parser.parse_args()

    client = args.client or os.path.join(os.path.dirname(args.minimt), "minimt_load_client")
    if client != "python" and not os.access(client, os.X_OK):
        raise SystemExit("no load client %s: build it (ninja -C build minimt_load_client) or give "
                         "--client python" % client)
    with open(args.sentences, encoding="utf-8") as f:
        sources = [line.rstrip("\n").split("\t")[0] for line in f]
    runs = []
    for i in range(max(args.runs, 1)):
        if args.runs > 1:
            print("-- run %d of %d" % (i + 1, args.runs))
        runs.append(one_run(args, client, sources))
    print()
    table(runs)
    sys.exit(1 if any(r["errors"] or r["differ"] for r in runs) else 0)


if __name__ == "__main__":
    main()
