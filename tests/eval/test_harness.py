"""Systems, cache and report with scripted models: fast, offline, no model files."""

from __future__ import annotations

import json

import pytest

from empathygraph.backbones import wrap_chat_model
from empathygraph.eval.harness import Harness, evaluate
from empathygraph.eval.runner import PredictionCache, run_system
from empathygraph.eval.samples import Sample, Utterance
from empathygraph.eval.systems import ClassifierSystem, GraphSystem, SinglePromptSystem, exchanges
from empathygraph.schemas import EDEmotion, LabelScore, Strategy, TextEmotionCue
from empathygraph.tools.toolbox import ToolBox
from tests.conftest import make_empathizer, scripted, test_config
from tests.eval.toy_judge import toy_judge

ONE_PASS = {"emotion": "sad", "cause": "my dog died", "goal": "comfort", "strategy": "Question",
            "reply": "I'm so sorry. How are you holding up?"}


class FixedToolBox(ToolBox):
    """A text classifier that always says 'sad' (no model download)."""

    def text_emotion(self, text: str, llm_state=None) -> TextEmotionCue:
        return TextEmotionCue(top=[LabelScore(label="sad", score=0.6)], model="fixed")


def sample(**kw) -> Sample:
    base = {"id": "s1", "dataset": "ed", "text": "My dog died yesterday.", "emotion": EDEmotion.SAD,
            "reference": "I'm so sorry to hear that."}
    return Sample(**{**base, **kw})


def test_exchanges_group_utterances_and_keep_last_strategy():
    history = [Utterance(role="listener", text="Hi.", strategy=Strategy.QUESTION),
               Utterance(role="user", text="a"), Utterance(role="user", text="b"),
               Utterance(role="listener", text="c", strategy=Strategy.REFLECTION)]
    assert exchanges(history) == [("", "Hi.", Strategy.QUESTION), ("a b", "c", Strategy.REFLECTION)]


def test_graph_sees_the_seeded_context_without_running_it():
    """The dataset's earlier turns reach the agents' prompt, and no LLM call is spent on them."""
    model = scripted()
    empathizer = make_empathizer(model)
    history = [Utterance(role="user", text="I had a rough week."),
               Utterance(role="listener", text="What happened?", strategy=Strategy.QUESTION)]
    prediction = GraphSystem(empathizer).predict(sample(history=history))
    assert prediction.emotion is EDEmotion.SAD and prediction.reply.startswith("I'm so sorry")
    assert prediction.llm_calls == len(model.calls) == 4
    assert "I had a rough week." in model.calls[0].prompt and "What happened?" in model.calls[0].prompt
    assert "Your earlier replies used: Question" in model.calls_for("StrategyDraft")[0].prompt


def test_single_prompt_is_one_call_with_everything():
    model = scripted(OnePass=ONE_PASS)
    prediction = SinglePromptSystem(wrap_chat_model(model)).predict(sample())
    assert len(model.calls) == 1 and prediction.llm_calls == 1
    assert prediction.strategy is Strategy.QUESTION and prediction.causes == ["my dog died"]


def test_classifier_only_uses_no_llm():
    prediction = ClassifierSystem(FixedToolBox(test_config().perception)).predict(sample())
    assert prediction.emotion is EDEmotion.SAD and prediction.reply is None and prediction.llm_calls == 0


def test_cache_resumes_an_interrupted_run(tmp_path):
    model = scripted(OnePass=ONE_PASS)
    system = SinglePromptSystem(wrap_chat_model(model))
    samples = [sample(id="a"), sample(id="b")]
    cache_path = tmp_path / "cache.jsonl"
    run_system(system, samples[:1], PredictionCache(cache_path))  # "interrupted" after one sample
    predictions = run_system(system, samples, PredictionCache(cache_path))
    assert [p.sample_id for p in predictions] == ["a", "b"] and len(model.calls) == 2


def test_failed_samples_are_counted_not_cached(tmp_path):
    model = scripted(OnePass={"emotion": "not-an-emotion"})
    cache = PredictionCache(tmp_path / "c.jsonl")
    (prediction,) = run_system(SinglePromptSystem(wrap_chat_model(model)), [sample()], cache)
    assert prediction.error and not cache.done


def test_report_names_each_failed_sample_and_why(tmp_path, shared_dir):
    harness = Harness(test_config(), backbone=wrap_chat_model(scripted(OnePass={"emotion": "not-an-emotion"})))
    out = tmp_path / "out"
    result = evaluate(harness, "ed", shared_dir / "data" / "empathetic_dialogues" / "ed_valid.jsonl", out, limit=2,
                      systems=["single_prompt"])
    failed = result["systems"]["single_prompt"]["error_examples"]
    assert len(failed) == 2 and all("not-an-emotion" in f["error"] or "emotion" in f["error"] for f in failed)
    report = (out / "report.md").read_text()
    assert "## Failed samples" in report and f"single_prompt `{failed[0]['sample_id']}`" in report


def test_evaluate_writes_metrics_report_and_plots(tmp_path, shared_dir):
    config = test_config(perception={"text_emotion": True})
    harness = Harness(config, backbone=wrap_chat_model(scripted(OnePass=ONE_PASS)),
                      toolbox=FixedToolBox(config.perception))
    out = tmp_path / "out"
    result = evaluate(harness, "ed", shared_dir / "data" / "empathetic_dialogues" / "ed_valid.jsonl", out, limit=3,
                      systems=["graph", "single_prompt", "classifier"])
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["slice"]["n"] == 3 and set(metrics["systems"]) == {"graph", "single_prompt", "classifier"}
    assert "generation" not in metrics["systems"]["classifier"]
    assert metrics["systems"]["graph"]["generation"]["n_replies"] == 3
    report = (out / "report.md").read_text()
    assert "| emotion acc |" in report and metrics["commit"] in report
    assert (out / "metrics.png").is_file() and (out / "confusion_graph_emotion.png").is_file()
    assert result["systems"]["graph"]["cost"]["llm_calls_per_sample"] >= 4  # a cause not quoted is re-asked


def test_only_cached_scores_the_common_finished_subset(tmp_path, shared_dir):
    """An interrupted run is reported on the samples every system finished, and predicts nothing new."""
    config = test_config(perception={"text_emotion": True})
    model = scripted(OnePass=ONE_PASS)
    harness = Harness(config, backbone=wrap_chat_model(model), toolbox=FixedToolBox(config.perception))
    path = shared_dir / "data" / "empathetic_dialogues" / "ed_valid.jsonl"
    evaluate(harness, "ed", path, tmp_path, limit=2, systems=["single_prompt", "classifier"])
    calls = len(model.calls)
    result = evaluate(harness, "ed", path, tmp_path, limit=4, systems=["single_prompt", "classifier"], only_cached=True)
    assert len(model.calls) == calls  # nothing new predicted
    assert result["slice"]["n"] == 2 and "interrupted" in result["slice"]["how"]  # spread(2) is inside spread(4)
    assert result["systems"]["single_prompt"]["emotion"]["n"] == 2


@pytest.mark.parametrize("shipped", ["EMOTION_TOP_PATH", "EMOTION_PROBE_PATH"])
def test_cached_predictions_are_keyed_by_the_shipped_emotion_readers(monkeypatch, tmp_path, shipped):
    import empathygraph.tools.toolbox as toolbox_module
    from empathygraph.tools.toolbox import ToolBox

    before = ToolBox().cache_key
    other = tmp_path / "reader.npz"
    other.write_bytes(b"another reader")
    monkeypatch.setattr(toolbox_module, shipped, other)
    assert ToolBox().cache_key != before and ToolBox().cache_key.startswith("ToolBox-")


def test_single_prompt_cache_ignores_the_graphs_settings_but_not_the_backbone(tmp_path):
    path = tmp_path / "ed.jsonl"
    keys = {}
    for name, sections in {"base": {}, "agents": {"agents": {"emotion_label": "llm", "reflection_rounds": 0}},
                           "backbone": {"backbone": {"temperature": 0.7}}}.items():
        harness = Harness(test_config(**sections), backbone=wrap_chat_model(scripted()), toolbox=FixedToolBox())
        keys[name] = {system: harness.cache_key(harness.system(system), path, media=False)
                      for system in ("graph", "single_prompt")}
    assert keys["agents"]["single_prompt"] == keys["base"]["single_prompt"]
    assert keys["agents"]["graph"] != keys["base"]["graph"]
    assert keys["backbone"]["single_prompt"] != keys["base"]["single_prompt"]


def test_replies_get_style_harm_and_judge_figures_beside_the_humans(tmp_path):
    """Each system's replies and the dataset's own replies to the same items are scored the same way."""
    rows = [{"conv_id": f"c{i}", "emotion": "sad", "situation": "s",
             "dialog": [{"speaker": "speaker", "text": "My dog died."},
                        {"speaker": "listener", "text": "Oh no. What happened?" if i else "Get over it."}]}
            for i in range(2)]
    path = tmp_path / "ed.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    reply = "I understand. You must be so sad. I'm sorry."
    harness = Harness(test_config(), backbone=wrap_chat_model(scripted(OnePass={**ONE_PASS, "reply": reply})))
    result = evaluate(harness, "ed", path, tmp_path / "out", systems=["single_prompt"], judge=toy_judge())
    system, human = result["systems"]["single_prompt"], result["references"]
    assert system["style"]["understand_opening"] == 1.0 and system["style"]["label_parroting"] == 1.0
    assert system["empathy"]["emotional_reactions"] == 2 and system["empathy"]["explorations"] == 0
    assert human["n"] == 2 and human["style"]["understand_opening"] == 0.0 and human["harm"]["flagged"] == 1
    assert human["empathy"]["explorations"] == 1.0  # one of the two human replies asks
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| metric | single_prompt | human |" in report and "| label parroting | 1 | 0 |" in report
    assert "'Get over it.' (get over it)" in report
