"""HTTP connections whose every socket operation honours one deadline for the whole request.

httpx and httpcore time each socket read on its own, so a server that trickles one byte every
half second keeps a request open for ever under a 2 s read timeout. Here the calling thread
opens :func:`deadline` around a request, and the connect, the TLS handshake, every write and
every read wait at most until that monotonic instant; past it the operation raises httpcore's
timeout error. :meth:`Connections.abort` shuts every open socket down, so threads blocked in
a read return at once (Ctrl-C must not wait for a slow server).

httpcore (a dependency of httpx) is imported only when :class:`Connections` is created.
:func:`sdk_transport` puts the same pool under a provider SDK's ``httpx2`` client, so the SDK
builds and reads the requests while the sockets, deadlines and aborts stay these.
"""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_local = threading.local()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Bound every socket operation of this thread to ``seconds`` from now, all together."""
    _local.end = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.end = None


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    """``timeout`` cut to the time left before this thread's deadline (raises when none)."""
    end = getattr(_local, "end", None)
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the request deadline passed")
    return left if timeout is None else min(timeout, left)


class Connections:
    """An httpcore connection pool (or proxy) built on the deadline-aware network backend."""

    def __init__(self, url: str, max_connections: int):
        import httpcore

        self.httpcore = httpcore
        self._streams: set = set()
        self._lock = threading.Lock()
        self._aborted = False
        backend = _backend(httpcore, self)
        proxy = _proxy_for(url)
        common: dict[str, Any] = dict(
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            network_backend=backend,
        )
        if proxy:
            self.pool = httpcore.HTTPProxy(proxy_url=proxy, **common)
        else:
            self.pool = httpcore.ConnectionPool(**common)

    def post(self, url: str, headers: list[tuple[str, str]], body: bytes, timeout_s: float):
        """POST ``body``; the whole exchange ends within ``timeout_s`` (httpcore.Response)."""
        return self.request("POST", url, headers, body, timeout_s)

    def request(self, method: str, url: str, headers, body: bytes, timeout_s: float):
        """One request whose whole exchange ends within ``timeout_s`` (httpcore.Response)."""
        t = {"connect": timeout_s, "read": timeout_s, "write": timeout_s, "pool": timeout_s}
        with deadline(timeout_s):
            return self.pool.request(
                method, url, headers=headers, content=body, extensions={"timeout": t}
            )

    def track(self, stream, add: bool) -> None:
        with self._lock:
            if add:
                self._streams.add(stream)
            else:
                self._streams.discard(stream)
            aborted = self._aborted
        if add and aborted:
            _shutdown(stream)

    def abort(self) -> None:
        """Shut every open socket down (blocked reads return at once); later ones too."""
        with self._lock:
            self._aborted = True
            streams = list(self._streams)
        for stream in streams:
            _shutdown(stream)

    def close(self) -> None:
        self.abort()
        try:
            self.pool.close()
        except Exception:  # connections in use by abandoned threads: they are shut already
            pass


def _shutdown(stream) -> None:
    sock = stream.get_extra_info("socket")
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except (OSError, AttributeError):
        pass


def _proxy_for(url: str) -> str | None:
    """The HTTP(S)_PROXY that applies to ``url`` (as httpx would honour), or None."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    proxy = urllib.request.getproxies().get(parts.scheme)
    if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy


def _backend(httpcore, owner: Connections) -> Any:
    """A SyncBackend whose streams clamp each timeout to the thread's deadline."""

    class Stream(httpcore.NetworkStream):
        def __init__(self, inner):
            self.inner = inner
            owner.track(self, True)

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self.inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self.inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

        def close(self) -> None:
            owner.track(self, False)
            self.inner.close()

        def start_tls(self, ssl_context, server_hostname=None, timeout=None):
            owner.track(self, False)
            tls = self.inner.start_tls(
                ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)
            )
            return Stream(tls)

        def get_extra_info(self, info: str) -> Any:
            return self.inner.get_extra_info(info)

    class Backend(httpcore.NetworkBackend):
        def __init__(self):
            self.inner = httpcore.SyncBackend()

        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
            t = _left(timeout, httpcore.ConnectTimeout)
            return Stream(self.inner.connect_tcp(host, port, t, local_address, socket_options))

        def connect_unix_socket(self, path, timeout=None, socket_options=None):
            t = _left(timeout, httpcore.ConnectTimeout)
            return Stream(self.inner.connect_unix_socket(path, t, socket_options))

        def sleep(self, seconds: float) -> None:
            time.sleep(seconds)

    return Backend()



def sdk_transport(conn: Connections, timeout_s: float):
    """An ``httpx2`` transport (what the anthropic and google-genai SDKs use) that sends each
    request through ``conn``: one deadline for the whole exchange, sockets shut by
    :meth:`Connections.abort`. httpcore's failures are raised as httpx2's, so each SDK reports
    them as it would its own (a timeout as a timeout, a reset as a connection error)."""
    import httpx2

    hc = conn.httpcore

    class DeadlineTransport(httpx2.BaseTransport):
        def handle_request(self, request):
            body = request.read()
            try:
                resp = conn.request(request.method, str(request.url), request.headers.raw,
                                    body, timeout_s)
            except hc.TimeoutException as exc:
                raise httpx2.ReadTimeout(f"no complete response within {timeout_s:g} s ({exc})",
                                         request=request) from exc
            except hc.RemoteProtocolError as exc:
                raise httpx2.RemoteProtocolError(str(exc), request=request) from exc
            except (hc.NetworkError, hc.ProtocolError) as exc:
                raise httpx2.ConnectError(f"{type(exc).__name__}: {exc}",
                                          request=request) from exc
            return httpx2.Response(resp.status, headers=resp.headers, content=resp.content,
                                   request=request)

        def close(self) -> None:
            conn.close()

    return DeadlineTransport()
