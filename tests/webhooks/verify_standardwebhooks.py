"""An independent check of podhost's webhook signatures with the Standard Webhooks reference
library for Python (PyPI `standardwebhooks`, pinned and installed into .venv by scripts/test).

Reads one JSON object on stdin: {"secret": "whsec_...", "headers": {name: value}, "body": "..."}.
Exits 0 if `Webhook(secret).verify(body, headers)` accepts the delivery (which also requires the
`webhook-timestamp` to be within five minutes of now), 1 with the reason on stderr if it refuses
it, 2 if the input cannot be read. Prints the library's version on stdout first.
"""

import json
import sys
from importlib.metadata import version

from standardwebhooks import Webhook


def main() -> int:
    print(version("standardwebhooks"))
    try:
        given = json.load(sys.stdin)
        secret, headers, body = given["secret"], given["headers"], given["body"]
    except (ValueError, KeyError, TypeError) as e:
        print(f"unreadable input: {e!r}", file=sys.stderr)
        return 2
    try:
        Webhook(secret).verify(body.encode("utf-8"), headers)
    except Exception as e:  # the library raises several kinds; any of them is a refusal
        print(f"refused: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
