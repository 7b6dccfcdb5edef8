"""Score events in context: the matches the engine plays, with every event and each path to 61.

:func:`trace_events` plays the very matches :func:`sim.simulate` plays (same
seeds, same strategies) and returns them with one row per score event (round,
turn, entity, kind, parts, accepted, the entity's score before it) and one
row per (match, entity) describing its path to 61 (:mod:`sim.study_kernels.trace_walk`
derives both from the engine's trace). Every figure is a pure function of
``(seed, match index)`` and the strategies: nothing depends on the thread
count or the chunking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core import state as K
from sim.engine.batch import chunk_bounds, thread_count, traced_run
from sim.engine.compile_cache import ensure_fresh
from sim.engine.compiled import CompiledRun
from sim.engine.frames import match_frame
from sim.engine.spec import RunSpec
from sim.progress import progress_bar
from sim.study_kernels import trace_walk as TW

__all__ = ["StudyTrace", "trace_events"]

KIND_NAMES = ["placement", "domino", "blocked"]
"""Score event kinds, by ``EVENT_*`` code."""

MATCHES_PER_THREAD = 2048
"""Default matches per thread and traced chunk (each chunk is walked at once)."""


@dataclass
class StudyTrace:
    """Matches with their score events and per-entity paths.

    Attributes
    ----------
    matches : DataFrame
        The engine's match frame (:func:`sim.simulate`), same rows.
    events : DataFrame
        One row per score event, in the order applied: ``match``, ``round``,
        ``turn`` (turn index within the match: a turn ends with a play or a
        pass), ``round_turn``, ``entity``, ``seat`` (the seat that played,
        dominoed or held the blocked hand), ``kind`` (placement / domino /
        blocked), ``raw``, ``placement``, ``credit``, ``debit`` (event parts;
        a placement event has ``placement == raw``), ``accepted``,
        ``score_before`` (the entity's raw score just before the event) and
        ``displayed_before`` (``score_before / 5``).
    paths : DataFrame
        One row per (match, entity): ``match``, ``entity``, ``won``,
        ``score`` (final raw), ``own_turns``, ``zone10_turns`` /
        ``zone5_turns`` (own turns begun within 10 / 5 displayed points of 61,
        i.e. displayed 51..60 / 56..60), ``zone10_table_turns`` (turns of any
        seat begun with the entity within 10), ``zone10_rounds`` /
        ``zone5_rounds`` (rounds during which it was in the zone at some
        moment), ``first_zone10_event`` / ``first_zone5_event`` (index of the
        match event that first brought it into the zone, -1 never),
        ``first_zone10_round``, ``events``, ``discarded``, ``raw_discarded``,
        ``max_score``.
    """

    matches: pd.DataFrame
    events: pd.DataFrame
    paths: pd.DataFrame


PATH_COLUMNS = (
    ("own_turns", TW.P_OWN_TURNS), ("zone10_turns", TW.P_ZONE10_TURNS),
    ("zone5_turns", TW.P_ZONE5_TURNS), ("zone10_table_turns", TW.P_ZONE10_TABLE_TURNS),
    ("zone10_rounds", TW.P_ZONE10_ROUNDS), ("zone5_rounds", TW.P_ZONE5_ROUNDS),
    ("first_zone10_event", TW.P_FIRST_ZONE10_EVENT), ("first_zone5_event", TW.P_FIRST_ZONE5_EVENT),
    ("first_zone10_round", TW.P_FIRST_ZONE10_ROUND), ("events", TW.P_EVENTS),
    ("discarded", TW.P_DISCARDED), ("raw_discarded", TW.P_RAW_DISCARDED),
    ("max_score", TW.P_MAX_SCORE),
)
"""The paths frame's per-entity columns and their ``P_*`` fields, in column order."""


def trace_events(players, strategies, matches, seed, *, progress: bool = False,
                 chunk_size: int | None = None, on_chunk=None, **run_options) -> StudyTrace:
    """Simulate matches and return them with every score event in context.

    Arguments as :func:`sim.simulate` (the matches are the same ones);
    ``on_chunk(n)`` is called after each chunk of ``n`` matches (progress).

    Returns
    -------
    StudyTrace
    """
    spec = RunSpec.build(players, strategies, matches, seed, **run_options)
    ensure_fresh(TW, TW.walk_matches)
    match_frames, event_frames, path_frames = [], [], []
    with CompiledRun(spec) as run, thread_count(spec.threads) as active, \
            progress_bar(spec.matches, progress) as bar:
        for start, stop in chunk_bounds(spec.matches, active, chunk_size, MATCHES_PER_THREAD):
            stats, scores, round_offsets, rows, _, trace = traced_run(run, start, stop, active,
                                                                      want_actions=True)
            frame = match_frame(spec, spec.first_match + start, stats, scores)
            ev_out = np.zeros((trace["events"].shape[0], TW.EV_FIELDS), dtype=np.int64)
            path_out = np.zeros((stop - start, K.MAX_ENTITIES, TW.PATH_FIELDS), dtype=np.int64)
            bad = TW.walk_matches(np.int64(spec.players), round_offsets, rows,
                                  trace["action_offsets"], trace["actions"],
                                  trace["event_offsets"], trace["events"], ev_out, path_out)
            if bad:
                raise RuntimeError(f"{bad} rounds of the trace have events not matched to plays")
            match_frames.append(frame)
            event_frames.append(_event_frame(frame, trace, ev_out))
            path_frames.append(_path_frame(spec, frame, path_out))
            bar.update(stop - start)
            if on_chunk is not None:
                on_chunk(stop - start)
    return StudyTrace(
        matches=pd.concat(match_frames, ignore_index=True),
        events=pd.concat(event_frames, ignore_index=True),
        paths=pd.concat(path_frames, ignore_index=True),
    )


def _event_frame(frame: pd.DataFrame, trace: dict, ev_out: np.ndarray) -> pd.DataFrame:
    events = trace["events"]
    counts = np.diff(trace["event_offsets"])
    return pd.DataFrame({
        "match": np.repeat(frame["match"].to_numpy(), counts),
        "round": ev_out[:, TW.EV_ROUND].astype(np.int32),
        "turn": ev_out[:, TW.EV_TURN].astype(np.int32),
        "round_turn": ev_out[:, TW.EV_ROUND_TURN].astype(np.int32),
        "entity": events[:, K.E_ENTITY].astype(np.int8),
        "seat": events[:, K.E_SEAT].astype(np.int8),
        "kind": pd.Categorical.from_codes(events[:, K.E_KIND].astype(np.int8), KIND_NAMES),
        "raw": events[:, K.E_RAW].astype(np.int32),
        "placement": events[:, K.E_PLACEMENT].astype(np.int32),
        "credit": events[:, K.E_CREDIT].astype(np.int32),
        "debit": events[:, K.E_DEBIT].astype(np.int32),
        "accepted": events[:, K.E_ACCEPTED].astype(bool),
        "score_before": ev_out[:, TW.EV_SCORE_BEFORE].astype(np.int32),
        "displayed_before": (ev_out[:, TW.EV_SCORE_BEFORE] // 5).astype(np.int16),
    })


def _path_frame(spec: RunSpec, frame: pd.DataFrame, path_out: np.ndarray) -> pd.DataFrame:
    n = len(frame)
    k = spec.n_entities
    winner = frame["winner"].to_numpy()
    scores = np.stack([frame[f"score_{e}"].to_numpy() for e in range(k)], axis=1)
    columns = {
        "match": np.repeat(frame["match"].to_numpy(), k),
        "entity": np.tile(np.arange(k, dtype=np.int8), n),
        "won": (winner[:, None] == np.arange(k)[None, :]).ravel(),
        "score": scores.ravel().astype(np.int32),
    }
    for name, field in PATH_COLUMNS:
        columns[name] = path_out[:, :k, field].ravel().astype(np.int32)
    return pd.DataFrame(columns)


