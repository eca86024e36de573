# mypy: disable-error-code="comparison-overlap"
"""Clause tests of burns on an all-in run-out (C9). Names carry the clause-inventory ids."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode
from controller.rules.phases import Phase

A = AlertCode


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-irreg-12c")
def test_000_S3_irreg_12c_runout_burn_error_correctable_until_the_award(profile: str) -> None:
    """000 IRREGULARITIES 12. [L144] (12c): on a last round with no betting (all-in run-out)
    a burn error can be corrected until the pot is awarded. A river dealt without a burn is
    flagged and the pot is not awarded; once the card is moved to the burn and the river
    dealt, the pot goes to the best hand on the corrected board."""
    t = Table(profile, {1: 1000, 2: 400, 3: 1000}).post_blinds()
    t.deal({2: "AsAd", 3: "KsKd", 1: "2c7d"})
    t.fold(1).chips(2, 350).chips(3, 300)
    t.flop("2s", "7h", "9c").turn("Jh").mark().board("4c")  # river without a burn
    assert t.codes == [A.MISSING_BURN]
    assert t.phase is Phase.BOARD and t.records == []  # not awarded
    t.burn("4c").board("Kh")
    # 003 [L195] names no correction but the reshuffle: the move is flagged (issue 13)
    wrong = [A.WRONG_BURN] if profile == "club-003" else []
    assert t.phase is Phase.COMPLETE and t.codes == [A.MISSING_BURN, *wrong]
    rec = t.records[-1]
    assert [str(c) for c in rec.board] == ["2s", "7h", "9c", "Jh", "Kh"]
    assert [str(c) for c in rec.burns][-1] == "4c"
    assert rec.pots[0].winners == (3,)  # three kings beat the aces
