"""Cause quotes: a copy with small slips maps back to the user's exact words."""

from empathygraph.agents.quotes import clauses, find_quote, nearest_sentence


def test_exact_and_loose_copies_are_found_as_original_text():
    source = "I failed my driving test. Again! My dad will be so disappointed."
    assert find_quote("failed my driving test", source) == "failed my driving test"
    assert find_quote("My Dad will be SO disappointed", source) == "My dad will be so disappointed"


def test_paraphrase_is_not_a_quote():
    assert find_quote("parental disapproval", "My dad will be so disappointed.") is None


def test_nearest_sentence_shares_most_words():
    source = "It rained all day. My best friend moved to Canada and I miss her."
    assert nearest_sentence("friend moving away", source) == "My best friend moved to Canada and I miss her."


def test_clauses_are_exact_pieces_of_the_message():
    text = "Today, my car broke down on the highway. I can't afford a new one because I lost my job and rent is due!"
    pieces = clauses(text)
    assert pieces == ("Today", "my car broke down on the highway", "I can't afford a new one", "because I lost my job",
                      "and rent is due")
    assert all(piece in text for piece in pieces)


def test_long_clause_is_cut_into_bounded_pieces():
    text = " ".join(f"w{i}" for i in range(30))
    pieces = clauses(text, max_words=14)
    assert [len(p.split()) for p in pieces] == [14, 14, 2] and " ".join(pieces) == text


def test_clause_choice_constrains_the_quote_and_never_reasks():
    from tests.conftest import make_empathizer, scripted, test_config

    model = scripted(LabelledCauseDraft={"scenario": "job loss", "emotion": "sad", "quote": "because I lost my job",
                                         "intensity": "high"})
    config = test_config(agents={"cause_quote": "clause"})
    result = make_empathizer(model, config).respond("I can't sleep because I lost my job.")
    call = model.calls_for("LabelledCauseDraft")
    assert len(call) == 1 and result.emotion.causes == ["because I lost my job"]
    schema = call[0].options["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["quote"]["enum"] == ["I can't sleep", "because I lost my job"]
    assert "the part of their message that says why" in call[0].prompt


def test_a_misquote_is_asked_again_with_the_quote_limited_to_the_message_s_clauses():
    from tests.conftest import make_empathizer, scripted

    misquote = {"scenario": "job loss", "emotion": "sad", "quote": "I'm so angry about it", "intensity": "high"}
    model = scripted(LabelledCauseDraft=[misquote, {**misquote, "quote": "because I lost my job"}])
    result = make_empathizer(model).respond("I can't sleep because I lost my job.")
    first, again = model.calls_for("LabelledCauseDraft")
    assert "enum" not in first.options["response_format"]["json_schema"]["schema"]["properties"]["quote"]
    schema = again.options["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["quote"]["enum"] == ["I can't sleep", "because I lost my job"]
    assert result.emotion.causes == ["because I lost my job"]


def test_clauses_leave_out_what_a_grammar_choice_cannot_hold_and_still_quote_the_words():
    text = 'My daughter said her first sentence. It was "no, daddy, mine." Then she typed C:\\games'
    pieces = clauses(text)
    assert pieces == ("My daughter said her first sentence", "It was no", "daddy", "mine", "Then she typed C: games")
    assert not any(mark in piece for piece in pieces for mark in '"\\')
    assert all(find_quote(piece, text) is not None for piece in pieces)
