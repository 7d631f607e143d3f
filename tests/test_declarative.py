"""Short answers become claims (issue 44 item 1): a question and its terse answer read as one
self-contained declarative sentence, or None where no grammatical sentence can be built."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundwatch.judges.claims.declarative import declarative
from groundwatch.judges.text.words import content_words

CASES = [
    # wh-subject: the answer takes the wh-phrase's place
    ("Who designed the Sydney Opera House?", "Frank Gehry", "Frank Gehry designed the Sydney Opera House."),
    ("Who wrote Pride and Prejudice?", "Jane Austen", "Jane Austen wrote Pride and Prejudice."),
    ("Which plan lets four devices stream at once?", "Standard", "Standard lets four devices stream at once."),
    ("Which plan lets four devices stream at once?", "The Standard plan", "The Standard plan lets four devices stream at once."),
    ("Which plan can only be paid annually?", "Business", "Business can only be paid annually."),
    ("Which vaccine protects against shingles?", "Shingrix", "Shingrix protects against shingles."),
    ("Which team has won the most titles?", "Real Madrid", "Real Madrid has won the most titles."),
    ("Who approves expense claims?", "Your line manager", "Your line manager approves expense claims."),
    ("How many countries border France?", "Eight", "Eight countries border France."),
    ("What causes migraines?", "Dehydration and stress", "Dehydration and stress cause migraines."),
    ("What is included in the price?", "Breakfast and parking", "Breakfast and parking are included in the price."),
    ("Which is cheaper?", "The Basic plan", "The Basic plan is cheaper."),
    # "be" with a noun phrase: the noun phrase is the subject, the answer its complement
    ("Who is the HR contact for the Manchester office?", "Priya Shah", "Priya Shah is the HR contact for the Manchester office."),
    ("Who is Frank Gehry?", "An architect", "Frank Gehry is an architect."),
    ("What's the joining fee at the gym?", "£20", "The joining fee at the gym is £20."),
    ("How much is the Pro plan if I pay annually?", "$12 per user per month", "The Pro plan is $12 per user per month if I pay annually."),
    ("How long is the minimum term for Fibre 500?", "18 months", "The minimum term for Fibre 500 is 18 months."),
    ("How long is the probation period?", "Six months", "The probation period is six months."),
    ("What is the maximum daily dose of paracetamol for adults?", "4 grams", "The maximum daily dose of paracetamol for adults is 4 grams."),
    ("What is the minimum age to rent a car?", "21", "The minimum age to rent a car is 21."),
    ("What is the top speed of the Model 3?", "225 km/h", "The top speed of the Model 3 is 225 km/h."),
    ("How old is the Eiffel Tower?", "135 years", "The Eiffel Tower is 135 years old."),
    ("How far is the airport from the city centre?", "20 km", "The airport is 20 km from the city centre."),
    ("How many players are there in a rugby union team?", "15", "There are 15 players in a rugby union team."),
    ("What is the museum called?", "The Tate Modern", "The museum is called the Tate Modern."),
    # do-support and modals: the verb takes the auxiliary's tense and person
    ("How much does the Basic plan cost?", "$8", "The Basic plan costs $8."),
    ("What does the Premium plan cost per month?", "£30", "The Premium plan costs £30 per month."),
    ("How many days of annual leave do UK staff get?", "25 days", "UK staff get 25 days of annual leave."),
    ("How many days of annual leave do UK staff get?", "25", "UK staff get 25 days of annual leave."),
    ("How many sick days do employees get per year?", "10", "Employees get 10 sick days per year."),
    ("How much RAM does the laptop have?", "16 GB", "The laptop has 16 GB of RAM."),
    ("How many goals did Messi score in 2012?", "91", "Messi scored 91 goals in 2012."),
    ("How many times has Brazil won the World Cup?", "Five", "Brazil has won the World Cup five times."),
    ("Who did Mozart marry?", "Constanze Weber", "Mozart married Constanze Weber."),
    ("Who do I report to?", "My line manager", "I report to my line manager."),
    ("Who should I contact about payroll?", "Priya Shah", "I should contact Priya Shah about payroll."),
    ("What do I need to bring?", "Photo ID", "I need to bring Photo ID."),
    ("How much does it cost to park overnight?", "£10", "It costs £10 to park overnight."),
    ("How long does it take to get a refund?", "5 working days", "It takes 5 working days to get a refund."),
    ("How long does the battery last?", "About 10 hours", "The battery lasts about 10 hours."),
    ("How often does the N12 night bus run?", "Every 20 minutes", "The N12 night bus runs every 20 minutes."),
    ("How often should I take ibuprofen?", "Every 6 to 8 hours", "I should take ibuprofen every 6 to 8 hours."),
    ("Which platform does the Brighton train leave from?", "4", "The Brighton train leaves from platform 4."),
    ("Which club does Haaland play for?", "Manchester City", "Haaland plays for Manchester City."),
    # adverbials of time and place take their preposition
    ("When does the pool open on weekdays?", "6 am", "The pool opens on weekdays at 6 am."),
    ("What time does the last train leave London?", "11:45 pm", "The last train leaves London at 11:45 pm."),
    ("At what time does the museum open?", "9:30 am", "The museum opens at 9:30 am."),
    ("When was Acme founded?", "1998", "Acme was founded in 1998."),
    ("When was Acme founded?", "on 3 May 1998", "Acme was founded on 3 May 1998."),
    ("When was Acme founded?", "3 May 1998", "Acme was founded on 3 May 1998."),
    ("In which year did the Berlin Wall fall?", "1989", "The Berlin Wall fell in 1989."),
    ("When did the Roman Empire fall?", "476 AD", "The Roman Empire fell in 476 AD."),
    ("When does the sale end?", "Sunday", "The sale ends on Sunday."),
    ("When are salaries paid?", "On the last working day of the month", "Salaries are paid on the last working day of the month."),
    ("When is the pool open on Sundays?", "From 9 am to 5 pm", "The pool is open on Sundays from 9 am to 5 pm."),
    ("Where was Mozart born?", "Salzburg", "Mozart was born in Salzburg."),
    ("Where is the gym?", "Level 2", "The gym is on Level 2."),
    ("Where do I send my timesheet?", "payroll@example.com", "I send my timesheet to payroll@example.com."),
    ("Where are the toilets?", "Next to the lifts", "The toilets are next to the lifts."),
    ("Why was the flight cancelled?", "Bad weather", "The flight was cancelled because of bad weather."),
    ("How do I apply for parental leave?", "Through the HR portal", "I apply for parental leave through the HR portal."),
    # yes/no questions: the question's statement, negated for "No"
    ("Are Saver fares refundable?", "Yes, fully refundable.", "Saver fares are fully refundable."),
    ("Are Saver fares refundable?", "No", "Saver fares are not refundable."),
    ("Are Saver fares refundable?", "No, not refundable.", "Saver fares are not refundable."),
    ("Can a 10-year-old take loperamide?", "Yes, from age 10", "A 10-year-old can take loperamide, from age 10."),
    ("Can a 10-year-old take loperamide?", "No, not under 12.", "A 10-year-old cannot take loperamide, not under 12."),
    ("Does the Airport Express run on Saturdays?", "Yes, every 30 minutes", "The Airport Express runs on Saturdays, every 30 minutes."),
    ("Is Westbrook library open on Sundays?", "No", "Westbrook library is not open on Sundays."),
    ("Is the 7.5-metre cable standard?", "Yes", "The 7.5-metre cable is standard."),
    ("Is ibuprofen safe during pregnancy?", "No", "Ibuprofen is not safe during pregnancy."),
    ("Is the course suitable for beginners?", "Yes, completely suitable", "The course is completely suitable for beginners."),
    ("Does the X200 support wireless charging?", "No", "The X200 does not support wireless charging."),
    ("Did the team win the final?", "Yes", "The team won the final."),
    ("Has the flight landed?", "No", "The flight has not landed."),
    ("Will the library be open on Easter Monday?", "No", "The library will not be open on Easter Monday."),
    ("Are there lockers at the gym?", "No", "There are no lockers at the gym."),
    ("Is there parking at the venue?", "Yes", "There is parking at the venue."),
    ("Was the Eiffel Tower built in 1889?", "Yes", "The Eiffel Tower was built in 1889."),
    ("Do I need a visa for Japan?", "No, not for stays under 90 days", "I do not need a visa for Japan, not for stays under 90 days."),
    ("Does the plan cover travel insurance?", "Yes", "The plan covers travel insurance."),
    ("Can children under 5 travel free?", "Yes", "Children under 5 can travel free."),
    ("Has the parcel been delivered?", "Yes", "The parcel has been delivered."),
    ("Is the pool heated?", "Correct.", "The pool is heated."),
    ("Is loperamide safe for children?", "No, not under 12", "Loperamide is not safe for children, not under 12."),
    # more objects and subjects
    ("What did the report find?", "Rising costs", "The report found rising costs."),
    ("How much do contractors get paid per day?", "£450", "Contractors get paid £450 per day."),
    ("Who are the main sponsors?", "Nike and Adidas", "Nike and Adidas are the main sponsors."),
    ("How many people can the venue hold?", "200", "The venue can hold 200 people."),
    ("How much luggage can I bring?", "23 kg", "I can bring 23 kg of luggage."),
]  # fmt: skip

NONE_CASES = [
    # a full-sentence answer is judged as written
    ("Is the pool open for children?", "No, it isn't for children under six."),
    ("Is the 7.5-metre cable standard?", "Yes, the 7.5-metre cable is standard."),
    ("Is VAT included in the price?", "No, VAT is added at checkout."),
    ("Do I need a visa to visit Canada?", "No, but you need an eTA."),
    ("Who designed the building?", "It was designed by Zaha Hadid."),
    ("What is the fee?", "The fee is £20 per month"),
    # questions that are not one clause, or not questions
    ("What about the weekend?", "Closed"),
    ("Tell me when the pool opens", "6 am"),
    ("When does the pool open and how much is it?", "6 am"),
    ("If I cancel, do I get a refund?", "Yes"),
    ("Do you know when the pool opens?", "Yes"),
    ("Can you tell me the fee?", "£5"),
    ("Is the pool open on Saturday or Sunday?", "Yes"),
    ("Isn't the pool open on Sundays?", "No"),
    ("Whose bag is this?", "Mine"),
    # answers that do not fit the question's gap
    ("When does the pool open?", "Yes"),
    ("Are Saver fares refundable?", "Only within 24 hours"),
    ("How do I reset my password?", "Go to Settings"),
    ("When does the pool open?", "Ask at reception"),
    ("What is the fee?", "£20. Members pay less."),
    ("", "Frank Gehry"),
    ("Who designed the Sydney Opera House?", ""),
]


@pytest.mark.parametrize(("question", "answer", "expected"), CASES)
def test_short_answer_becomes_one_declarative_sentence(
    question: str, answer: str, expected: str
) -> None:
    assert declarative(question, answer) == expected


@pytest.mark.parametrize(("question", "answer"), NONE_CASES)
def test_no_sentence_where_none_can_be_built(question: str, answer: str) -> None:
    assert declarative(question, answer) is None


_POLAR = re.compile(r"^(yes|yeah|yep|correct|true|no|nope|false)\b[\s,.]*", re.I)


def _well_formed(out: str, answer: str) -> None:
    """One sentence: capitalised, one final period, no double spaces, every content word of
    the answer kept (for "Yes"/"No", the words after it: "No" is said as "not")."""
    assert out[0].isupper() or out[0].isdigit() or not out[0].isalpha()
    assert out.endswith(".")
    assert not out.endswith("..")
    assert "  " not in out
    assert set(content_words(_POLAR.sub("", answer))) <= set(content_words(out))


@pytest.mark.parametrize(("question", "answer", "expected"), CASES)
def test_every_sentence_keeps_the_answer_and_ends_with_a_period(
    question: str, answer: str, expected: str
) -> None:
    out = declarative(question, answer)
    assert out is not None
    _well_formed(out, answer)
    if _POLAR.match(answer) and answer.lower().startswith("no"):
        assert re.search(r"\b(not|cannot|no)\b", out)


_QUESTIONS = [
    "Who designed the Sydney Opera House?",
    "Which plan includes priority support?",
    "What is the joining fee at the gym?",
    "How much does the Basic plan cost?",
    "How many days of annual leave do UK staff get?",
    "How long does the battery last?",
    "When does the pool open on weekdays?",
    "When was the company founded?",
    "Where was Mozart born?",
    "Who should I contact about payroll?",
    "What does the Premium plan include?",
    "Why was the flight cancelled?",
    "Is the pool open on Sundays?",
    "Does the Airport Express run on Saturdays?",
    "Can a 10-year-old take loperamide?",
]
_NAME = st.sampled_from(["Priya", "Frank", "Salzburg", "Acme", "Gehry", "Manchester", "Fibre"])
_NOUN = st.sampled_from(["days", "hours", "minutes", "users", "plan", "office", "bags", "weeks"])
_ANSWERS = st.one_of(
    st.lists(_NAME, min_size=1, max_size=3).map(" ".join),
    st.builds(lambda n, u: f"{n} {u}", st.integers(1, 999), _NOUN),
    st.builds(lambda c, n: f"{c}{n}", st.sampled_from("£$€"), st.integers(1, 9999)),
    st.builds(lambda h, m: f"{h} {m}", st.integers(1, 12), st.sampled_from(["am", "pm"])),
    st.builds(lambda d, m: f"{d} {m} 2024", st.integers(1, 28), st.sampled_from(["May", "June"])),
    st.builds(lambda p, n: f"{p} {n}", st.sampled_from(["Every", "About", "Up to", "From"]), _NOUN),
    st.builds(lambda y, r: f"{y}, {r}", st.sampled_from(["Yes", "No"]), _NAME),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_QUESTIONS), _ANSWERS)
def test_any_sentence_built_keeps_every_content_word_of_the_answer(
    question: str, answer: str
) -> None:
    out = declarative(question, answer)
    if out is not None:
        _well_formed(out, answer)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.text(max_size=30))
def test_never_raises_on_any_text(question: str, answer: str) -> None:
    out = declarative(question, answer)
    assert out is None or out.endswith(".")
