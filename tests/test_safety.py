"""The crisis screen: high recall on disclosures, quiet on everyday sadness."""

from __future__ import annotations

import pytest

from empathygraph.schemas import RiskCategory
from empathygraph.tools.safety import screen


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("I want to kill myself", RiskCategory.SELF_HARM),
        ("lately I think about ending my life", RiskCategory.SELF_HARM),
        ("everyone would be better off without me", RiskCategory.SELF_HARM),
        ("I don't want to wake up tomorrow", RiskCategory.SELF_HARM),
        ("I started cutting myself again", RiskCategory.SELF_HARM),
        ("I have suicidal thoughts", RiskCategory.SELF_HARM),
        ("I’ve been planning to end it all", RiskCategory.SELF_HARM),
        ("my boyfriend hits me when he is drunk", RiskCategory.ABUSE),
        ("I'm afraid to go home because of my dad", RiskCategory.ABUSE),
        ("I have crushing chest pain and my arm is numb", RiskCategory.MEDICAL_EMERGENCY),
        ("I took too many pills an hour ago", RiskCategory.MEDICAL_EMERGENCY),
        ("I can't breathe properly", RiskCategory.MEDICAL_EMERGENCY),
        # a denial, a death or a hyperbole elsewhere in the message leaves the phrase
        ("I'm not suicidal but I want to die.", RiskCategory.SELF_HARM),
        ("I have no reason to live", RiskCategory.SELF_HARM),
        ("When I said no he shoved me into the radiator.", RiskCategory.ABUSE),
        ("I want to go to sleep and not wake up", RiskCategory.SELF_HARM),
        ("I want to die from the shame of it all", RiskCategory.SELF_HARM),
        ("My mum died by suicide and now I think about doing the same", RiskCategory.SELF_HARM),
        ("I took an overdose an hour ago", RiskCategory.MEDICAL_EMERGENCY),
        ("I almost died of an overdose last night", RiskCategory.MEDICAL_EMERGENCY),
        ("Three days since I took all my pills and I feel awful", RiskCategory.MEDICAL_EMERGENCY),
        ("Ten years this Thursday since I tried to end it all, and tonight I want to die again", RiskCategory.SELF_HARM),
        ("my dad is having a heart attack, his lips are grey", RiskCategory.MEDICAL_EMERGENCY),
        ("Is this a heart attack? My jaw aches and I feel sick.", RiskCategory.MEDICAL_EMERGENCY),
        ("He's just had a heart attack in the car park", RiskCategory.MEDICAL_EMERGENCY),
    ],
)
def test_disclosures_are_caught(text, category):
    result = screen(text)
    assert result.category is category
    assert result.matched and result.score >= 0.6


@pytest.mark.parametrize(
    "text",
    [
        "I failed my exam and I feel terrible",
        "My dog died yesterday",
        "This traffic is killing me",
        "I'm dying to see the new movie",
        "my boss is driving me crazy",
        # a phrase denied, plainly hyperbole, in a death reported or in an anniversary of recovery
        "Another winter and the seasonal depression is back. Not suicidal, just flat and tired.",
        "I have felt low for a fortnight. No thoughts of self-harm.",
        "My brother drinks heavily since the divorce. He has no history of self-harm.",
        "reading my drunk texts back this morning i want to die of embarrassment",
        "I just want to go to sleep and not wake up for about a week. Night feeds, day job, repeat.",
        "A student at my uni died by suicide last month and they've put a memorial up in the library.",
        "Our son would've been forty today. We lost him to an overdose at twenty-four.",
        "Ten years this Thursday since I tried to end it all. Taking my wife out for fish and chips to mark it.",
        "Eighteen months since my last binge and purge. Had pudding at my sister's without thinking twice.",
        "The toddler next door climbed onto the shed roof and I nearly had a heart attack.",
        "Grandad had a heart attack at sixty and still walks five miles a day at eighty.",
    ],
)
def test_everyday_distress_is_not_flagged(text):
    assert screen(text).category is RiskCategory.NONE


def test_self_harm_outranks_other_categories_and_all_phrases_are_kept():
    result = screen("He hits me and I want to die")
    assert result.category is RiskCategory.SELF_HARM
    assert len(result.matched) == 2
