"""The big blind's option before the flop (K16), followed to the flop (issue 13).

A venue that wants the dealer's ACK for the big blind's check sets ``bb_option_ack = true``
in its own profile file; no packaged profile does since issue 24 (003 [L89] gives the big
blind his option as every rulebook does and asks the table for nothing more), so these tests
use club-003 with the press turned on, as such a venue would.

003 Opening Deal [L89]: "If no one has raised by the time the play comes back around to the
large blind, the large blind has the option to "check" his own BLIND wager or raise."
003 Dealer Errors [L199]: "If cards are flopped by the dealer before all the betting is
completed, the entire flop is taken back and reshuffled. The burn card will remain and no
additional burn card will be used for this flop."

Table: 4 players, button 1, small blind 2 (50), big blind 3 (100); pre-flop seat 4 acts
first."""

from __future__ import annotations

from dataclasses import replace

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode
from controller.rules.events import ConsoleButton
from controller.rules.phases import Phase
from controller.rules.profile import Profile, builtin_profile

A = AlertCode


def with_press() -> Profile:
    """club-003 as a venue that wants the press would set it in its own profile file."""
    return replace(builtin_profile("club-003"), bb_option_ack=True)


def limped(profile: str | Profile) -> Table:
    t = Table(profile, 4).post_blinds().deal()
    t.chips(4, 100).chips(1, 100).chips(2, 50)  # everyone calls: the option is the BB's
    assert t.snap.to_act == 3
    return t.mark()


@pytest.mark.clause("003-OpeningDeal-bb", "003-DealerErrors-flopearly", profiles=("club-003",))
def test_003_OpeningDeal_bb_flop_before_the_option_is_premature() -> None:
    """A flop dealt before the big blind checks or raises is premature: the burn stays, the
    option is still his, and after his check the new flop comes without a burn."""
    t = limped(with_press())
    t.burn("Tc")
    assert t.alert(A.ACTION_PENDING).seat == 3  # the round is not complete
    t.mark().board("Kh", "Qs", "5d")
    a = t.alert(A.PREMATURE_FLOP)
    assert a.seat == 3 and "burn stays" in a.remedy and "without a burn" in a.remedy
    assert t.phase is Phase.BETTING and t.snap.to_act == 3
    t.mark().press(ConsoleButton.ACK)  # the big blind checks
    assert t.phase is Phase.BOARD and t.alerts == []
    t.board("Jh", "9c", "4d")  # no second burn
    assert t.alerts == [] and t.phase is Phase.BETTING and t.snap.to_act == 2


@pytest.mark.clause("003-OpeningDeal-bb", profiles=("club-003",))
def test_003_OpeningDeal_bb_sweep_leaves_the_option_open() -> None:
    """The dealer sweeping the limpers' chips does not check for the big blind: he may
    still raise."""
    t = limped(with_press())
    t.sweep()
    assert t.phase is Phase.BETTING and t.snap.to_act == 3
    t.chips(3, 200)  # the big blind raises to 300
    assert t.alerts == [] and t.snap.current_bet == 300 and t.snap.to_act == 4


@pytest.mark.clause("003-OpeningDeal-bb", profiles=("club-003",))
def test_003_OpeningDeal_bb_option_closes_after_his_check_or_a_raise() -> None:
    """Once the big blind checked (ACK), the sweep, burn and flop are in order; with a raise
    before him the option is gone and the round closes as usual."""
    t = limped(with_press()).press(ConsoleButton.ACK).flop()
    assert t.alerts == [] and t.snap.to_act == 2
    t = Table(with_press(), 4).post_blinds().deal()
    t.chips(4, 300).chips(1, 300).chips(2, 250).chips(3, 200).mark().flop()
    assert t.alerts == [] and t.snap.to_act == 2


@pytest.mark.parametrize("profile", PROFILES)
def test_packaged_profiles_take_the_dealer_moving_on_as_the_bb_check(profile: str) -> None:
    """A check is not sensed (L2): under every packaged profile, club-003 included (003
    [L89] asks for no press), the sweep, burn and flop are the big blind's check: no
    PREMATURE_FLOP, no ACTION_PENDING (their bb_option_ack is false)."""
    assert builtin_profile(profile).bb_option_ack is False
    t = limped(profile).flop()
    assert A.PREMATURE_FLOP not in t.codes and A.ACTION_PENDING not in t.codes
    assert t.phase is Phase.BETTING and t.snap.to_act == 2
