"""Cold start of the embedded backbone: a new process's first read of a turn's prompt, with and without
the prefix cache (``backbones/prefix_cache.py``: the system message's reading kept on disk).

Each sample is a fresh process that loads the default model and reads the first prompt a turn
reads (the system message and the person's words, as the read step does), then a second one (warm).
Conditions, interleaved per repeat so machine noise hits all alike: ``off`` (``prefix_cache:
false``), ``miss`` (cache on, its folder empty: read and written) and ``hit`` (read back). Prints
one JSON object: per condition the median seconds of the first read, the second read as the
same-process warm reference, and ``hit_over_off`` (the first read's ratio).

    python benchmarks/cold_start.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = """
import json, time
from empathygraph.agents.prompting import words_messages
from empathygraph.backbones import make_backbone
from empathygraph.config import Config
from empathygraph.tools.risk_probe import RiskProbe
config = Config()
config.backbone.prefix_cache = {cache}
backbone = make_backbone(config.backbone)
layer = RiskProbe.load().layer
times = []
for words in ("My chemistry final is tomorrow morning and my mind goes blank.", "I lost my keys again today."):
    started = time.perf_counter()
    backbone.hidden_state(*words_messages(words), layer)
    times.append(time.perf_counter() - started)
print(json.dumps(times))
"""


def sample(cache: bool, home: str) -> list[float]:
    """First and second read times of one fresh process."""
    env = {**os.environ, "EMPATHYGRAPH_HOME": home}
    done = subprocess.run([sys.executable, "-c", CHILD.format(cache=cache)], env=env, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from empathygraph.paths import default_home

    models = default_home() / "models"  # the assembled model stays where it is; only the prompt cache moves
    results: dict[str, list[list[float]]] = {"off": [], "miss": [], "hit": []}
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as home:
            os.symlink(models, os.path.join(home, "models"))
            results["off"].append(sample(False, home))
            results["miss"].append(sample(True, home))
            results["hit"].append(sample(True, home))
    summary = {name: {"first_read_s_median": round(statistics.median(t[0] for t in runs), 3),
                      "second_read_s_median": round(statistics.median(t[1] for t in runs), 3)}
               for name, runs in results.items()}
    summary["hit_over_off"] = round(summary["hit"]["first_read_s_median"] / summary["off"]["first_read_s_median"], 3)
    summary["repeats"] = args.repeats
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
