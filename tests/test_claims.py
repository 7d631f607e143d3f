"""Claim decomposition: sentence splitting, cleaning, conjunctions, pronouns, terse answers."""

from __future__ import annotations

import pytest

from groundwatch.judges.claims.extract import (
    content_words,
    extract_claims,
    is_terse,
    split_sentences,
)
from groundwatch.judges.refusal import is_refusal_sentence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dr. Smith joined in 2019. The fee is $3.50 per month.",
            ["Dr. Smith joined in 2019.", "The fee is $3.50 per month."],
        ),
        (
            "The firm moved to the U.S. in 2001, e.g. to Boston. It grew fast.",
            ["The firm moved to the U.S. in 2001, e.g. to Boston.", "It grew fast."],
        ),
        (
            "Version 2.5.1 is out [1]. Upgrade now [2, 3].",
            ["Version 2.5.1 is out.", "Upgrade now."],
        ),
        ("- first item\n- second item\n1. third item", ["first item", "second item", "third item"]),
        (
            "J. R. R. Tolkien wrote it. It sold well!",
            ["J. R. R. Tolkien wrote it.", "It sold well!"],
        ),
        (
            "Vocals are by Aesop Rock.Jaime Meline is El-P.",
            ["Vocals are by Aesop Rock.", "Jaime Meline is El-P."],
        ),
        ("", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_meta_greetings_and_hedges_are_dropped() -> None:
    claims = extract_claims(
        "What payment methods do you accept?",
        "Hi there! Based on the documents, we accept Visa and Mastercard. I hope this helps!",
    )
    assert claims == ["We accept Visa and Mastercard."]
    hedged = extract_claims(
        "How often?", "I think adults can take 1 g every 6 hours. Please consult a pharmacist."
    )
    assert hedged == ["Adults can take 1 g every 6 hours."]


def test_conjunctions_split_into_atomic_claims_with_subject() -> None:
    claims = extract_claims(
        "What does the Pro plan cost?", "The Pro plan costs $20 per month and includes SSO."
    )
    assert claims == ["The Pro plan costs $20 per month.", "The Pro plan includes SSO."]
    two = extract_claims("x?", "The basic plan costs $10, but the pro plan costs $20.")
    assert two == ["The basic plan costs $10.", "The pro plan costs $20."]


def test_shared_subject_is_not_split() -> None:
    claims = extract_claims("x?", "Kniphofia and Baptisia are both perennial plants.")
    assert claims == ["Kniphofia and Baptisia are both perennial plants."]


def test_pronouns_resolved_to_subject() -> None:
    claims = extract_claims(
        "Who built the Colosseum?",
        "The Colosseum was begun by Vespasian. It was completed in AD 80 under Titus.",
    )
    assert claims[1] == "The Colosseum was completed in AD 80 under Titus."
    person = extract_claims(
        "What job does Richard Spencer have?", "He is president of the National Policy Institute."
    )
    assert person == ["Richard Spencer is president of the National Policy Institute."]
    # the question's subject ends before a subordinate clause (Session 52)
    aged = extract_claims("How old was Hypatia when she died?", "She was 45 when she died.")
    assert aged == ["Hypatia was 45 when she died."]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The new mattress is made in Leeds. It's delivered within ten days.",
            "The new mattress is delivered within ten days.",
        ),
        (
            "The rooftop panels were installed in May. They're cleaned twice a year.",
            "The rooftop panels are cleaned twice a year.",
        ),
        (
            "The gym pass starts on Monday. It'll renew every month.",
            "The gym pass will renew every month.",
        ),
        (
            "The rooftop panels were installed in May. They've been inspected since.",
            "The rooftop panels have been inspected since.",
        ),
        (
            "The old printer was removed. It's been replaced by a laser model.",
            "The old printer has been replaced by a laser model.",
        ),
        (
            "The Harbour Scholarship opens in May. It's worth £3,000 a year.",
            "The Harbour Scholarship is worth £3,000 a year.",
        ),
    ],
)
def test_contracted_pronoun_is_resolved_whole(answer: str, expected: str) -> None:
    """ "It's" is "it is": the antecedent takes the pronoun and the verb is written out, never
    "The mattress's delivered"."""
    assert extract_claims("q?", answer)[1] == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a "no" to the question is not a negation of what follows it
        (
            "Unfortunately not – the US isn't on the approved list.",
            ["The US isn't on the approved list."],
        ),
        ("I'm afraid not: the hotel accepts dogs only.", ["The hotel accepts dogs only."]),
        ("Sadly not. Parking costs £5 a day.", ["Parking costs £5 a day."]),
        ("Unfortunately, no. Parking costs £5 a day.", ["Parking costs £5 a day."]),
        # a discourse adverb is no part of the claim (nor a name the passages must have)
        (
            "Alternatively, the Premier Account has no monthly fee.",
            ["The Premier Account has no monthly fee."],
        ),
        ("Unfortunately, the hotel accepts dogs only.", ["The hotel accepts dogs only."]),
        # ... but "Otherwise" is a condition, and a word that only looks like one stays
        ("Otherwise, a fee of £10 applies.", ["Otherwise, a fee of £10 applies."]),
        ("Still images are stored for 30 days.", ["Still images are stored for 30 days."]),
        (
            "Unfortunately not all plans include dental cover.",
            ["Unfortunately not all plans include dental cover."],
        ),
    ],
)
def test_answer_to_the_question_and_discourse_adverbs_are_not_claimed(
    answer: str, expected: list[str]
) -> None:
    assert extract_claims("Can I?", answer) == expected


@pytest.mark.parametrize(
    ("question", "answer", "kept"),
    [
        # "You" / "I'm UK-based" are not what "it" or "his" refer to.
        ("Can I split my leave?", "You have to take it within a year. It can be split.", "It can"),
        (
            "Can I add my husband to my cover? I'm UK-based.",
            "Partners can be added to the plan. His cover would start next month.",
            "His cover",
        ),
        # A bare determiner is no antecedent.
        (
            "Is this a known problem?",
            "Yes, the hiss in Transparency mode is known. It's fixed.",
            "It",
        ),
    ],
)
def test_no_pronoun_antecedent_without_a_noun(question: str, answer: str, kept: str) -> None:
    claims = extract_claims(question, answer)
    assert claims[-1].startswith(kept), claims


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "When does the discount apply?",
            "From renewal",
            "When does the discount apply? From renewal.",
        ),
        ("Is the annual plan prorated?", "No.", "Is the annual plan prorated? No."),
        ("Is the annual plan prorated?", "Yes, it is.", "Is the annual plan prorated? Yes."),
        ("How many seats?", "14", "How many seats? 14."),
        ("Which show connects them?", "Doctor Who", "Which show connects them? Doctor Who."),
    ],
)
def test_terse_answers_read_with_question(question: str, answer: str, expected: str) -> None:
    assert extract_claims(question, answer) == [expected]


def test_is_terse() -> None:
    assert is_terse("Jaime Meline")
    assert is_terse("yes")
    assert not is_terse("Pooja Bhatt directed the film.")


def test_refusal_sentences_are_not_claims() -> None:
    assert extract_claims("Fee in Canada?", "I'm sorry, I could not find that.") == []
    partial = extract_claims(
        "Fee in Canada?", "The documents do not mention the fee for Canada, but the US fee is $12."
    )
    assert partial == ["The US fee is $12."]


def test_empty_answer_has_no_claims() -> None:
    assert extract_claims("q?", "") == []
    assert extract_claims("q?", "   ") == []


def test_content_words_stem_and_split_hyphens() -> None:
    assert content_words("refundable")[0] in content_words("Annual plans are non-refundable.")
    assert content_words("Q3 revenue") == ("third", "quarter", *content_words("revenue"))


@pytest.mark.parametrize(
    "sentence",
    [
        "The handbook does not mention a home office stipend.",
        "There's nothing about that in the knowledge base.",
        "The context provided doesn't say when the office opens.",
        "I couldn't find any information about gym memberships in the provided documents.",
    ],
)
def test_refusal_phrases(sentence: str) -> None:
    assert is_refusal_sentence(sentence)
    assert extract_claims("q?", sentence) == []


@pytest.mark.parametrize(
    "sentence",
    ["The policy does not cover flood damage.", "The plan does not include SSO."],
)
def test_negative_facts_are_not_refusals(sentence: str) -> None:
    assert not is_refusal_sentence(sentence)
    assert extract_claims("q?", sentence) == [sentence]


def test_stem_undoubles_and_drops_silent_e() -> None:
    assert content_words("permitted") == content_words("permit")
    assert content_words("included") == content_words("includes") == content_words("include")


def test_general_synonyms_share_a_stem() -> None:
    assert content_words("allowed") == content_words("permitted")
    assert content_words("price") == content_words("costs")


def test_split_second_verb_phrase_and_keep_number_lists() -> None:
    assert extract_claims(
        "What does Plus include?",
        "The Plus tier gives you 2 TB of storage and keeps hourly snapshots for 90 days.",
    ) == [
        "The Plus tier gives you 2 TB of storage.",
        "The Plus tier keeps hourly snapshots for 90 days.",
    ]
    [claim] = extract_claims("When?", "Articles 4 and 7 apply to public bodies from 1 July 2025.")
    assert "Articles 4 and 7" in claim


def test_split_clause_with_participle_verb() -> None:
    claims = extract_claims(
        "How did inflation change?",
        "Inflation fell to 2.4% in March, and core inflation also eased, to 2.9%.",
    )
    assert len(claims) == 2


def test_weak_conjunctions_split_only_clauses() -> None:
    # "with" + a clause of its own: two facts.
    claims = extract_claims(
        "How long is a match?",
        "A normal match has two 7-minute halves, with finals played as two halves of 10 minutes.",
    )
    assert len(claims) == 2
    # "with" + a noun phrase ("a reduced rate"): one fact, kept whole with its qualifier.
    claims = extract_claims(
        "What was the tax rate?",
        "In 2022 the rate was 25%, with a reduced rate of 19% for small profits.",
    )
    assert len(claims) == 1


def test_hedged_lead_in_is_dropped() -> None:
    claims = extract_claims(
        "Did calls rise?", "As far as I can tell, the workers completed 13% more calls."
    )
    assert claims == ["The workers completed 13% more calls."]


def test_a_terse_claim_is_judged_as_one_declarative_sentence() -> None:
    from groundwatch.judges.claims.extract import judged_text

    [claim] = extract_claims("When does the ferry leave on Sundays?", "9:40")
    assert judged_text(claim) == "The ferry leaves on Sundays at 9:40."
    sentence = "The ferry leaves at 9:40 on Sundays."
    assert judged_text(sentence) == sentence
