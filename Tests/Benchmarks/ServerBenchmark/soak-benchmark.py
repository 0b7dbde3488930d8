#!/usr/bin/env python3
"""Soak benchmark: many requests against DemoServer; requests per second and the server's
memory before and after.

    swift build -c release --product DemoServer
    python3 Tests/Benchmarks/ServerBenchmark/soak-benchmark.py [--requests 100000]

Starts .build/release/DemoServer on a free port (--instant), signs in, then sends
--requests requests in three phases, each printed on one line:
  keep-alive       GET /me on kept-alive connections (--clients of them, in threads)
  new-connection   GET /me, one connection per request (Connection: close)
  mixed-hostile    sign-ins, malformed heads, absurd chunk sizes, early closes
The server's resident memory (VmRSS) is read from /proc before and after, and again after a
pause; the last line gives the growth. Timings are printed, never checked.
"""
import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start_server(binary):
    if not os.path.exists(binary):
        sys.exit("build it first: swift build -c release --product DemoServer")
    process = subprocess.Popen(
        [binary, "--port", "0", "--instant"], stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    port = int(line.strip().rsplit(":", 1)[1])
    return process, port


def sign_in(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    body = json.dumps({"username": "alice", "password": "alice1234"})
    connection.request("POST", "/auth/login", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    tokens = json.loads(response.read())
    connection.close()
    return tokens["accessToken"]


def keep_alive(port, token, count, clients):
    per_client = count // clients
    errors = []

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for _ in range(per_client):
            connection.request("GET", "/me", headers={"Authorization": f"Bearer {token}"})
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                errors.append(response.status)
        connection.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return per_client * clients, errors


def new_connections(port, token, count, clients):
    per_client = count // clients
    errors = []

    def client():
        for _ in range(per_client):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request(
                "GET", "/me", headers={"Authorization": f"Bearer {token}", "Connection": "close"})
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status != 200:
                errors.append(response.status)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return per_client * clients, errors


HOSTILE = [
    b"POST /auth/login HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n7fffffffffffffff\r\n",
    b"GET /me HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
    b"GET /me HTTP/1.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
    b"GET /me HTTP/1.1\r\nHost: x\r\n",  # then an early close
]


def hostile(port, count):
    statuses = {}
    for index in range(count):
        if index % 5 == 0:
            # A sign-in: creates a session (bounded per user by the backend).
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            body = json.dumps({"username": "bob", "password": "bob1234"})
            connection.request("POST", "/auth/login", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            connection.close()
            statuses[response.status] = statuses.get(response.status, 0) + 1
            continue
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            raw.sendall(HOSTILE[index % len(HOSTILE)])
            raw.shutdown(socket.SHUT_WR)
            answer = raw.recv(64)
            status = int(answer[9:12]) if answer.startswith(b"HTTP/1.1 ") else 0
            statuses[status] = statuses.get(status, 0) + 1
    return count, statuses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=100000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--server-binary", default=os.path.join(ROOT, ".build", "release", "DemoServer"),
                        help="the DemoServer to measure (to compare another build side by side)")
    options = parser.parse_args()

    process, port = start_server(options.server_binary)
    try:
        token = sign_in(port)
        keep_alive(port, token, 2000, options.clients)  # warm up
        before = rss_kb(process.pid)
        print(f"rss-before kb={before}")
        phases = [
            ("keep-alive", lambda n: keep_alive(port, token, n, options.clients)),
            ("new-connection", lambda n: new_connections(port, token, n, options.clients)),
            ("mixed-hostile", lambda n: hostile(port, n)),
        ]
        shares = {"keep-alive": 0.6, "new-connection": 0.3, "mixed-hostile": 0.1}
        for name, run in phases:
            count = max(10, int(options.requests * shares[name]))
            started = time.monotonic()
            done, detail = run(count)
            elapsed = time.monotonic() - started
            print(f"{name} requests={done} seconds={elapsed:.1f} requests_per_second={done / elapsed:.0f} "
                  f"rss_kb={rss_kb(process.pid)} detail={detail if isinstance(detail, dict) else len(detail)}")
        after = rss_kb(process.pid)
        time.sleep(2)
        settled = rss_kb(process.pid)
        print(f"rss-after kb={after} settled_kb={settled} growth_kb={settled - before}")
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
