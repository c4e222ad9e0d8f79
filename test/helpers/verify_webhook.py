"""Verifies callbacks with the published Python `standardwebhooks` package (not our code).

Reads a JSON list of cases from stdin, each {"secret", "body", "headers"}, and prints a JSON list
with "ok" or the name of the exception the library raised for each case.
"""

import json
import sys

from standardwebhooks.webhooks import Webhook


def verify(case: dict) -> str:
    try:
        Webhook(case["secret"]).verify(case["body"], case["headers"])
    except Exception as err:  # noqa: BLE001 - the library's exception type is the answer
        return type(err).__name__
    return "ok"


def main() -> None:
    cases = json.load(sys.stdin)
    json.dump([verify(case) for case in cases], sys.stdout)


if __name__ == "__main__":
    main()
