"""A small HTTP server on a free loopback port that misbehaves on purpose, one way per path prefix,
for the remote client's error tests (and the quirks of servers we did not write: llama.cpp's empty
replies, interrupted streams and metric names; `transformers serve`'s 422 on a field it does not
know; a server that refuses every request; a slow one). Started and stopped by its own handle (a thread in
this process)."""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def sse(payload) -> bytes:
    return f"data: {json.dumps(payload) if not isinstance(payload, str) else payload}\n\n".encode()


def chat_chunk(content: str | None = None, role: bool = False, finish: str | None = None, usage=None) -> dict:
    delta = {"role": "assistant"} if role else ({"content": content} if content is not None else {})
    chunk = {
        "id": "x",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage:
        chunk["usage"] = usage
    return chunk


LLAMACPP_METRICS = """# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 12
# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# HELP llamacpp:requests_deferred Number of requests deferred.
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 2
# HELP llamacpp:kv_cache_usage_ratio KV-cache usage. 1 means 100 percent usage.
# TYPE llamacpp:kv_cache_usage_ratio gauge
llamacpp:kv_cache_usage_ratio 0.25
"""
# What `transformers serve` 5.24 accepts in a request (OpenAI's fields and its own); anything else is
# refused with FastAPI's 422 {"detail": "Unexpected fields in the request: {...}"}
OPENAI_FIELDS = {
    "model", "messages", "prompt", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stream",
    "stream_options", "stop", "seed", "n", "presence_penalty", "frequency_penalty", "logit_bias", "user",
    "generation_config",
}  # fmt: skip
STRICT_WORDS = ("One", " two", " three")  # a strict server's reply: it stops at EOS after 3 tokens
STRANGE_METRICS = "".join(f"# TYPE shop_{n}_total counter\nshop_{n}_total 3\n" for n in "abcdef")


class Handler(BaseHTTPRequestHandler):
    newest = 0  # the latest POST of the "interrupt" mode, across threads: it cuts every earlier stream

    def log_message(self, *args):  # quiet
        pass

    def _send(self, code: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _stream_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

    def do_GET(self):
        mode = self.path.split("/")[1]
        if self.path.endswith("/metrics") and mode == "llamacpp":  # llama-server --metrics
            return self._send(200, LLAMACPP_METRICS.encode(), "text/plain; version=0.0.4")
        if self.path.endswith("/metrics") and mode == "strange":  # metrics, none of them a server's we know
            return self._send(200, STRANGE_METRICS.encode(), "text/plain; version=0.0.4")
        if self.path.endswith("/metrics"):  # like transformers serve: no Prometheus endpoint
            return self._send(404, b'{"detail": "Not Found"}')
        if mode == "notjson":
            return self._send(200, b"<html>hello</html>", "text/html")
        if mode == "html404":
            return self._send(404, b"<html><body><h1>404 Not Found</h1>" + b"x" * 5000 + b"</body></html>", "text/html")
        self._send(200, json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode())

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        mode = self.path.split("/")[1]
        if mode == "strict":
            return self._strict(json.loads(body))
        if mode == "refuse":  # llama.cpp's error shape, for every request
            error = {"code": 400, "message": "the model is still loading", "type": "unavailable_error"}
            return self._send(400, json.dumps({"error": error}).encode())
        if mode == "html404":
            return self._send(404, b"<html><body><h1>404 Not Found</h1></body></html>", "text/html")
        if mode == "error500":
            return self._send(500, json.dumps({"error": {"message": "model crashed", "type": "server_error"}}).encode())
        if mode == "auth":
            return self._send(401, json.dumps({"error": {"message": "bad key", "type": "auth"}}).encode())
        self._stream_start()
        if mode == "stall":  # headers, then nothing
            time.sleep(30)
            return
        if mode == "cut":  # two chunks, then the connection drops without an end
            for word in ("Hello", " world"):
                self.wfile.write(sse(chat_chunk(word)))
                self.wfile.flush()
                time.sleep(0.05)
            self.wfile.write(b'data: {"id": "x", "choi')  # half a chunk
            self.wfile.flush()
            self.connection.shutdown(2)
            return
        if mode == "huge":
            piece = sse(chat_chunk("y" * 65536))
            for _ in range(40):  # 2.6 M characters
                self.wfile.write(piece)
            return
        if mode in (
            "quirks",
            "llamacpp",
            "strange",
        ):  # transformers serve 5.24's shape: role-only first delta, usage on the finish
            self.wfile.write(sse(chat_chunk(role=True)))  # chunk, no [DONE]
            for word in ("One", " two", " three"):
                self.wfile.write(sse(chat_chunk(word)))
                self.wfile.flush()
                time.sleep(0.02)
            self.wfile.write(
                sse(chat_chunk(finish="stop", usage={"prompt_tokens": 4, "completion_tokens": 5, "total_tokens": 9}))
            )
            return
        if mode == "empty":  # llama.cpp's answer to some prompts: no text at all, finish reason "stop"
            self.wfile.write(sse(chat_chunk(role=True)))
            usage = {"prompt_tokens": 4, "completion_tokens": 0, "total_tokens": 4}
            self.wfile.write(sse(chat_chunk(finish="stop", usage=usage)))
            self.wfile.write(sse("[DONE]"))
            return
        if mode == "interrupt":  # llama-cpp-python's --interrupt_requests: a new request cuts the running one
            Handler.newest = me = Handler.newest + 1
            for i in range(20):
                if Handler.newest != me:
                    self.connection.shutdown(2)
                    return
                self.wfile.write(sse(chat_chunk(f" w{i}")))
                self.wfile.flush()
                time.sleep(0.02)
            self.wfile.write(sse(chat_chunk(finish="length")))
            self.wfile.write(sse("[DONE]"))
            return
        if mode == "slow":  # a token every 0.3 s, 20 of them: 6 s a reply
            for i in range(20):
                self.wfile.write(sse(chat_chunk(f" s{i}")))
                self.wfile.flush()
                time.sleep(0.3)
            self.wfile.write(sse(chat_chunk(finish="length")))
            return
        if mode == "nousage":  # a server that never sends usage, chunks of two words
            for word in ("a b", " c d"):
                self.wfile.write(sse(chat_chunk(word)))
            self.wfile.write(sse(chat_chunk(finish="length")))
            self.wfile.write(sse("[DONE]"))
            return

    def _strict(self, body: dict) -> None:
        """`transformers serve`: 422 naming the fields it does not know, else a reply of 3 tokens that
        ends at EOS (finish "stop"), usage on the finish chunk, no [DONE]."""
        unexpected = set(body) - OPENAI_FIELDS
        if unexpected:
            return self._send(422, json.dumps({"detail": f"Unexpected fields in the request: {unexpected}"}).encode())
        chat = self.path.endswith("/chat/completions")
        self._stream_start()
        usage = {"prompt_tokens": 4, "completion_tokens": len(STRICT_WORDS), "total_tokens": 7}
        for word in STRICT_WORDS:
            self.wfile.write(sse(chat_chunk(word) if chat else text_chunk(word)))
            self.wfile.flush()
            time.sleep(0.01)
        self.wfile.write(sse(chat_chunk(finish="stop", usage=usage) if chat else text_chunk("", "stop", usage)))


def text_chunk(text: str, finish: str | None = None, usage=None) -> dict:
    """A streamed chunk of the completions API."""
    chunk = {
        "id": "x",
        "object": "text_completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "text": text, "finish_reason": finish}],
    }
    return chunk | ({"usage": usage} if usage else {})


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A throwaway certificate for 127.0.0.1 that no client trusts (openssl's CLI, as a real admin makes one)."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


class QuietServer(ThreadingHTTPServer):
    """Clients that hang up mid-reply (timeouts, cut streams) are what these tests are about: not an
    error worth a traceback in the test log. Anything else is still printed."""

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


@contextmanager
def fault_server(tls: bool = False):
    """Yields http://127.0.0.1:PORT (https:// with a self-signed certificate when `tls`); each mode
    is a path prefix: {url}/{mode}/v1."""
    server = QuietServer(("127.0.0.1", 0), Handler)
    scheme = "http"
    if tls:
        with tempfile.TemporaryDirectory() as folder:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*self_signed(Path(folder)))
        server.socket = context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{scheme}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
