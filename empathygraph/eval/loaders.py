"""Loaders for the public corpora: each takes a file path and returns samples plus skipped records.

Every loader accepts any split of its format (including test splits not in ../shared). A
record missing a field or carrying an unknown label is skipped and reported with its file,
line and field; a file with no usable record at all is an error.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from empathygraph.errors import DatasetError
from empathygraph.eval.jsonfile import iter_json_items
from empathygraph.eval.samples import BadRecord, LoadResult, Sample, Utterance
from empathygraph.jsonl import iter_jsonl, read_text
from empathygraph.schemas import CoarseEmotion, EDEmotion, Strategy


class Skip(Exception):
    """A record (or part of one) is unusable: names the field and the problem."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field, self.problem = field, problem


def need(record: Any, key: str, kind: type | tuple[type, ...] = str, where: str = "") -> Any:
    """``record[key]``, present, of ``kind`` and (for text) not empty."""
    name = f"{where}{key}"
    if not isinstance(record, dict) or key not in record:
        raise Skip(name, "missing")
    value = record[key]
    if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
        raise Skip(name, f"expected non-empty {getattr(kind, '__name__', kind)}, got {value!r:.40}")
    return value.strip() if isinstance(value, str) else value


def label(enum: type, value: Any, field: str) -> Any:
    """``value`` as a member of ``enum`` (case-insensitive); Skip when it is not one."""
    text = str(value).strip().strip("[]")
    for member in enum:
        if member.value.lower() == text.lower():
            return member
    raise Skip(field, f"unknown label {value!r:.40}")


class Collector:
    """Gathers samples and skipped records for one file."""

    def __init__(self, path: Path) -> None:
        self.result = LoadResult(path=str(path))

    def bad(self, line: int, field: str, problem: str) -> None:
        self.result.bad.append(BadRecord(self.result.path, line, field, problem))

    def take(self, line: int, build: Callable[[], list[Sample]]) -> None:
        """Count one record; keep its samples, or report it when ``build`` raises Skip."""
        self.result.records += 1
        try:
            self.result.samples.extend(build())
        except Skip as skip:
            self.bad(line, skip.field, skip.problem)

    def finish(self, what: str) -> LoadResult:
        if self.result.records and not self.result.samples:
            first = f"; first problem: {self.result.bad[0]}" if self.result.bad else ""
            raise DatasetError(f"{self.result.path}: no usable {what} record in {self.result.records}{first}")
        if not self.result.records:
            raise DatasetError(f"{self.result.path}: holds no {what} records")
        return self.result


def _json_records(path: Path, collector: Collector) -> Iterator[tuple[int, Any]]:
    """(line, record) of a JSON Lines file, reporting lines that are not JSON."""
    for line, record, error in iter_jsonl(path):
        if error is not None:
            collector.result.records += 1
            collector.bad(line, "(line)", error)
        else:
            yield line, record


# --- EmpatheticDialogues ------------------------------------------------------------------


def load_ed(path: Path) -> LoadResult:
    """EmpatheticDialogues JSONL: one sample per conversation, the speaker's first utterance.

    The reference reply is the listener's first turn (the anchors' input setting).
    """
    collector = Collector(path)

    def build(record: Any) -> list[Sample]:
        emotion = label(EDEmotion, need(record, "emotion"), "emotion")
        dialog = need(record, "dialog", list)
        turns = [(need(t, "speaker", where="dialog[].") , need(t, "text", where="dialog[].")) for t in dialog]
        if not turns or turns[0][0] != "speaker":
            raise Skip("dialog[0].speaker", "the conversation does not open with the speaker")
        reference = turns[1][1] if len(turns) > 1 and turns[1][0] == "listener" else None
        return [Sample(id=str(need(record, "conv_id")), dataset="ed", text=turns[0][1], emotion=emotion,
                       reference=reference)]

    for line, record in _json_records(path, collector):
        collector.take(line, lambda record=record: build(record))
    return collector.finish("EmpatheticDialogues")


def ed_first_exchanges(paths: Sequence[Path]) -> list[tuple[str, str, str]]:
    """(the speaker's first message, the human listener's first reply, the ED label) of every conversation of
    ``paths`` that has such a reply."""
    return [(sample.text, sample.reference, sample.emotion.value)
            for path in paths for sample in load_ed(path).samples if sample.reference is not None]


# --- ESConv -------------------------------------------------------------------------------


def esconv_samples(record: Any, conv_id: str) -> list[Sample]:
    """One sample per supporter reply that answers a seeker: the seeker's words since the last reply.

    History holds the earlier exchanges, with each supporter utterance's strategy.
    """
    dialog = need(record, "dialog", list)
    samples: list[Sample] = []
    history: list[Utterance] = []
    pending: list[str] = []  # seeker utterances since the last supporter utterance
    replies = 0
    for index, turn in enumerate(dialog):
        speaker = need(turn, "speaker", where=f"dialog[{index}].")
        text = need(turn, "text", where=f"dialog[{index}].")
        if speaker == "usr":
            pending.append(text)
            continue
        if speaker != "sys":
            raise Skip(f"dialog[{index}].speaker", f"unknown speaker {speaker!r:.20}")
        strategy = label(Strategy, need(turn, "strategy", where=f"dialog[{index}]."), f"dialog[{index}].strategy")
        if pending:
            samples.append(Sample(
                id=f"{conv_id}:{index}", dataset="esconv", text=" ".join(pending), history=list(history),
                strategy=strategy, reference=text, position=replies,
            ))
            history += [Utterance(role="user", text=t) for t in pending]
            pending = []
        history.append(Utterance(role="listener", text=text, strategy=strategy))
        replies += 1
    return samples


def load_esconv(path: Path) -> LoadResult:
    """ESConv JSONL: one conversation per line."""
    collector = Collector(path)
    for line, record in _json_records(path, collector):
        collector.take(line, lambda record=record, line=line: esconv_samples(record, f"L{line}"))
    return collector.finish("ESConv")


# --- AvaMERG ------------------------------------------------------------------------------

_AVAMERG_ROLES = {"speaker": "user", "listener": "listener"}


def _avamerg_history(turns: list[Any], text_key: str, where: str) -> list[Utterance]:
    history = []
    for i, turn in enumerate(turns):
        role = need(turn, "role", where=f"{where}[{i}].")
        if role not in _AVAMERG_ROLES:
            raise Skip(f"{where}[{i}].role", f"unknown role {role!r:.20}")
        history.append(Utterance(role=_AVAMERG_ROLES[role], text=need(turn, text_key, where=f"{where}[{i}].")))
    return history


def _split_last_user(history: list[Utterance], where: str) -> tuple[str, list[Utterance]]:
    if not history or history[-1].role != "user":
        raise Skip(where, "the context does not end with the speaker")
    return history[-1].text, history[:-1]


def avamerg_annotated(record: Any, key: str) -> list[Sample]:
    turn = need(record, "turn", dict)
    dialogue = need(turn, "dialogue", list, where="turn.")
    replies = [t for t in dialogue if isinstance(t, dict) and t.get("role") == "listener_response"]
    if not replies:
        raise Skip("turn.dialogue", "no listener_response turn")
    context = [t for t in dialogue if t is not replies[-1]]
    text, history = _split_last_user(_avamerg_history(context, "text", "turn.dialogue"), "turn.dialogue")
    chain = need(turn, "chain_of_empathy", dict, where="turn.")
    emotion = label(EDEmotion, need(chain, "speaker_emotion", where="turn.chain_of_empathy."),
                    "turn.chain_of_empathy.speaker_emotion")
    conv = str(record.get("conversation_id", key))
    return [Sample(id=f"{conv}:{turn.get('turn_id', '')}", dataset="avamerg", text=text, history=history,
                   emotion=emotion, reference=need(replies[-1], "text", where="listener_response."),
                   position=sum(u.role == "listener" for u in history))]


def avamerg_contexts(record: Any, key: str) -> list[Sample]:
    conv = str(need(record, "conversation_id"))
    samples = []
    for i, turn in enumerate(need(record, "turns", list)):
        where = f"turns[{i}].dialogue_history"
        history = _avamerg_history(need(turn, "dialogue_history", list, where=f"turns[{i}]."), "utterance", where)
        text, history = _split_last_user(history, where)
        samples.append(Sample(id=f"{conv}:{turn.get('turn_id', i)}", dataset="avamerg", text=text, history=history,
                              position=sum(u.role == "listener" for u in history)))
    return samples


def load_avamerg(path: Path) -> LoadResult:
    """AvaMERG JSON: annotated samples (labels and reference) or test contexts (context only)."""
    collector = Collector(path)
    for key, line, record in iter_json_items(path):
        build = avamerg_annotated if isinstance(record, dict) and "turn" in record else avamerg_contexts
        collector.take(line, lambda record=record, key=key, build=build: build(record, str(key)))
    return collector.finish("AvaMERG")


# --- MELD and RECCON: utterances in multi-party dialogues, coarse labels ------------------

COARSE_ALIASES = {
    "happiness": "joy", "happy": "joy", "excited": "joy", "sad": "sadness", "angry": "anger",
    "frustrated": "anger", "surprised": "surprise", "fearful": "fear", "disgusted": "disgust",
}  # fmt: skip


def coarse_label(value: Any, field: str) -> CoarseEmotion:
    text = str(value).strip().lower()
    return label(CoarseEmotion, COARSE_ALIASES.get(text, text), field)


def _role(speaker: str, current: str) -> str:
    return "user" if speaker == current else "listener"


def load_meld(path: Path) -> LoadResult:
    """MELD CSV: one sample per utterance; history = earlier utterances of its dialogue."""
    collector = Collector(path)
    text = read_text(path)
    reader = csv.DictReader(text.splitlines())
    missing = {"Utterance", "Speaker", "Emotion", "Dialogue_ID", "Utterance_ID"} - set(reader.fieldnames or [])
    if missing:
        raise DatasetError(f"{path}:1: not a MELD CSV; missing columns {sorted(missing)}")
    dialogues: dict[str, list[tuple[str, str]]] = {}
    for row in reader:
        line = reader.line_num

        def build(row: dict = row) -> list[Sample]:
            utterance, speaker = need(row, "Utterance"), need(row, "Speaker")
            coarse = coarse_label(need(row, "Emotion"), "Emotion")
            dia, utt = need(row, "Dialogue_ID"), need(row, "Utterance_ID")
            earlier = dialogues.setdefault(dia, [])
            history = [Utterance(role=_role(s, speaker), text=t) for s, t in earlier]
            earlier.append((speaker, utterance))
            return [Sample(id=f"{dia}_{utt}", dataset="meld", text=utterance, history=history, coarse=coarse)]

        collector.take(line, build)
    return collector.finish("MELD")


def reccon_samples(dialogue: Any, key: str, where: str) -> list[Sample]:
    """One sample per emotional utterance with at least one quoted cause span."""
    if not isinstance(dialogue, list):
        raise Skip(where, "expected a list of utterances")
    samples, earlier = [], []
    for i, utt in enumerate(dialogue):
        text, speaker = need(utt, "utterance", where=f"{where}[{i}]."), str(need(utt, "speaker", where=f"{where}[{i}]."))
        coarse = coarse_label(need(utt, "emotion", where=f"{where}[{i}]."), f"{where}[{i}].emotion")
        spans = [s.strip() for s in utt.get("expanded emotion cause span", []) if isinstance(s, str) and s != "b"]
        if coarse is not CoarseEmotion.NEUTRAL and spans:
            history = [Utterance(role=_role(s, speaker), text=t) for s, t in earlier]
            samples.append(Sample(id=f"{key}:{utt.get('turn', i + 1)}", dataset="reccon", text=text,
                                  history=history, coarse=coarse, causes=spans))
        earlier.append((speaker, text))
    return samples


def load_reccon(path: Path) -> LoadResult:
    """RECCON JSON: {dialogue id: [[utterance, ...]]}."""
    collector = Collector(path)
    for key, line, record in iter_json_items(path):
        dialogues = record if isinstance(record, list) and record and isinstance(record[0], list) else [record]
        collector.take(line, lambda key=key, dialogues=dialogues: [
            s for j, d in enumerate(dialogues) for s in reccon_samples(d, str(key), f"{key}[{j}]")
        ])
    return collector.finish("RECCON")


LOADERS: dict[str, Callable[[Path], LoadResult]] = {
    "ed": load_ed,
    "esconv": load_esconv,
    "avamerg": load_avamerg,
    "meld": load_meld,
    "reccon": load_reccon,
}


def load_dataset(name: str, path: str | Path) -> LoadResult:
    """Load ``path`` with the loader for dataset ``name`` (one of ``LOADERS``)."""
    if name not in LOADERS:
        raise DatasetError(f"unknown dataset '{name}' (known: {', '.join(LOADERS)})")
    return LOADERS[name](Path(path))
