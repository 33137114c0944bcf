"""Write an evaluation's results: metrics.json, report.md and PNG plots."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

HEADLINE = [
    ("emotion", "accuracy", "emotion acc"),
    ("emotion", "macro_f1", "emotion macro-F1"),
    ("coarse_emotion", "accuracy", "coarse acc"),
    ("coarse_emotion", "macro_f1", "coarse macro-F1"),
    ("strategy", "accuracy", "strategy acc"),
    ("strategy", "weighted_f1", "strategy weighted-F1"),
    ("generation", "bleu1", "BLEU-1"),
    ("generation", "bleu2", "BLEU-2"),
    ("generation", "bleu4", "BLEU-4"),
    ("generation", "rougeL", "ROUGE-L"),
    ("generation", "dist1", "Dist-1"),
    ("generation", "dist2", "Dist-2"),
    ("generation", "avg_length", "avg length"),
    ("empathy", "score", "EPITOME score (0-6)"),
    ("empathy", "expected", "EPITOME expected (0-6)"),
    ("empathy", "emotional_reactions", "EPITOME reactions"),
    ("empathy", "interpretations", "EPITOME interpretations"),
    ("empathy", "explorations", "EPITOME explorations"),
    ("style", "understand_opening", "opens 'I understand/see/hear'"),
    ("style", "top_opening_share", "top 3-word opening"),
    ("style", "label_parroting", "label parroting"),
    ("style", "what_do_you_think_about", "'what do you think about'"),
    ("style", "generic_question", "stock question"),
    ("style", "specificity", "specificity"),
    ("style", "mean_words", "reply words"),
    ("harm", "flagged", "harm flags (heuristic)"),
    ("cause_span", "precision", "cause P"),
    ("cause_span", "recall", "cause R"),
    ("cause_span", "f1", "cause F1"),
    ("media_consistency", "face_matches_plan", "face = plan"),
    ("cost", "seconds_per_sample", "s / sample"),
    ("cost", "llm_calls_per_sample", "LLM calls / sample"),
    ("cost", "tokens_per_sample", "tokens / sample"),
]


# Rows whose values are not shares in [0, 1], left out of the bar chart.
OFF_SCALE = {"avg length", "reply words", "EPITOME score (0-6)", "EPITOME expected (0-6)", "EPITOME reactions",
             "EPITOME interpretations", "EPITOME explorations", "harm flags (heuristic)"}
HUMAN = "human"


def git_commit(repo: Path | None = None) -> str:
    """The current commit (with '+dirty' when the tree has changes), or 'unknown'."""
    try:
        cwd = repo or Path(__file__).resolve().parents[2]
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=cwd, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                               capture_output=True, text=True, check=False).stdout.strip()
        return sha + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def columns(result: dict) -> dict[str, dict]:
    """The report's columns: every system, then the dataset's own replies ("human") when scored."""
    return {**result["systems"], **({HUMAN: result["references"]} if result.get("references") else {})}


def headline_rows(systems: dict[str, dict]) -> list[tuple[str, list[str]]]:
    """(metric name, value per system) for every headline metric some system has."""
    rows = []
    for section, key, title in HEADLINE:
        values = [systems[name].get(section, {}).get(key) for name in systems]
        if any(v is not None for v in values):
            rows.append((title, ["—" if v is None else f"{v:g}" for v in values]))
    return rows


def markdown(result: dict) -> str:
    """The report as Markdown: data, slice, configuration, commit, one table of every system (and the humans)."""
    systems = columns(result)
    lines = [
        f"# Evaluation: {result['dataset']}",
        "",
        (f"- data: `{result['load']['path']}` — {result['load']['records']} records, {result['load']['samples']} "
         f"samples, {result['load']['bad_records']} bad records skipped"),
        f"- slice: {result['slice']['n']} samples ({result['slice']['how']})",
        f"- backbone: `{result['backbone']}`; commit `{result['commit']}`",
        "",
        "| metric | " + " | ".join(systems) + " |",
        "|---|" + "---|" * len(systems),
    ]
    lines += [f"| {title} | " + " | ".join(values) + " |" for title, values in headline_rows(systems)]
    lines += ["", "n per system: " + ", ".join(f"{k} {v['n']} ({v['errors']} errors)" for k, v in systems.items())]
    openings = [f"{k} \"{v['style']['top_opening']}\"" for k, v in systems.items() if v.get("style", {}).get("n")]
    if openings:
        lines += ["", "Most common opening: " + ", ".join(openings) + f". `{HUMAN}`: the dataset's own replies to the "
                  "same samples. EPITOME: the empathy judge (`eval/judge.py`); harm flags: a regular-expression "
                  "heuristic (`eval/harm.py`)."]
    flagged = [(name, e) for name, v in systems.items() for e in v.get("harm", {}).get("examples", [])]
    if flagged:
        lines += ["", "## Replies the harm heuristic flagged (first 5 per system)", ""]
        lines += [f"- {name}: {e['reply']!r} ({', '.join(e['matched'])})" for name, e in flagged]
    failures = [(name, e) for name, v in systems.items() for e in v.get("error_examples", [])]
    if failures:
        lines += ["", "## Failed samples (counted as wrong; first 20 per system)", ""]
        lines += [f"- {name} `{e['sample_id']}`: {e['error']}" for name, e in failures]
    if result["load"]["bad_examples"]:
        lines += ["", "## Skipped records (first 20)", ""] + [f"- {b}" for b in result["load"]["bad_examples"]]
    lines += ["", "## Configuration", "", "```yaml", yaml.safe_dump(result["config"], sort_keys=False).strip(), "```"]
    lines += ["", "Plots: " + ", ".join(f"`{p}`" for p in result.get("plots", []))]
    return "\n".join(lines) + "\n"


def plot(result: dict, out: Path) -> list[str]:
    """Confusion matrices and a metric bar chart as PNG; returns the file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for name, metrics in result["systems"].items():
        for task in ("emotion", "coarse_emotion", "strategy"):
            data = metrics.get(task)
            if not data or not data.get("n"):
                continue
            labels, matrix = data["labels"], data["confusion"]
            size = max(4.0, 0.28 * len(labels) + 2)
            fig, ax = plt.subplots(figsize=(size, size))
            ax.imshow(matrix, cmap="Blues")
            ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
            ax.set_yticks(range(len(labels)), labels, fontsize=7)
            ax.set_xlabel("predicted")
            ax.set_ylabel("gold")
            ax.set_title(f"{name}: {task} (acc {data['accuracy']:.3f}, n {data['n']})", fontsize=9)
            fig.tight_layout()
            file = f"confusion_{name}_{task}.png"
            fig.savefig(out / file, dpi=110)
            plt.close(fig)
            written.append(file)
    rows = [(t, v) for t, v in headline_rows(columns(result)) if "/" not in t and t not in OFF_SCALE]
    if rows:
        names = list(columns(result))
        fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows) * len(names)), 4))
        width = 0.8 / len(names)
        for i, name in enumerate(names):
            values = [float(v[i]) if v[i] != "—" else 0.0 for _, v in rows]
            ax.bar([j + i * width for j in range(len(rows))], values, width, label=name)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(rows))], [t for t, _ in rows], rotation=45, ha="right")
        ax.set_ylim(0, 1)
        ax.legend()
        ax.set_title(f"{result['dataset']}: n {result['slice']['n']}")
        fig.tight_layout()
        fig.savefig(out / "metrics.png", dpi=110)
        plt.close(fig)
        written.append("metrics.png")
    return written


def write_report(result: dict, out: Path) -> dict[str, Path]:
    """Write metrics.json, report.md and the plots into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    result["plots"] = plot(result, out)
    (out / "metrics.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    (out / "report.md").write_text(markdown(result), encoding="utf-8")
    return {"metrics": out / "metrics.json", "report": out / "report.md"}
