#!/usr/bin/python3
"""The Python twin of examples/serve, for the load test (loadtest.sh).

The same model, the same batching policy and the same libtorch threads as
the Go server, written as a PyTorch user would with the standard library:
http.server's ThreadingHTTPServer (a thread per connection), a bounded
queue.Queue, and one worker thread that batches up to --max-batch images,
waiting at most --max-wait for a batch to fill. It takes the Go server's
JSON ({"image": [784 numbers in [0, 1]]}; the standard library has no
PNG decoder) and answers the same JSON.

    /usr/bin/python3 examples/serve/server.py --weights fashion_mnist.safetensors \
        --addr 127.0.0.1:8081 --threads 1 --max-batch 32 --max-wait 2ms
"""

import argparse
import json
import os
import queue
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export import CLASSES, MEAN, STD, load_model  # noqa: E402


class Item:
    __slots__ = ("pixels", "event", "result")

    def __init__(self, pixels):
        self.pixels = pixels
        self.event = threading.Event()
        self.result = None


def batch_worker(model, q, max_batch, max_wait):
    """Take the first queued image, wait up to max_wait for more, run them."""
    while True:
        batch = [q.get()]
        deadline = time.monotonic() + max_wait
        while len(batch) < max_batch:
            left = deadline - time.monotonic()
            try:
                batch.append(q.get(timeout=left) if left > 0 else q.get_nowait())
            except queue.Empty:
                break
        try:
            x = torch.tensor([it.pixels for it in batch], dtype=torch.float32)
            x = ((x - MEAN) / STD).view(-1, 1, 28, 28)
            with torch.no_grad():
                probs = torch.softmax(model(x), dim=1)
            values, indices = probs.topk(5, dim=1)
            for it, v, i in zip(batch, values.tolist(), indices.tolist()):
                top5 = [{"class": c, "label": CLASSES[c], "probability": p} for c, p in zip(i, v)]
                it.result = (200, {"class": i[0], "label": CLASSES[i[0]], "top5": top5})
        except Exception as e:  # the worker must survive a bad batch
            for it in batch:
                it.result = (500, {"error": f"model failed: {e}"})
        for it in batch:
            it.event.set()


def make_handler(q, timeout, max_body):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the Go server and wrk use

        def setup(self):
            super().setup()
            # As Go does by default: without it, the header and body writes
            # meet Nagle's algorithm and delayed ACKs, 40 ms per request.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, *args):
            pass

        def reply(self, status, obj):
            body = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/healthz":
                body = b"ok\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.reply(404, {"error": "not found"})

        def do_POST(self):
            if self.path != "/predict":
                return self.reply(404, {"error": "not found"})
            n = int(self.headers.get("Content-Length") or 0)
            if n > max_body:
                self.close_connection = True
                return self.reply(413, {"error": f"body is over {max_body} bytes"})
            try:
                pixels = json.loads(self.rfile.read(n))["image"]
                if len(pixels) != 784 or not all(0 <= v <= 1 for v in pixels):
                    return self.reply(422, {"error": "want 784 numbers in [0, 1]"})
            except (ValueError, KeyError, TypeError) as e:
                return self.reply(400, {"error": f"bad JSON: {e}"})
            item = Item(pixels)
            try:
                q.put_nowait(item)
            except queue.Full:
                return self.reply(503, {"error": "overloaded"})
            if not item.event.wait(timeout):
                return self.reply(504, {"error": "timed out"})
            self.reply(*item.result)

    return Handler


def duration(s):
    for unit, scale in (("ms", 1e-3), ("us", 1e-6), ("s", 1.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * scale
    return float(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weights", default="fashion_mnist.safetensors")
    ap.add_argument("--addr", default="127.0.0.1:8081")
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: PyTorch's default)")
    ap.add_argument("--max-batch", type=int, default=32)
    ap.add_argument("--max-wait", type=duration, default=0.0)
    ap.add_argument("--queue", type=int, default=256)
    ap.add_argument("--timeout", type=duration, default=5.0)
    ap.add_argument("--max-body", type=int, default=1 << 20)
    args = ap.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    model = load_model(args.weights)
    q = queue.Queue(maxsize=args.queue)
    threading.Thread(target=batch_worker, args=(model, q, args.max_batch, args.max_wait), daemon=True).start()
    host, port = args.addr.rsplit(":", 1)
    server = ThreadingHTTPServer((host, int(port)), make_handler(q, args.timeout, args.max_body))
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(f"serving {args.weights} on http://{args.addr} ({torch.get_num_threads()} threads, "
          f"batches of up to {args.max_batch}, max wait {args.max_wait}s, queue {args.queue})", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
