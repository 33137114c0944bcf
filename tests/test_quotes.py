"""Cause quotes: a copy with small slips maps back to the user's exact words."""

from empathygraph.agents.quotes import find_quote, nearest_sentence


def test_exact_and_loose_copies_are_found_as_original_text():
    source = "I failed my driving test. Again! My dad will be so disappointed."
    assert find_quote("failed my driving test", source) == "failed my driving test"
    assert find_quote("My Dad will be SO disappointed", source) == "My dad will be so disappointed"


def test_paraphrase_is_not_a_quote():
    assert find_quote("parental disapproval", "My dad will be so disappointed.") is None


def test_nearest_sentence_shares_most_words():
    source = "It rained all day. My best friend moved to Canada and I miss her."
    assert nearest_sentence("friend moving away", source) == "My best friend moved to Canada and I miss her."
