"""Stand-in for LivePortrait's inference.py: same CLI contract, copies the driving clip as its output."""

import argparse
import shutil
import sys
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("-s", "--source", required=True)
parser.add_argument("-d", "--driving", required=True)
parser.add_argument("-o", "--output-dir", required=True)
args, extra = parser.parse_known_args()
for name in (args.source, args.driving):
    if not Path(name).exists():
        sys.exit(f"not found: {name}")
out = Path(args.output_dir)
out.mkdir(parents=True, exist_ok=True)
shutil.copy(args.driving, out / f"{Path(args.source).stem}--{Path(args.driving).stem}.mp4")
