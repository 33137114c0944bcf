"""``empathygraph serve`` with the tests' scripted model, as a process of its own (for the replica tests).

    python -m tests.serve.scripted_server PORT [--set KEY=VALUE ...]
"""

from __future__ import annotations

import argparse

import uvicorn

from empathygraph.config import load_config
from empathygraph.serve.app import create_app
from tests.conftest import make_empathizer, scripted


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    args = parser.parse_args()
    config = load_config(overrides=["perception.text_emotion=false", "safety.classifier=false", "serve.warm_up=false",
                                    "generators.speech=none", "generators.avatar=none", "agents.strategy_label=llm",
                                    *args.overrides])
    uvicorn.run(create_app(config, empathizer=make_empathizer(scripted(), config)), host="127.0.0.1", port=args.port,
                log_level="warning")


if __name__ == "__main__":
    main()
