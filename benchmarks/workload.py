"""A reproducible synthetic RAG workload for performance benchmarks.

Usage::

    from benchmarks.workload import make_workload
    wl = make_workload(n_traces=500, seed=7)      # same seed -> byte-identical traces
    wl.traces[0]                                  # a groundwatch RagTrace
    wl.labels[0]                                  # ["supported", "contradicted", ...] per claim

    .venv/bin/python -m benchmarks.workload --traces 3   # print a few traces as JSON lines

A knowledge base of ``pool_size`` (2,000) distinct chunks of about 120 words is generated from
templates over six domains (company reports, towns, products, travel policies, research projects,
medicines) with many entities, numbers and dates. Each trace retrieves about 5 chunks drawn with
Zipf-like popularity (popular chunks recur across traces, as in production), asks a question
about one fact of one of them, and answers with 1-4 sentences; each answer sentence is a claim
that is *supported* (a paraphrase of a stated fact), *contradicted* (the same fact with a wrong
number) or *unsupported* (a plausible fact that no passage states). A few answers are refusals
and some traces carry citations.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
from dataclasses import dataclass, field

from groundwatch.contract.trace import Citation, ContextPassage, RagTrace

__all__ = ["Chunk", "Fact", "Workload", "make_knowledge_base", "make_workload"]

# --------------------------------------------------------------------------- vocabulary
_PREFIXES = [
    "Acme",
    "Alder",
    "Apex",
    "Arbor",
    "Aster",
    "Aurora",
    "Basalt",
    "Beacon",
    "Birch",
    "Blue",
    "Boreal",
    "Brightwater",
    "Cascade",
    "Cedar",
    "Cobalt",
    "Copper",
    "Crest",
    "Delta",
    "Ember",
    "Falcon",
    "Fjord",
    "Garnet",
    "Granite",
    "Harbor",
    "Helix",
    "Heron",
    "Indigo",
    "Iron",
    "Juniper",
    "Kestrel",
    "Lumen",
    "Maple",
    "Meridian",
    "Nimbus",
    "Northwind",
    "Oak",
    "Onyx",
    "Orion",
    "Pine",
    "Quartz",
    "Raven",
    "Redwood",
    "Sable",
    "Sierra",
    "Silver",
    "Solstice",
    "Summit",
    "Tidal",
    "Vantage",
    "Willow",
    "Zenith",
]
_SUFFIXES = [
    "Analytics",
    "Biotech",
    "Capital",
    "Dynamics",
    "Energy",
    "Foods",
    "Freight",
    "Holdings",
    "Industries",
    "Labs",
    "Logistics",
    "Materials",
    "Media",
    "Networks",
    "Pharma",
    "Robotics",
    "Systems",
    "Telecom",
    "Textiles",
    "Works",
]
_FIRST = [
    "Ana",
    "Bruno",
    "Chen",
    "Dara",
    "Elif",
    "Farid",
    "Greta",
    "Hana",
    "Ivan",
    "Jonas",
    "Kemal",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Yara",
    "Zofia",
    "Amara",
    "Bjorn",
    "Celine",
    "Dmitri",
    "Esther",
]
_LAST = [
    "Almeida",
    "Becker",
    "Castillo",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Gallo",
    "Haddad",
    "Ibsen",
    "Jansen",
    "Kowalski",
    "Lindqvist",
    "Moreau",
    "Novak",
    "Okafor",
    "Petrov",
    "Quint",
    "Rossi",
    "Sato",
    "Takahashi",
    "Urban",
    "Varga",
    "Weber",
    "Xu",
    "Yilmaz",
    "Zhang",
]
_CITIES = [
    "Lisbon",
    "Porto",
    "Lyon",
    "Rotterdam",
    "Gdansk",
    "Tallinn",
    "Bergen",
    "Turku",
    "Graz",
    "Brno",
    "Cluj",
    "Split",
    "Seville",
    "Bilbao",
    "Leeds",
    "Cork",
    "Aarhus",
    "Malmo",
    "Basel",
    "Bologna",
    "Toulouse",
    "Leipzig",
    "Ghent",
    "Krakow",
    "Riga",
    "Vilnius",
    "Plovdiv",
    "Valencia",
    "Utrecht",
    "Dresden",
]
_COUNTRIES = [
    "Portugal",
    "France",
    "Norway",
    "Finland",
    "Austria",
    "Czechia",
    "Romania",
    "Croatia",
    "Spain",
    "Ireland",
    "Denmark",
    "Sweden",
    "Switzerland",
    "Italy",
    "Germany",
    "Belgium",
    "Poland",
    "Latvia",
    "Lithuania",
    "Bulgaria",
    "Estonia",
    "Greece",
]
_REGIONS = [
    "Northern Europe",
    "the Iberian peninsula",
    "Central Europe",
    "the Baltics",
    "the Balkans",
    "Scandinavia",
    "the Benelux countries",
    "the Alpine region",
]
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_RIVERS = [
    "Vell",
    "Ardin",
    "Selva",
    "Morrow",
    "Tana",
    "Istra",
    "Lune",
    "Oder",
    "Kessel",
    "Varna",
    "Dune",
    "Alva",
]
_TOWN_A = [
    "Ash",
    "Bel",
    "Cor",
    "Dun",
    "Elm",
    "Fen",
    "Glen",
    "Hol",
    "Kil",
    "Lang",
    "Mar",
    "Nor",
    "Ost",
    "Pen",
    "Rav",
    "Sal",
    "Thorn",
    "Wick",
]
_TOWN_B = [
    "bury",
    "ford",
    "haven",
    "mouth",
    "stead",
    "ton",
    "wick",
    "dale",
    "field",
    "gate",
    "holm",
    "minster",
]
_PRODUCT_LINES = [
    "Router",
    "Camera",
    "Tablet",
    "Thermostat",
    "Scanner",
    "Speaker",
    "Drone",
    "Charger",
    "Headset",
    "Monitor",
]
_FEATURES = [
    "WPA3 encryption",
    "mesh networking",
    "USB-C charging",
    "voice control",
    "offline maps",
    "dual-band Wi-Fi",
    "night mode",
    "remote diagnostics",
]
_CONDITIONS = [
    "type 2 diabetes",
    "chronic migraine",
    "mild hypertension",
    "plaque psoriasis",
    "seasonal asthma",
    "rheumatoid arthritis",
    "insomnia",
    "atrial fibrillation",
]
_SIDE_EFFECTS = [
    "nausea",
    "headache",
    "dizziness",
    "fatigue",
    "dry mouth",
    "insomnia",
    "mild rash",
    "muscle cramps",
]
_DRUG_A = [
    "Vel",
    "Tor",
    "Mira",
    "Zan",
    "Quel",
    "Bri",
    "Oxa",
    "Lumi",
    "Dara",
    "Feno",
    "Cali",
    "Neva",
]
_DRUG_B = ["zomab", "xitine", "prazole", "tinib", "vastin", "lukast", "dronate", "mycin"]
_THINGS = [
    "emissions",
    "hospital admissions",
    "water use",
    "travel time",
    "energy demand",
    "food waste",
    "school absences",
    "traffic accidents",
]
_FIELDS = [
    "coastal erosion",
    "urban heat",
    "soil carbon",
    "river pollution",
    "battery ageing",
    "crop yields",
    "air quality",
    "bird migration",
]
_SOURCES = [
    "the annual report",
    "a regulatory filing",
    "the company's press office",
    "local records",
    "the product manual",
    "the published trial results",
]


@dataclass(frozen=True)
class _Template:
    statement: str  # how the knowledge base states the fact
    claim: str  # how an answer paraphrases it
    question: str  # a question the fact answers
    numeric: tuple[str, ...]  # slots that a contradiction may change


def _t(statement: str, claim: str, question: str, *numeric: str) -> _Template:
    return _Template(statement, claim, question, numeric)


_DOMAINS: dict[str, list[_Template]] = {
    "company": [
        _t(
            "{e} reported revenue of ${n1} million in fiscal {y}, up {p1}% on the previous year.",
            "In fiscal {y}, {e} had revenue of ${n1} million.",
            "What revenue did {e} report for fiscal {y}?",
            "n1",
            "y",
        ),
        _t(
            "The company was founded in {y0} by {person} in {city}.",
            "{e} was founded by {person} in {y0}.",
            "Who founded {e}, and when?",
            "y0",
        ),
        _t(
            "{e} employs about {n2} people across {k1} offices in {region}.",
            "{e} has roughly {n2} employees.",
            "How many people does {e} employ?",
            "n2",
        ),
        _t(
            "Its headquarters moved to {city2} in {month} {y}, after a two-year search.",
            "{e} moved its headquarters to {city2} in {y}.",
            "Where did {e} move its headquarters?",
            "y",
        ),
        _t(
            "Operating margin reached {p2}% in {y}, the highest level since {y0}.",
            "The operating margin of {e} was {p2}% in {y}.",
            "What was the operating margin of {e} in {y}?",
            "p2",
        ),
        _t(
            "The board approved a dividend of {c1} cents per share, payable on {month} {d1}.",
            "{e} will pay a dividend of {c1} cents per share.",
            "What dividend did the board of {e} approve?",
            "c1",
        ),
        _t(
            "{e} does not operate in {country}, citing the cost of local regulation.",
            "{e} has no operations in {country}.",
            "Does {e} operate in {country}?",
        ),
        _t(
            "Chief executive {person2} said orders from {region} rose {p3}% in the fourth quarter.",
            "Orders from {region} rose {p3}% in the fourth quarter, according to {person2}.",
            "How did orders from {region} develop at {e}?",
            "p3",
        ),
        _t(
            "Capital spending is planned at ${n3} million for {y1}, mostly on new plants in {country}.",
            "{e} plans capital spending of ${n3} million in {y1}.",
            "How much does {e} plan to invest in {y1}?",
            "n3",
        ),
    ],
    "town": [
        _t(
            "{e} had a population of {n4} at the {y} census, {p1}% more than a decade earlier.",
            "The population of {e} was {n4} in {y}.",
            "What is the population of {e}?",
            "n4",
        ),
        _t(
            "The town lies {k2} kilometres north of {city} on the river {river}.",
            "{e} is {k2} kilometres north of {city}.",
            "Where is {e}?",
            "k2",
        ),
        _t(
            "Average rainfall in {e} is {n5} millimetres a year, most of it falling in {month}.",
            "{e} gets about {n5} millimetres of rain a year.",
            "How much rain falls in {e}?",
            "n5",
        ),
        _t(
            "The municipal library opened in {y0} and now holds {n2} volumes.",
            "The library of {e} holds {n2} volumes.",
            "How large is the library of {e}?",
            "n2",
        ),
        _t(
            "Public transport consists of {k1} bus lines and a tram line opened in {y}.",
            "{e} has {k1} bus lines.",
            "What public transport does {e} have?",
            "k1",
        ),
        _t(
            "The mayor, {person}, was elected in {y} with {p2}% of the vote.",
            "{person} became mayor of {e} in {y} with {p2}% of the vote.",
            "Who is the mayor of {e}?",
            "p2",
            "y",
        ),
        _t(
            "{e} is not connected to the national rail network; the nearest station is in {city}.",
            "There is no railway station in {e}.",
            "Can you reach {e} by train?",
        ),
        _t(
            "The annual {month} festival draws about {n3} thousand visitors to the old harbour.",
            "About {n3} thousand people visit the festival in {e} each year.",
            "How many visitors does the festival in {e} attract?",
            "n3",
        ),
    ],
    "product": [
        _t(
            "The {e} weighs {g1} grams and runs for {h1} hours on a full charge.",
            "The battery of the {e} lasts {h1} hours.",
            "How long does the battery of the {e} last?",
            "h1",
        ),
        _t(
            "It went on sale on {month} {d1}, {y} at a launch price of ${n6}.",
            "The {e} launched at ${n6} in {y}.",
            "How much did the {e} cost at launch?",
            "n6",
            "y",
        ),
        _t(
            "The {e} supports up to {k3} simultaneous connections and {feature}.",
            "The {e} handles up to {k3} connections at once.",
            "How many connections does the {e} support?",
            "k3",
        ),
        _t(
            "Firmware version {v} added {feature2} and fixed a pairing fault reported in {month}.",
            "Firmware {v} of the {e} added {feature2}.",
            "What did firmware {v} add to the {e}?",
        ),
        _t(
            "The warranty covers {k1} years of parts and labour for buyers in {region}.",
            "The {e} comes with a {k1}-year warranty.",
            "How long is the warranty on the {e}?",
            "k1",
        ),
        _t(
            "The {e} is not compatible with the older {other} base station.",
            "The {e} does not work with the {other} base station.",
            "Does the {e} work with the {other}?",
        ),
        _t(
            "It is assembled in {country} and ships in packaging made from {p2}% recycled fibre.",
            "The packaging of the {e} is {p2}% recycled fibre.",
            "Is the packaging of the {e} recycled?",
            "p2",
        ),
    ],
    "policy": [
        _t(
            "Under the {e}, staff in grade {k1} may claim up to ${n7} per night for hotels in {city}.",
            "The {e} allows up to ${n7} per night for hotels in {city}.",
            "What is the hotel limit in {city} under the {e}?",
            "n7",
        ),
        _t(
            "Requests must be submitted at least {k2} days before travel and approved by a manager.",
            "Travel requests under the {e} need {k2} days' notice.",
            "How far in advance must travel be requested under the {e}?",
            "k2",
        ),
        _t(
            "Economy class is required for flights shorter than {h2} hours.",
            "The {e} requires economy class for flights under {h2} hours.",
            "When is business class allowed under the {e}?",
            "h2",
        ),
        _t(
            "The daily meal allowance is ${n8}, rising to ${n9} in {city2}.",
            "The meal allowance under the {e} is ${n8} a day.",
            "What is the daily meal allowance under the {e}?",
            "n8",
        ),
        _t(
            "The {e} took effect on {month} {d1}, {y}, replacing the {y0} version.",
            "The current {e} has applied since {y}.",
            "When did the {e} take effect?",
            "y",
        ),
        _t(
            "Contractors are not covered by the {e} and follow the terms of their own agreements.",
            "Contractors are not covered by the {e}.",
            "Does the {e} apply to contractors?",
        ),
        _t(
            "Rail is preferred over air for trips under {k3} kilometres within {country}.",
            "The {e} prefers rail for trips under {k3} kilometres.",
            "When must staff take the train under the {e}?",
            "k3",
        ),
    ],
    "research": [
        _t(
            "The {e} began in {y0} and was completed in {y}, at a total cost of ${n3} million.",
            "The {e} cost ${n3} million.",
            "How much did the {e} cost?",
            "n3",
        ),
        _t(
            "It was led by {person} of the University of {city} and studied {field}.",
            "{person} led the {e}.",
            "Who led the {e}?",
        ),
        _t(
            "{k3} researchers from {k1} countries took part, most of them based in {region}.",
            "{k3} researchers took part in the {e}.",
            "How many researchers took part in the {e}?",
            "k3",
        ),
        _t(
            "The final report found a {p2}% reduction in {thing} across the pilot sites.",
            "The {e} reported a {p2}% reduction in {thing}.",
            "What did the {e} find about {thing}?",
            "p2",
        ),
        _t(
            "Field work was carried out at {k2} sites between {month} {y0} and {month2} {y}.",
            "The {e} ran field work at {k2} sites.",
            "Where did the {e} collect data?",
            "k2",
        ),
        _t(
            "The data set, {n2} records in all, was published under an open licence in {y1}.",
            "The {e} published {n2} records as open data.",
            "Is the data of the {e} available?",
            "n2",
        ),
    ],
    "medicine": [
        _t(
            "{e} is approved for adults over {a1} with {condition}.",
            "{e} is approved for adults with {condition}.",
            "Who can take {e}?",
            "a1",
        ),
        _t(
            "The recommended dose is {mg} mg twice daily, taken with food.",
            "The usual dose of {e} is {mg} mg twice a day.",
            "What is the recommended dose of {e}?",
            "mg",
        ),
        _t(
            "In the phase {k4} trial, {p2}% of patients responded after {w1} weeks.",
            "{p2}% of patients responded to {e} in its phase {k4} trial.",
            "How effective was {e} in trials?",
            "p2",
        ),
        _t(
            "Common side effects include {se1} and {se2}, usually in the first week.",
            "{e} can cause {se1}.",
            "What side effects does {e} have?",
        ),
        _t(
            "{e} should not be taken together with {drug2}.",
            "{e} must not be combined with {drug2}.",
            "Can {e} be taken with {drug2}?",
        ),
        _t(
            "It was approved in {country} in {month} {y} after a review lasting {k1} months.",
            "{e} was approved in {country} in {y}.",
            "When was {e} approved in {country}?",
            "y",
        ),
        _t(
            "A pack of {k3} tablets costs about ${n6} without insurance.",
            "A pack of {e} costs about ${n6}.",
            "How much does {e} cost?",
            "n6",
        ),
    ],
}

#: Sentence openings that may follow "According to ...," in lower case (not names).
_LOWERABLE = frozenset(
    [
        "The",
        "Its",
        "It",
        "Operating",
        "Chief",
        "Capital",
        "Public",
        "Average",
        "Requests",
        "Economy",
        "Contractors",
        "Rail",
        "Field",
        "Firmware",
        "Common",
        "In",
        "A",
    ]
)

_REFUSALS = [
    "I could not find that information in the provided documents.",
    "The documents do not say, so I cannot answer that.",
    "Sorry, I don't know based on the available sources.",
]


# --------------------------------------------------------------------------- data model
@dataclass(frozen=True)
class Fact:
    """One templated fact: the template and the slot values it was filled with."""

    domain: str
    template: int
    values: dict[str, str]

    def _fill(self, text: str, values: dict[str, str] | None = None) -> str:
        return text.format(**(values or self.values))

    @property
    def statement(self) -> str:
        return self._fill(_DOMAINS[self.domain][self.template].statement)

    @property
    def question(self) -> str:
        return self._fill(_DOMAINS[self.domain][self.template].question)

    def claim(self, values: dict[str, str] | None = None) -> str:
        return self._fill(_DOMAINS[self.domain][self.template].claim, values)


@dataclass(frozen=True)
class Chunk:
    """A knowledge-base chunk: an id, its text and the facts it states."""

    id: str
    text: str
    domain: str
    entity: str
    facts: tuple[Fact, ...]


@dataclass
class Workload:
    """Traces, per-claim labels (``supported``/``contradicted``/``unsupported``/``refusal``)
    and the knowledge base they were drawn from."""

    traces: list[RagTrace]
    labels: list[list[str]]
    chunks: list[Chunk] = field(repr=False)


# --------------------------------------------------------------------------- generation
def _entity(rng: random.Random, domain: str) -> str:
    if domain == "company":
        return f"{rng.choice(_PREFIXES)} {rng.choice(_SUFFIXES)}"
    if domain == "town":
        return rng.choice(_TOWN_A) + rng.choice(_TOWN_B)
    if domain == "product":
        return f"{rng.choice(_PREFIXES)} {rng.choice(_PRODUCT_LINES)} {rng.choice('XSMQ')}{rng.randint(1, 9) * 100}"
    if domain == "policy":
        return f"{rng.choice(_PREFIXES)} {rng.choice(_SUFFIXES)} travel policy"
    if domain == "research":
        return f"{rng.choice(_PREFIXES)} {rng.choice(_FIELDS)} project"
    return rng.choice(_DRUG_A) + rng.choice(_DRUG_B)


def _values(rng: random.Random, entity: str) -> dict[str, str]:
    y = rng.randint(2009, 2024)
    person, person2 = (f"{rng.choice(_FIRST)} {rng.choice(_LAST)}" for _ in range(2))
    city, city2 = rng.sample(_CITIES, 2)
    feature, feature2 = rng.sample(_FEATURES, 2)
    se1, se2 = rng.sample(_SIDE_EFFECTS, 2)
    month, month2 = rng.sample(_MONTHS, 2)
    return {
        "e": entity,
        "y": str(y),
        "y0": str(rng.randint(1950, y - 1)),
        "y1": str(y + rng.randint(1, 3)),
        "n1": f"{rng.randint(12, 980)}.{rng.randint(1, 9)}",
        "n2": f"{rng.randint(2, 95) * 100:,}",
        "n3": str(rng.randint(3, 240)),
        "n4": f"{rng.randint(1_200, 180_000):,}",
        "n5": str(rng.randint(380, 1_900)),
        "n6": str(rng.randint(19, 899)),
        "n7": str(rng.randint(9, 38) * 10),
        "n8": str(rng.randint(25, 70)),
        "n9": str(rng.randint(71, 120)),
        "p1": str(rng.randint(2, 35)),
        "p2": str(rng.randint(5, 48)),
        "p3": str(rng.randint(3, 60)),
        "c1": str(rng.randint(5, 95)),
        "d1": str(rng.randint(1, 28)),
        "k1": str(rng.randint(2, 12)),
        "k2": str(rng.randint(5, 90)),
        "k3": str(rng.randint(12, 400)),
        "k4": str(rng.randint(2, 3)),
        "g1": str(rng.randint(90, 1_400)),
        "h1": str(rng.randint(4, 40)),
        "h2": str(rng.randint(3, 9)),
        "a1": str(rng.choice([12, 16, 18, 40, 50, 65])),
        "mg": str(rng.choice([5, 10, 20, 25, 40, 50, 100, 200])),
        "w1": str(rng.randint(4, 52)),
        "v": f"{rng.randint(1, 5)}.{rng.randint(0, 9)}.{rng.randint(0, 20)}",
        "person": person,
        "person2": person2,
        "city": city,
        "city2": city2,
        "country": rng.choice(_COUNTRIES),
        "region": rng.choice(_REGIONS),
        "river": rng.choice(_RIVERS),
        "month": month,
        "month2": month2,
        "feature": feature,
        "feature2": feature2,
        "other": f"{rng.choice(_PREFIXES)} {rng.randint(1, 9)}0",
        "condition": rng.choice(_CONDITIONS),
        "se1": se1,
        "se2": se2,
        "drug2": rng.choice(_DRUG_A) + rng.choice(_DRUG_B),
        "thing": rng.choice(_THINGS),
        "field": rng.choice(_FIELDS),
    }


def _wrong(rng: random.Random, value: str) -> str:
    """A different number of the same shape (a contradiction)."""
    digits = [c for c in value if c.isdigit()]
    while True:
        factor = rng.choice([0.5, 0.6, 0.75, 1.25, 1.4, 1.5, 2.0])
        if "." in value and "," not in value and value.count(".") == 1:
            new = f"{float(value) * factor:.1f}"
        else:
            raw = int("".join(digits))
            num = max(1, round(raw * factor)) if raw > 2 else raw + rng.randint(1, 3)
            if len(digits) == 4 and 1900 < raw < 2100:  # a year
                num = raw + rng.choice([-3, -2, -1, 1, 2])
            new = f"{num:,}" if "," in value else str(num)
        if new != value:
            return new


def make_knowledge_base(pool_size: int = 2_000, seed: int = 7) -> list[Chunk]:
    """``pool_size`` distinct chunks of about 120 words (95-150), deterministic in ``seed``."""
    rng = random.Random(f"kb-{seed}")
    domains = sorted(_DOMAINS)
    chunks: list[Chunk] = []
    seen: set[str] = set()
    while len(chunks) < pool_size:
        domain = rng.choice(domains)
        entity = _entity(rng, domain)
        values = _values(rng, entity)
        order = list(range(len(_DOMAINS[domain])))
        rng.shuffle(order)
        facts: list[Fact] = []
        sentences: list[str] = []
        words = 0
        for ti in order:
            fact = Fact(domain, ti, values)
            sentence = fact.statement
            first = sentence.split(" ", 1)[0]
            if first in _LOWERABLE and rng.random() < 0.3:
                sentence = (
                    f"According to {rng.choice(_SOURCES)}, {sentence[0].lower()}{sentence[1:]}"
                )
            facts.append(fact)
            sentences.append(sentence)
            words += len(sentence.split())
            if words >= 118:
                break
        text = " ".join(sentences)
        if text in seen:
            continue
        seen.add(text)
        chunks.append(Chunk(f"kb-{len(chunks):05d}", text, domain, entity, tuple(facts)))
    return chunks


def _unsupported_claim(rng: random.Random, chunk: Chunk) -> str:
    """A plausible claim about the chunk's entity that the chunk does not state."""
    stated = {f.template for f in chunk.facts}
    unstated = [i for i in range(len(_DOMAINS[chunk.domain])) if i not in stated]
    values = _values(rng, chunk.entity)
    if unstated:
        return Fact(chunk.domain, rng.choice(unstated), values).claim()
    # Every template is stated: claim a fact of this kind about another entity.
    return Fact(
        chunk.domain,
        rng.randrange(len(_DOMAINS[chunk.domain])),
        _values(rng, _entity(rng, chunk.domain)),
    ).claim()


def _claim(rng: random.Random, chunk: Chunk, fact: Fact) -> tuple[str, str]:
    roll = rng.random()
    numeric = _DOMAINS[fact.domain][fact.template].numeric
    if roll < 0.6 or (roll < 0.8 and not numeric):
        return fact.claim(), "supported"
    if roll < 0.8:
        slot = rng.choice(numeric)
        values = dict(fact.values)
        values[slot] = _wrong(rng, values[slot])
        return fact.claim(values), "contradicted"
    return _unsupported_claim(rng, chunk), "unsupported"


def make_workload(
    n_traces: int = 500,
    seed: int = 7,
    *,
    pool_size: int = 2_000,
    passages: int = 5,
    zipf_s: float = 1.0,
    refusal_rate: float = 0.03,
    citation_rate: float = 0.2,
    trace_seed: int | None = None,
) -> Workload:
    """``n_traces`` traces over a knowledge base of ``pool_size`` chunks (Zipf popularity).

    The knowledge base depends on ``seed`` only; ``trace_seed`` (default: ``seed``) draws other
    traces over the same knowledge base (a warm cache sees new answers, recurring passages).
    """
    chunks = make_knowledge_base(pool_size, seed)
    rng = random.Random(f"traces-{seed if trace_seed is None else trace_seed}")
    # Popularity rank is a seeded permutation of the pool, so the ids of hot chunks vary by seed.
    ranked = list(range(len(chunks)))
    rng.shuffle(ranked)
    cum = list(itertools.accumulate(1.0 / (r + 1) ** zipf_s for r in range(len(ranked))))

    def draw() -> int:
        return ranked[bisect.bisect_left(cum, rng.random() * cum[-1])]

    traces: list[RagTrace] = []
    labels: list[list[str]] = []
    for t in range(n_traces):
        picked: list[int] = []
        while len(picked) < min(passages, len(chunks)):
            c = draw()
            if c not in picked:
                picked.append(c)
        gold_pos = rng.randrange(len(picked))
        gold = chunks[picked[gold_pos]]
        asked = rng.choice(gold.facts)
        question = asked.question
        n_claims = rng.choice([1, 1, 2, 2, 2, 3, 3, 4])
        answer_parts: list[str] = []
        trace_labels: list[str] = []
        sources: list[int] = []
        if rng.random() < refusal_rate:
            answer_parts.append(rng.choice(_REFUSALS))
            trace_labels.append("refusal")
            sources.append(gold_pos)
        else:
            for k in range(n_claims):
                if k == 0:
                    pos, fact = gold_pos, asked
                else:
                    pos = gold_pos if rng.random() < 0.6 else rng.randrange(len(picked))
                    fact = rng.choice(chunks[picked[pos]].facts)
                text, label = _claim(rng, chunks[picked[pos]], fact)
                if text in answer_parts:
                    continue
                answer_parts.append(text)
                trace_labels.append(label)
                sources.append(pos)
        contexts = [
            ContextPassage(
                text=chunks[c].text,
                id=chunks[c].id,
                rank=i + 1,
                score=round(0.9 - 0.07 * i - rng.random() * 0.05, 4),
            )
            for i, c in enumerate(picked)
        ]
        citations = None
        if trace_labels != ["refusal"] and rng.random() < citation_rate:
            citations = [
                Citation(sentence=s, context_ids=[chunks[picked[p]].id])
                for s, p in zip(answer_parts, sources, strict=True)
            ]
        traces.append(
            RagTrace(
                trace_id=f"wl{seed}-{trace_seed}-{t:06d}",
                question=question,
                contexts=contexts,
                answer=" ".join(answer_parts),
                citations=citations,
                attributes={"domain": gold.domain, "tenant": f"t{t % 4}"},
            )
        )
        labels.append(trace_labels)
    return Workload(traces, labels, chunks)


def main() -> None:
    """Print a few traces as JSON lines (with their labels) to eyeball the workload."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    wl = make_workload(args.traces, args.seed)
    for trace, labels in zip(wl.traces, wl.labels, strict=True):
        obj = trace.model_dump(mode="json", exclude_none=True)
        obj["_labels"] = labels
        print(json.dumps(obj))


if __name__ == "__main__":
    main()
