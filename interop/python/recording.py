"""A client Transport that records every JSON-RPC message it carries, as plain JSON objects.

Wraps another transport (stdio_client, streamable_http_client): `sent` holds what the client
wrote, `received` what it read, each as the wire's JSON (by alias, without unset fields), so a
check sees exactly the fields the peer put there, not the SDK's parsed defaults.
"""

from mcp.shared.message import SessionMessage


def _wire(item):
    if isinstance(item, SessionMessage):
        return item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return None


class _Read:
    def __init__(self, inner, log):
        self._inner, self._log = inner, log

    def __getattr__(self, name):  # last_context and whatever else the dispatcher looks up
        return getattr(self._inner, name)

    async def receive(self):
        item = await self._inner.receive()
        if (wire := _wire(item)) is not None:
            self._log.append(wire)
        return item

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.receive()
        except Exception as err:
            if type(err).__name__ in ("EndOfStream", "ClosedResourceError"):
                raise StopAsyncIteration from err
            raise

    async def aclose(self):
        await self._inner.aclose()

    async def __aenter__(self):
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self._inner.__aexit__(*exc)


class _Write:
    def __init__(self, inner, log):
        self._inner, self._log = inner, log

    def __getattr__(self, name):
        return getattr(self._inner, name)

    async def send(self, item):
        if (wire := _wire(item)) is not None:
            self._log.append(wire)
        await self._inner.send(item)

    async def aclose(self):
        await self._inner.aclose()

    async def __aenter__(self):
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self._inner.__aexit__(*exc)


class Recording:
    def __init__(self, inner):
        self._inner = inner
        self.sent = []
        self.received = []

    async def __aenter__(self):
        read, write = await self._inner.__aenter__()
        return _Read(read, self.received), _Write(write, self.sent)

    async def __aexit__(self, *exc):
        return await self._inner.__aexit__(*exc)
