"""Claims.family: one rule for a claim that repeats per member, one claim per member."""

import pytest

from bnnsample.figures.claims import Claim, Claims, csv_rows, not_tested, reproduced


def _claims():
    c = Claims("statement")

    @c.rule("first", "a single claim", "§1", "yes")
    def _first(ran):
        return reproduced("1")

    @c.family(
        "w1",
        ("A", "B", "C"),
        "W1 of {} at h = {0.25}",
        "§2, Fig. {}",
        {"A": "0.1", "B": "0.2", "C": "0.3"},
        source="printed",
        tolerance=lambda m: f"within {len(m)}0%",
        method="exact W1",
    )
    def _w1(member, ran):
        return reproduced(f"ours {member}") if member in ran else None

    @c.family("order", (("ccadl", 1), ("msgld", 2)), "{} is order {}", "§3", "slope {}")
    def _order(member, ran):
        return not_tested("scale", why=f"{member[0]} not resolved")

    return c


def test_a_family_files_one_claim_per_member_in_order_under_name_and_member():
    c = _claims()
    assert list(c) == ["first", ("w1", "A"), ("w1", "B"), ("w1", "C"), ("order", "ccadl", 1), ("order", "msgld", 2)]
    assert c["w1", "B"] == Claim("W1 of B at h = {0.25}", "§2, Fig. B", "0.2", "printed", "within 10%", "exact W1")
    assert c["order", "msgld", 2] == Claim("msgld is order 2", "§3", "slope msgld", "statement")


def test_the_rule_gets_the_member_and_a_none_files_no_row():
    rows = _claims().outcomes({"A", "C"})
    assert [(cl.text, o.ours) for cl, o in rows][:3] == [("a single claim", "1"), ("W1 of A at h = {0.25}", "ours A"),
                                                          ("W1 of C at h = {0.25}", "ours C")]  # fmt: skip
    assert [o.why for _, o in rows[3:]] == ["ccadl not resolved", "msgld not resolved"]
    assert [r["claim_id"] for r in csv_rows("x-fig1", rows, "s")] == [f"x-fig1#{i}" for i in range(1, 6)]


def test_a_family_refuses_a_key_filed_twice_no_members_and_too_few_items():
    c = _claims()
    with pytest.raises(ValueError, match="filed twice"):
        c.family("w1", ("A",), "t", "w", "p")(lambda m: None)
    with pytest.raises(ValueError, match="no members"):
        c.family("x", (), "t", "w", "p")
    with pytest.raises(ValueError, match="for the member"):
        Claims().family("y", ("A",), "{} and {}", "w", "p")(lambda m: None)
