"""The rules core's JSON codec: every state and log entry goes through it on each render, so it decodes by
per-type functions worked out once. These properties hold for any value, nested however deep."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from combat.rules.core import from_json, to_json


@dataclass(frozen=True)
class Leaf:
    name: str
    hits: int
    ratio: float = 0.5
    flag: bool = False


@dataclass(frozen=True)
class Node:
    kind: Literal["ship", "crew"]
    leaves: tuple[Leaf, ...] = ()
    pair: tuple[int, str] = (0, "")
    scores: dict[str, int] | None = None
    child: Node | None = None  # a dataclass holding its own type


text = st.text(max_size=8)
leaves = st.builds(
    Leaf,
    name=text,
    hits=st.integers(-(10**6), 10**6),
    ratio=st.floats(allow_nan=False, allow_infinity=False),
    flag=st.booleans(),
)
nodes = st.recursive(
    st.builds(
        Node,
        kind=st.sampled_from(["ship", "crew"]),
        leaves=st.lists(leaves, max_size=3).map(tuple),
        pair=st.tuples(st.integers(), text),
        scores=st.none() | st.dictionaries(text, st.integers(), max_size=3),
    ),
    lambda inner: st.builds(Node, kind=st.sampled_from(["ship", "crew"]), child=inner),
    max_leaves=4,
)


@given(nodes)
def test_any_value_survives_json_and_back(node):
    assert from_json(Node, json.loads(json.dumps(to_json(node)))) == node


@given(leaves)
def test_a_missing_field_takes_its_default(leaf):
    data = to_json(leaf)
    del data["flag"], data["ratio"]
    assert from_json(Leaf, data) == Leaf(name=leaf.name, hits=leaf.hits)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"name": "a", "hits": "3"}, TypeError),  # text where a whole number belongs
        ({"name": "a", "hits": True}, TypeError),  # true is not a number here
        ({"name": 3, "hits": 3}, TypeError),
        ({"name": "a", "hits": 3, "ratio": "x"}, TypeError),
        ({"name": "a", "hits": 3, "flag": 1}, TypeError),
        (["a", 3], TypeError),  # a list where an object belongs
    ],
)
def test_wrong_types_are_refused(data, error):
    with pytest.raises(error):
        from_json(Leaf, data)


def test_wrong_shapes_in_containers_are_refused():
    with pytest.raises(ValueError):
        from_json(Node, {"kind": "planet"})  # not one of the literal's values
    with pytest.raises(TypeError):
        from_json(Node, {"kind": "ship", "leaves": {"name": "a"}})  # an object where a list belongs
    with pytest.raises(ValueError):
        from_json(Node, {"kind": "ship", "pair": [1, "a", "extra"]})  # a fixed-length tuple
    with pytest.raises(TypeError):
        from_json(Node, {"kind": "ship", "scores": {"a": "high"}})
    with pytest.raises(TypeError):
        from_json(Node, {"kind": "ship", "child": "none"})  # neither null nor a Node


def test_values_that_are_not_json_are_refused():
    with pytest.raises(TypeError):
        to_json({1, 2})
    with pytest.raises(TypeError):
        to_json(Leaf)  # a class, not a value
