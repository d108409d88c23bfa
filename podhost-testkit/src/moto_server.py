"""moto's S3 server, with its conditional writes made atomic.

moto 5.2.5 answers `If-None-Match: *` by looking for the key, then writing it, on a threaded
server with nothing held between the two: two writers racing for one key can both be told they
created it, and one write is silently replaced. AWS S3 lets exactly one win. The log of a
podhost catalog relies on that (its crash and concurrency tests lost an acknowledged entry to
this race), so here every object write and multipart completion runs under one lock; reads stay
concurrent.

Usage: python moto_server.py -H HOST -p PORT (moto's own arguments).
"""

import functools
import sys
import threading

from moto import server
from moto.s3.responses import S3Response

_writes = threading.Lock()


def _serialised(method):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with _writes:
            return method(*args, **kwargs)

    return wrapper


S3Response.put_object = _serialised(S3Response.put_object)
S3Response._key_response_post = _serialised(S3Response._key_response_post)

if __name__ == "__main__":
    server.main(sys.argv[1:])
