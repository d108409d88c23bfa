#!/usr/bin/env python3
"""TCP proxies between each podhost server of scripts/cluster and the store, through which the
harness cuts a server off from the store or slows the store down, while the server's clients
still reach it.

    store-proxy.py UPSTREAM_PORT CONTROL_DIR PORT...

Listens on 127.0.0.1:PORT for each PORT and forwards to 127.0.0.1:UPSTREAM_PORT. What each
proxy does is read from CONTROL_DIR/proxy-PORT (checked every 50 ms; missing means `pass`):

    pass        forwards both ways
    cut         forwards nothing, either way, on open connections or new ones (accepted, then
                silent), as a link that drops every packet: requests hang until it is restored,
                then go on where they stopped
    delay S     forwards both ways, every answer's bytes S seconds late (latency, as netem adds
                it, not a limit on throughput)

Only loopback: the proxies listen on 127.0.0.1 and forward there. Used instead of a network
namespace so that the harness needs no privileges (CI may run it unprivileged).
"""
import asyncio
import os
import sys
import time

modes = {}


async def watch(control, ports):
    while True:
        for port in ports:
            try:
                with open(os.path.join(control, f"proxy-{port}")) as f:
                    modes[port] = f.read().split() or ["pass"]
            except FileNotFoundError:
                modes[port] = ["pass"]
        await asyncio.sleep(0.05)


async def open_link(port):
    """Waits while the link is cut."""
    while modes.get(port, ["pass"])[0] == "cut":
        await asyncio.sleep(0.05)


def latency(port):
    mode = modes.get(port, ["pass"])
    return float(mode[1]) if mode[0] == "delay" and len(mode) > 1 else 0.0


async def pipe(port, reader, writer, answers):
    """Copies reader to writer; `answers`: the store's direction, which `delay` slows."""
    queue = asyncio.Queue()

    async def send():
        try:
            while True:
                item = await queue.get()
                if item is None:
                    break
                due, data = item
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                await open_link(port)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            try:
                writer.close()
            except (ConnectionError, OSError):
                pass

    sender = asyncio.create_task(send())
    try:
        while True:
            await open_link(port)
            data = await reader.read(65536)
            if not data:
                break
            due = time.monotonic() + (latency(port) if answers else 0.0)
            queue.put_nowait((due, data))
    except (ConnectionError, OSError):
        pass
    queue.put_nowait(None)
    await sender


def serve(port, upstream):
    async def connected(client_reader, client_writer):
        await open_link(port)
        try:
            store_reader, store_writer = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            pipe(port, client_reader, store_writer, answers=False),
            pipe(port, store_reader, client_writer, answers=True),
        )

    return asyncio.start_server(connected, "127.0.0.1", port, reuse_address=True)


async def main():
    upstream = int(sys.argv[1])
    control = sys.argv[2]
    ports = [int(p) for p in sys.argv[3:]]
    asyncio.create_task(watch(control, ports))
    servers = [await serve(port, upstream) for port in ports]
    print("store-proxy: listening on " + ", ".join(map(str, ports)), flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


if __name__ == "__main__":
    asyncio.run(main())
