"""Privacy: with ``trace.redact`` no word or media path of the person reaches a trace, result or report;
output paths stay in the chosen folder and names from outside become safe file names."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathygraph.errors import OutputError
from empathygraph.files import inside, safe_name
from empathygraph.state import TurnInput
from empathygraph.trace.redact import PREFIX, Redactor
from empathygraph.trace.replay import group_turns
from empathygraph.trace.report import write_report
from empathygraph.trace.store import read_trace
from tests.conftest import make_empathizer, scripted, test_config
from tests.observe.conftest import MEDIA

SECRET = "My dog Biscuit died on Tuesday and I cannot stop crying at the kitchen table."


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EMPATHYGRAPH_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def written_text(folder: Path) -> str:
    return "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in folder.rglob("*") if path.is_file())


def test_a_redacted_turn_writes_no_word_or_path_of_the_person_but_keeps_its_decisions(home, tmp_path: Path):
    model = scripted(LabelledCauseDraft={"scenario": "their dog Biscuit died", "emotion": "devastated",
                                         "quote": "My dog Biscuit died", "intensity": "high"})
    empathizer = make_empathizer(model, test_config(trace={"redact": True}))
    face = MEDIA / "sad_face.jpg"
    result = empathizer.respond(TurnInput(text=SECRET, image=face), session_id="s")
    assert result.user_text == SECRET and result.reply  # the caller itself still sees the words
    out = tmp_path / "run"
    result.write(out)
    records, problems = read_trace(out)
    write_report(records, out / "report.html", source=out / "trace.jsonl")
    text = written_text(out)
    for secret in ("Biscuit", "kitchen", "Tuesday", str(face), "sad_face", "dog died", result.reply[:20]):
        assert secret not in text, secret
    assert PREFIX in text and '"devastated"' in text and '"Reflection of feelings"' in text  # labels stay
    assert problems == [] and group_turns(records)[0].emotion.emotion.value == "devastated"  # it still replays
    assert {r.step for r in records} >= {"look", "read", "perception", "emotion_cause", "response"}


def test_without_redaction_the_same_files_do_hold_the_words(home, tmp_path: Path):
    result = make_empathizer().respond(TurnInput(text=SECRET, image=MEDIA / "sad_face.jpg"))
    result.write(tmp_path)
    text = written_text(tmp_path)
    assert "Biscuit" in text and "sad_face" in text and PREFIX not in text


def test_redaction_hashes_equal_words_alike_and_keeps_structure(home):
    redactor = Redactor(b"k" * 32)
    data = {"step": "read", "started_at": "2026-12-01T00:00:00", "output": {"words": "sad", "emotion": "sad",
            "causes": ["my dog", "my dog"], "valence": -0.7, "path": "/home/me/face.jpg"}}
    redacted = redactor.json(data)
    assert redacted["step"] == "read" and redacted["started_at"] == data["started_at"]
    assert redacted["output"]["emotion"] == "sad" and redacted["output"]["valence"] == -0.7
    assert redacted["output"]["words"].startswith(PREFIX)  # a whole message of one label word is still words
    assert redacted["output"]["causes"][0] == redacted["output"]["causes"][1] != "my dog"
    assert Redactor(b"x" * 32).hash("my dog") != redactor.hash("my dog")  # keyed: not a dictionary lookup


def test_the_redaction_key_is_private_to_its_owner(home):
    from empathygraph.trace.redact import redaction_key

    key = redaction_key(home)
    assert len(key) == 32 and redaction_key(home) == key
    assert (home / "redact.key").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(("name", "safe"), [("../../etc/passwd", "etc-passwd"), ("chat-2026", "chat-2026"),
                                             ("..", "unnamed"), ("a b/c\\d:e", "a-b-c-d-e"), (".hidden", "hidden")])
def test_names_from_outside_become_safe_file_names(name, safe):
    assert safe_name(name) == safe


def test_a_path_that_leads_out_of_the_chosen_folder_is_refused(tmp_path: Path):
    assert inside(tmp_path, "turn-1", "reply.json") == tmp_path / "turn-1" / "reply.json"
    for escape in ("../x", "/etc/passwd", "turn/../../x"):
        with pytest.raises(OutputError, match="outside the output folder"):
            inside(tmp_path, escape)


def test_chat_keeps_a_hostile_session_id_inside_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from typer.testing import CliRunner

    from empathygraph.cli import app
    from empathygraph.cli import chat as cli_chat

    monkeypatch.chdir(tmp_path)
    config = test_config(sessions={"db": str(tmp_path / "sessions.sqlite")})
    monkeypatch.setattr(cli_chat, "Empathizer", lambda _config: make_empathizer(config=config))
    result = CliRunner().invoke(app, ["chat", "--session", "../../escaped", "--no-media"], input="My dog died.\n")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "chats" / "escaped" / "turn-1" / "reply.json").is_file()
    assert not (tmp_path.parent / "escaped").exists()


def test_media_a_backend_wrote_outside_the_turn_folder_is_not_offered(tmp_path: Path):
    from dataclasses import dataclass, field

    @dataclass
    class Written:
        files: dict
        backend: str = "rogue"
        settings: dict = field(default_factory=dict)
        error: str | None = None
        seconds: float = 0.0
        first_chunk_seconds: float | None = None
        media_seconds: float | None = None

    class Rogue:
        def render(self, plan, out_dir):
            return [Written(files={"audio": tmp_path / "elsewhere.wav", "video": out_dir / "avatar.mp4"})]

    result = make_empathizer(renderer=Rogue()).respond("My dog died.", out_dir=tmp_path / "turn-1")
    assert result.media == {"video": str(tmp_path / "turn-1" / "avatar.mp4")}
    assert "wrote outside the output folder" in result.last("render:rogue").error
