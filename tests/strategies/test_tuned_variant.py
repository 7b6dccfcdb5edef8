"""The named variant ``weighted_tuned``: a built-in by name, whose spec is its own name (not its
base's), in this process and in a fresh one (what a dask worker does)."""

from __future__ import annotations

import json
import subprocess
import sys

import strategies
from strategies.catalogue import (
    SESSION_PREFIX,
    builtins,
    is_builtin,
    reference,
    resolve,
    spec_of,
)
from strategies.definition import variant
from strategies.weighted import weighted, weighted_tuned
from strategies.weighted_tuned_table import TUNED_PARAMETERS


def test_weighted_tuned_is_a_builtin_sharing_weighted_code():
    found = builtins()
    assert found["weighted_tuned"] is weighted_tuned
    assert list(found).index("weighted_tuned") == list(found).index("weighted") + 1
    assert weighted_tuned.function is weighted.function
    assert weighted_tuned.code_key == weighted.code_key  # one compiled slot for both
    assert is_builtin(weighted_tuned) and "weighted_tuned" in strategies.builtin_names()
    values = dict(zip(weighted_tuned.parameter_names(), weighted_tuned.default_params()))
    assert all(values[name] == value for name, value in TUNED_PARAMETERS.items())


def test_the_spec_of_a_named_variant_is_its_name():
    tuned = resolve("weighted_tuned")
    assert reference(tuned) == spec_of(tuned) == "weighted_tuned"
    assert resolve(spec_of(tuned)) is tuned
    assert spec_of(weighted) == "weighted"  # the base keeps its own


def test_a_bracket_variant_of_the_named_variant_keeps_its_base():
    spec = "weighted_tuned[w_award=1.25]"
    changed = resolve(spec)
    assert spec_of(changed) == spec
    again = resolve(spec_of(changed))
    assert again.name == changed.name
    assert again.default_params().tolist() == changed.default_params().tolist()
    expected = dict(zip(weighted_tuned.parameter_names(), weighted_tuned.default_params()))
    expected["w_award"] = 1.25
    assert dict(zip(again.parameter_names(), again.default_params().tolist())) == expected


def test_a_variant_renamed_in_python_still_has_no_reference():
    renamed = variant(weighted, name="my_weights", w_award=2.0)
    assert reference(renamed) is None
    assert spec_of(renamed).startswith(SESSION_PREFIX)
    # a variant renamed over the tuned name with other values is not the built-in
    impostor = variant(weighted, name="weighted_tuned", w_award=123.0)
    assert reference(impostor) is None


def test_a_fresh_process_resolves_it_by_name():
    spec = spec_of(weighted_tuned)
    code = ("import json, sys; from strategies.catalogue import resolve, spec_of; "
            f"s = resolve({spec!r}); "
            "print(json.dumps([s.name, spec_of(s), s.default_params().tolist(), s.code_key]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=True)
    name, again, values, key = json.loads(result.stdout)
    assert (name, again) == ("weighted_tuned", "weighted_tuned")
    assert values == weighted_tuned.default_params().tolist()
    assert key == weighted_tuned.code_key
