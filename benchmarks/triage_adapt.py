"""Simulated triage: label the first k findings the page shows, adapt, measure the rest.

Usage::

    python benchmarks/triage_adapt.py collect        # the verifier judge's features (slow, cached)
    python benchmarks/triage_adapt.py run [--json build/triage_adapt/figures.json]
    python benchmarks/triage_adapt.py collect --traces-only --cache build/triage_adapt/v2.jsonl

For each labelled set (held-out 1-4 in ``tests/heldout*_cases.jsonl``, one unit each: they
carry no domain; the blind triage set in ``tests/triage/``, one unit per deployment domain and
``triage:all`` pooled; the written RAG pairs in ``training/written``, one unit per domain group, see
:data:`WRITTEN_GROUPS`) the verifier judge (shipped calibration) decides every claim. Its
*findings* are the claims it calls contradicted, in the order the findings page shows them:
newest first, the set's order being the order traffic arrived. An engineer labels the first
k (k = 25, 50, 100) from the claim's gold label (contradicted = right, else wrong);
``groundwatch.judges.adapt.adapt`` fits the filter on them; contradicted precision and recall
are measured on *every other labelled claim of that unit* (recall over all its gold
contradictions, so a dropped true contradiction counts against it), before and after. A unit
with fewer than k + 5 findings has no figure for that k.

Claims the judge decides without the model (a passage's own words, an absent name) are not
contradicted by either model; a gold contradiction among them counts as missed in both.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "service"), str(ROOT)]

from groundwatch.judges.adapt import (  # noqa: E402
    AdaptError,
    adapt,
    fit_filter,
    predicts_contradicted,
    recording_judge,
    trace_features,
)
from groundwatch.judges.verdict import ClaimFeatures, VerdictModel  # noqa: E402
from groundwatch.settings import Settings  # noqa: E402

CACHE = ROOT / "build" / "triage_adapt" / "features.jsonl"
#: The blind triage set: one file per deployment domain (tests/triage/README.md).
TRIAGE = ROOT / "tests" / "triage"
HELDOUT = ("heldout_cases", "heldout2_cases", "heldout3_cases", "heldout4_cases")
KS = (10, 20, 25, 50, 100)
MIN_REST_FINDINGS = 5
#: The written pairs' 60 domains have 40 claims each (about 3 findings): too few to label 25.
#: They are grouped by theme into units of 5-8 domains; every domain is in exactly one group.
WRITTEN_GROUPS: dict[str, tuple[str, ...]] = {
    "finance": (
        "banking and card fees",
        "payroll and HR leave policy",
        "tax filing guidance",
        "insurance policies",
        "pension and retirement plans",
        "company quarterly earnings summaries",
        "mortgage and loan terms",
        "scholarship and grant rules",
        "conference and travel expense policy",
        "energy utility billing",
    ),
    "travel": (
        "airline baggage and ticket rules",
        "hotel and short-stay rental policies",
        "car rental agreements",
        "public transport fares and passes",
        "shipping and customs",
        "cycling and hiking trail guides",
        "railway and ferry timetables",
        "drone and aviation regulations",
        "boating and marine safety",
        "vehicle maintenance manuals",
    ),
    "tech": (
        "cloud hosting and DevOps",
        "consumer electronics manuals",
        "software licensing and SaaS plans",
        "mobile phone plans",
        "data privacy policies",
        "cybersecurity incident runbooks",
        "API documentation and rate limits",
        "telecom outage and SLA terms",
        "open-source project contribution guides",
        "database administration documentation",
        "video game patch notes and rules",
        "streaming and media subscriptions",
    ),
    "health": (
        "pharmacy drug leaflets",
        "laboratory safety procedures",
        "veterinary care guides",
        "medical clinic and hospital visitor rules",
        "children's product safety notices",
        "nutrition labels and dietary advice",
        "clinical trial and research summaries",
        "chemical safety data sheets",
        "building and fire codes",
        "food recipes and storage",
    ),
    "civic": (
        "municipal waste and recycling rules",
        "university admissions",
        "public library services",
        "school district calendars and rules",
        "museum and park visitor info",
        "jury service and court procedures",
        "voter registration and elections",
        "pet adoption and animal shelter rules",
        "real estate and tenancy",
    ),
    "leisure": (
        "home appliance warranties",
        "gym and fitness club memberships",
        "event ticketing and refunds",
        "online marketplace seller rules",
        "agriculture and gardening guides",
        "sports league rules",
        "astronomy and science news",
        "restaurant and catering policies",
        "history encyclopedia entries",
    ),
}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _overlap(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / max(1, len(wa | wb))


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def _record(features: ClaimFeatures | None) -> dict[str, Any] | None:
    return None if features is None else dataclasses.asdict(features)


def _trace_sets() -> list[tuple[str, Path]]:
    """(unit, file) of every labelled trace set: held-out 1-4, then the triage domains."""
    sets = [(name, ROOT / "tests" / f"{name}.jsonl") for name in HELDOUT]
    sets += [(f"triage:{p.stem}", p) for p in sorted(TRIAGE.glob("*.jsonl"))]
    return sets


def collect(cache: Path = CACHE, written: bool = True) -> int:
    """Features of every labelled claim, one JSON line each: unit, order, gold verdict."""
    # the embedding settings as the service reads them (GROUNDWATCH_EMBEDDING__*)
    judge, recorder = recording_judge(embedding=Settings().embedding)
    cache.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["unit"], r["item"]) for r in _rows(cache)} if cache.exists() else set()
    with cache.open("a", encoding="utf-8") as out:
        for unit, path in _trace_sets():
            for order, row in enumerate(_rows(path)):
                labelled = (row.get("label") or {}).get("claims") or []
                if not labelled or (unit, row["trace_id"]) in done:
                    continue
                contexts = [c if isinstance(c, str) else c["text"] for c in row["contexts"]]
                seen = trace_features(judge, recorder, row["question"], contexts, row["answer"])
                for gold in labelled:
                    best = max(seen, key=lambda s: _overlap(s.claim, gold["text"]), default=None)
                    ok = best is not None and _overlap(best.claim, gold["text"]) >= 0.5
                    line = {
                        "unit": unit,
                        "item": row["trace_id"],
                        "order": order,
                        "domain": unit,
                        "gold": gold["verdict"],
                        "features": _record(best if ok else None),
                    }
                    out.write(json.dumps(line) + "\n")
                out.flush()
                print(unit, row["trace_id"], len(seen), file=sys.stderr)
        order = 0
        for path in sorted((ROOT / "training" / "written").glob("*.jsonl")) if written else []:
            for row in _rows(path):
                order += 1
                if ("written", row["id"]) in done:
                    continue
                seen = trace_features(judge, recorder, "", [row["premise"]], row["hypothesis"])
                best = max(seen, key=lambda s: _overlap(s.claim, row["hypothesis"]), default=None)
                ok = best is not None and _overlap(best.claim, row["hypothesis"]) >= 0.5
                line = {
                    "unit": "written",
                    "item": row["id"],
                    "order": order,
                    "domain": row["domain"],
                    "gold": row["label"],
                    "features": _record(best if ok else None),
                }
                out.write(json.dumps(line) + "\n")
            out.flush()
            print(path.name, file=sys.stderr)
    return 0


def _features(d: dict[str, Any] | None) -> ClaimFeatures | None:
    return None if d is None else ClaimFeatures(**d)


def _figures(flags: list[bool], gold: list[bool]) -> dict[str, Any]:
    tp = sum(1 for f, g in zip(flags, gold, strict=True) if f and g)
    predicted, positives = sum(flags), sum(gold)
    return {
        "predicted": predicted,
        "true_positive": tp,
        "precision": round(tp / predicted, 3) if predicted else None,
        "recall": round(tp / positives, 3) if positives else None,
    }


def _units(rows: list[dict[str, Any]], by: str) -> dict[str, list[dict[str, Any]]]:
    units: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r["unit"] != "written":
            units[r["unit"]].append(r)
            if r["unit"].startswith("triage:"):
                units["triage:all"].append(r)
            continue
        units["written:all"].append(r)
        if by == "domain":
            units[f"written:{r['domain']}"].append(r)
        else:
            units[f"written:{_group(r['domain'])}"].append(r)
    return units


def _group(domain: str) -> str:
    for group, domains in WRITTEN_GROUPS.items():
        if domain in domains:
            return group
    return "other"


def base_judge(base: str) -> tuple[VerdictModel, Callable[[list[ClaimFeatures]], list[bool]]]:
    """The judge whose findings are labelled: ``verifier`` (the shipped calibration),
    ``verifier@BAR`` (the same model with the contradicted bar at BAR: more findings, lower
    precision) or ``rules`` (the rules judge's verdict, as the default backend decides, read from
    the same features)."""
    model = VerdictModel.shipped()
    if base == "rules":
        return model, lambda feats: [f.rules_verdict == "contradicted" for f in feats]
    if base.startswith("verifier@"):
        model = model.with_bar(float(base.split("@", 1)[1]))  # `groundwatch judge bar`
    elif base != "verifier":
        raise ValueError(f"unknown base judge {base!r}")
    return model, lambda feats: predicts_contradicted(model, feats)


def _after(
    base: str, model: VerdictModel, train: list[tuple[ClaimFeatures, bool]]
) -> Callable[[list[ClaimFeatures]], list[bool]]:
    """The adapted judge's contradicted decision, fitted on the labelled findings ``train``."""
    if base == "rules":
        gate = fit_filter(train, model.features)
        return lambda feats: [
            f.rules_verdict == "contradicted"
            and gate.score(f.vector(model.features)) >= gate.threshold
            for f in feats
        ]
    adapted = adapt(model, train)
    return lambda feats: predicts_contradicted(adapted, feats)


def simulate(
    rows: list[dict[str, Any]], by: str = "group", base: str = "verifier"
) -> list[dict[str, Any]]:
    model, flags_of = base_judge(base)
    shipped_of = flags_of if base == "verifier" else base_judge("verifier")[1]
    out: list[dict[str, Any]] = []
    for unit, items in sorted(_units(rows, by).items()):
        items.sort(key=lambda r: r["order"], reverse=True)  # newest first, as the page shows
        feats = [_features(r["features"]) for r in items]
        gold = [r["gold"] == "contradicted" for r in items]
        known = [f for f in feats if f is not None]
        flagged_known = iter(flags_of(known))
        flagged = [False if f is None else next(flagged_known) for f in feats]
        findings = [i for i, f in enumerate(flagged) if f]
        shipped_known = iter(shipped_of(known))
        shipped = [False if f is None else next(shipped_known) for f in feats]
        entry: dict[str, Any] = {
            "unit": unit,
            "base": base,
            "claims": len(items),
            "contradicted": sum(gold),
            "findings": len(findings),
            "base_all": _figures(flagged, gold),
            "k": {},
        }
        for k in KS:
            if len(findings) < k + MIN_REST_FINDINGS:
                continue
            labelled = findings[:k]
            train = [(f, gold[i]) for i in labelled if (f := feats[i]) is not None]
            rest = [i for i in range(len(items)) if i not in set(labelled)]
            try:
                decide = _after(base, model, train)
            except AdaptError as exc:
                entry["k"][str(k)] = {"error": str(exc)}
                continue
            rest_known = [f for i in rest if (f := feats[i]) is not None]
            after_iter = iter(decide(rest_known))
            after = [False if feats[i] is None else next(after_iter) for i in rest]
            entry["k"][str(k)] = {
                "labelled_right": sum(gold[i] for i in labelled),
                "before": _figures([flagged[i] for i in rest], [gold[i] for i in rest]),
                "after": _figures(after, [gold[i] for i in rest]),
                # the shipped judge on the same claims: what the deployment had without labels
                "shipped": _figures([shipped[i] for i in rest], [gold[i] for i in rest]),
            }
        out.append(entry)
    return out


def _table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| unit | claims | gold contradicted | findings | k | right of k | precision before -> after"
        " | recall before -> after | findings on the rest before -> after"
        " | shipped judge on the rest: precision, recall |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]

    def f(v: Any) -> str:
        return "—" if v is None else f"{v:.3f}"

    for e in results:
        if not e["k"]:
            b = e["base_all"]
            lines.append(
                f"| {e['unit']} | {e['claims']} | {e['contradicted']} | {e['findings']} | "
                f"(too few findings) | | {f(b['precision'])} | {f(b['recall'])} | | |"
            )
        for k, r in e["k"].items():
            if "error" in r:
                lines.append(
                    f"| {e['unit']} | {e['claims']} | {e['contradicted']} | {e['findings']} | {k}"
                    f" | | {r['error']} | | | |"
                )
                continue
            b, a, sh = r["before"], r["after"], r["shipped"]
            lines.append(
                f"| {e['unit']} | {e['claims']} | {e['contradicted']} | {e['findings']} | {k} | "
                f"{r['labelled_right']} | {f(b['precision'])} -> {f(a['precision'])} | "
                f"{f(b['recall'])} -> {f(a['recall'])} | {b['predicted']} -> {a['predicted']} | "
                f"{f(sh['precision'])}, {f(sh['recall'])} |"
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=["collect", "run", "domains"])
    parser.add_argument("--json", help="write the figures here too")
    parser.add_argument("--by", choices=["group", "domain"], default="group")
    parser.add_argument(
        "--cache", type=Path, default=CACHE, help="the features file (one per verifier model)"
    )
    parser.add_argument(
        "--base",
        default="verifier",
        help="the judge whose findings are labelled: verifier, verifier@BAR or rules",
    )
    parser.add_argument(
        "--traces-only", action="store_true", help="collect the trace sets, not the written pairs"
    )
    args = parser.parse_args()
    if args.stage == "collect":
        return collect(args.cache, written=not args.traces_only)
    rows = list(_rows(args.cache))
    if args.stage == "domains":
        counts = Counter(r["domain"] for r in rows if r["unit"] == "written")
        for domain, n in sorted(counts.items()):
            print(f"{n:4d} {domain}")
        return 0
    results = simulate(rows, by=args.by, base=args.base)
    print(_table(results))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
