"""The floor for the fan-out benchmark: a raw `websockets` broadcast server, no framework, no channel layer.

`python -m bench.ws_floor PORT PAYLOAD_FILE`. Any websocket connects and stays registered until it closes;
`GET /send?v=<version>` broadcasts the payload (__V__ replaced by the version) to every socket with one
`websockets.broadcast` call, then answers 200. No permessage-deflate (daphne offers none either).
"""

import asyncio
import sys
import urllib.parse
from http import HTTPStatus

from websockets.asyncio.server import broadcast, serve

CONNECTIONS = set()


def main(port: int, payload: str) -> None:
    async def handler(connection):
        CONNECTIONS.add(connection)
        try:
            await connection.wait_closed()
        finally:
            CONNECTIONS.discard(connection)

    def process_request(connection, request):
        url = urllib.parse.urlsplit(request.path)
        if url.path != "/send":
            return None  # a websocket handshake
        version = str(int(urllib.parse.parse_qs(url.query)["v"][0]))
        broadcast(CONNECTIONS, payload.replace("__V__", version))
        return connection.respond(HTTPStatus.OK, "sent\n")

    async def run():
        async with serve(
            handler,
            "127.0.0.1",
            port,
            process_request=process_request,
            compression=None,
            ping_interval=None,
            max_queue=None,
        ):
            await asyncio.get_running_loop().create_future()

    asyncio.run(run())


if __name__ == "__main__":
    main(int(sys.argv[1]), open(sys.argv[2], encoding="utf-8").read())
