"""A WebsocketCommunicator that reports a refusal the way a browser meets it.

Fray refuses a socket by accepting it and closing it at once with the reason's code (4401, 4404): a handshake
refused outright reaches a browser as a bare 1006, which its page would retry forever. So `connect` here reads the
first thing the server sends: a close is a refusal, `(False, code)`; anything else (the first frame) is kept for the
next receive, and `(True, None)` as usual. A socket refused before the handshake (a foreign origin) is `(False, ...)`
as with the plain communicator.
"""

from channels.testing import WebsocketCommunicator


class Socket(WebsocketCommunicator):
    _first: dict | None = None

    async def connect(self, timeout=1):
        connected, code = await super().connect(timeout)
        if not connected:
            return connected, code
        message = await super().receive_output(timeout)
        if message["type"] == "websocket.close":
            return False, message.get("code")
        self._first = message
        return True, code

    async def receive_output(self, timeout=1):
        if self._first is not None:
            message, self._first = self._first, None
            return message
        return await super().receive_output(timeout)

    async def receive_nothing(self, timeout=0.1, interval=0.01):
        return self._first is None and await super().receive_nothing(timeout, interval)
