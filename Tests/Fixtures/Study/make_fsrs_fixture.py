#!/usr/bin/env python3
"""Writes Tests/Fixtures/Study/fsrs-histories.json: random review histories, each run
through the reference FSRS implementation (the Python package `fsrs`), for
FSRSMatchesTheReferenceTests to replay with MiDiccio's scheduler. Committed; run again
to refresh it (for instance after a new `fsrs` release):

    python3 -m venv /tmp/fsrs-venv
    /tmp/fsrs-venv/bin/pip install fsrs
    /tmp/fsrs-venv/bin/python Tests/Fixtures/Study/make_fsrs_fixture.py

Fuzz is off in the reference (it draws from Python's `random`); MiDiccio's own fuzz is
tested on its own. Times are whole milliseconds, as MiDiccio keeps them. The seed is
fixed, so a rerun with the same package version writes the same file.
"""

import json
import os
import random
from datetime import datetime, timedelta, timezone
from importlib.metadata import version

from fsrs import Card, Rating, Scheduler, State

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fsrs-histories.json")
HISTORIES = 300
SEED = 15

STATES = {State.Learning: "learning", State.Review: "review", State.Relearning: "relearning"}

# Scheduler settings the histories are spread over: the defaults, other retentions, and
# other step lists (none, one, three).
CONFIGS = [
    {"desired_retention": 0.9, "learning_steps": [60, 600], "relearning_steps": [600]},
    {"desired_retention": 0.8, "learning_steps": [60, 600], "relearning_steps": [600]},
    {"desired_retention": 0.95, "learning_steps": [60, 600], "relearning_steps": [600]},
    {"desired_retention": 0.9, "learning_steps": [600], "relearning_steps": []},
    {"desired_retention": 0.85, "learning_steps": [], "relearning_steps": [300, 1200]},
    {"desired_retention": 0.9, "learning_steps": [60, 600, 3600], "relearning_steps": [600]},
]


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def ms(moment):
    # exact integer arithmetic: a float timestamp can land a millisecond short
    return (moment - EPOCH) // timedelta(milliseconds=1)


def from_ms(value):
    return EPOCH + timedelta(milliseconds=value)


def next_time(rng, card, now):
    """When the next review happens: mostly around the due time, sometimes early or late."""
    due = ms(card.due)
    span = max(due - ms(now), 60_000)
    roll = rng.random()
    if roll < 0.15:
        # early: somewhere before the due time (a review ahead, or on the same day)
        return ms(now) + int(rng.random() * span) + 1
    if roll < 0.75:
        return due + int(rng.random() * span * 0.3)
    # late, up to three times the interval
    return due + int(rng.random() * span * 3) + rng.randrange(0, 86_400_000)


def main():
    rng = random.Random(SEED)
    histories = []
    for index in range(HISTORIES):
        config = CONFIGS[index % len(CONFIGS)]
        scheduler = Scheduler(
            desired_retention=config["desired_retention"],
            learning_steps=[timedelta(seconds=s) for s in config["learning_steps"]],
            relearning_steps=[timedelta(seconds=s) for s in config["relearning_steps"]],
            enable_fuzzing=False,
        )
        start = 1_780_000_000_000 + rng.randrange(0, 365 * 86_400_000)
        now = from_ms(start)
        card = Card(card_id=index + 1, due=now)
        reviews = []
        for _ in range(rng.randrange(1, 25)):
            grade = rng.choices([1, 2, 3, 4], weights=[15, 15, 55, 15])[0]
            card, _ = scheduler.review_card(card, Rating(grade), review_datetime=now)
            reviews.append(
                {
                    "time": ms(now),
                    "grade": grade,
                    "state": STATES[card.state],
                    "step": card.step,
                    "stability": card.stability,
                    "difficulty": card.difficulty,
                    "due": ms(card.due),
                }
            )
            now = from_ms(next_time(rng, card, now))
        histories.append(
            {
                "desiredRetention": config["desired_retention"],
                "learningStepsSeconds": config["learning_steps"],
                "relearningStepsSeconds": config["relearning_steps"],
                "reviews": reviews,
            }
        )
    fixture = {
        "made by": "Tests/Fixtures/Study/make_fsrs_fixture.py",
        "fsrs": version("fsrs"),
        "parameters": list(Scheduler().parameters),
        "histories": histories,
    }
    with open(OUT, "w") as handle:
        json.dump(fixture, handle, indent=None, separators=(",", ":"))
        handle.write("\n")
    print(f"wrote {len(histories)} histories, {sum(len(h['reviews']) for h in histories)} reviews to {OUT}")


if __name__ == "__main__":
    main()
