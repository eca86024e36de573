"""The words of docs/rules.md that are not in the profiles' TOML: what the core enforces
with each setting's value (:data:`REMEDY`), the rulings every profile shares
(:data:`COMMON`), and the clause-inventory rows the core does not check, with why
(:data:`NOT_ENFORCED`; tests/coverage_plugin.py holds a full run to it). Kept in step with
the rules core by whoever changes it; ``scripts/gen_rules_doc.py`` lays them out."""

from __future__ import annotations

# (setting, value) -> what the core enforces; "*" applies to any value ({v} is the value)
REMEDY: dict[tuple[str, str], str] = {
    ("max_seats", "*"): "seats 1..{v}; a card or player at another seat is rejected",
    ("button_rule", "dead"): "dead button: the BB advances one player; SB and button follow, "
    "even to empty seats (dead SB, dead button)",
    ("button_rule", "dead-keep-player"): "dead button, but the button stays in front of "
    "the same player (two hands running) rather than go to an empty seat",
    ("button_rule", "dead-003"): "SB eliminated: the button stays; BB eliminated: the button "
    "moves and there is no SB",
    ("draw_rule", "high-card"): "button draw: high card, suits spades > hearts > diamonds > "
    "clubs (G4); a seat with two cards: redraw",
    ("draw_rule", "first-ace"): "button draw: cards round the table until the first ace (G7)",
    ("new_player_wait", "sb-to-button"): "a new player between the button and the SB waits "
    "for the button; a card to him is a misdeal",
    ("new_player_wait", "bb-to-button"): "a new player between the button and the BB (the "
    "button and SB seats) waits; a card to him is a misdeal",
    ("new_player_wait", "sb-or-button-seat"): "a new player waits only in the SB or button seat",
    ("new_player_wait", "none"): "a new player is dealt in at once",
    ("misdeal_window", "two-after-blinds"): "misdeal only until two players after the blinds "
    "have acted (folds count); then MISDEAL_REFUSED",
    ("misdeal_window", "substantial-action"): "misdeal only before substantial action (two "
    "actions with chips in, or any three); then MISDEAL_REFUSED",
    ("misdeal_window", "two-players-act"): "misdeal only before two players act; then "
    "MISDEAL_REFUSED",
    ("misdeal_window", "until-flop"): "no cutoff stated: a misdeal may be called until the flop",
    ("exposed_misdeal", "first-or-second"): "the 1st or 2nd card exposed: misdeal; another "
    "single exposed card is replaced after the deal and is the flop burn",
    ("exposed_misdeal", "first"): "the 1st card exposed: misdeal; another single exposed card "
    "is replaced after the deal and is the flop burn",
    ("exposed_misdeal", "first-two-both"): "both of the first two cards exposed: misdeal; a "
    "single exposed card is replaced after the deal (G3)",
    ("exposed_misdeal", "any"): "any hole card exposed by the dealer: misdeal",
    ("exposed_misdeal_count", "*"): "{v} exposed hole cards in one deal: misdeal",
    ("boxed_misdeal_count", "*"): "{v} boxed cards: misdeal; a single one is replaced (G2)",
    ("boxed_counts_with_exposed", "true"): "exposed and boxed cards count together",
    ("boxed_counts_with_exposed", "false"): "exposed and boxed cards are counted apart",
    ("out_of_sequence", "misdeal"): "a card out of sequence: misdeal",
    ("out_of_sequence", "warn"): "a card out of sequence: warning, the deal goes on in order",
    ("out_of_sequence", "note"): "a card out of sequence: a note (info), no misdeal, no hold; "
    "the deal goes on in order",
    ("foreign_card", "void"): "a card of no registered deck: the hand is void, bets returned",
    ("foreign_card", "floor"): "a card of no registered deck: a floor ruling (FOREIGN_CARD "
    "warning, the hand held; dealt on, the card replaced after the deal; the supervisor's "
    "badge, then MISDEAL or ACK = play on)",
    ("entitlement_error", "misdeal"): "a card to a seat not entitled (a new player "
    "waiting), or an entitled seat dealt out: misdeal",
    ("entitlement_error", "floor"): "a card to a seat not entitled (a new player waiting), "
    "or an entitled seat (an absent player) dealt out: a floor ruling (the hand is held; "
    "supervisor's badge, then MISDEAL, or ACK: the new player plays the hand dealt / the "
    "seat dealt out is dead, its blinds stay in the pot)",
    ("wrong_first_seat", "misdeal"): "the first card to the wrong seat: misdeal",
    ("wrong_first_seat", "note"): "the first card to the wrong seat: a note (WRONG_FIRST_SEAT "
    "info), no misdeal, no hold; dealt on clockwise from that seat",
    ("wrong_first_seat", "floor"): "the first card to the wrong seat: a floor ruling "
    "(WRONG_FIRST_SEAT warning, the hand held; the supervisor's badge, then MISDEAL = "
    "misdeal or ACK = play on, dealt on from that seat; FLOOR_DECISION records it)",
    ("button_two_consecutive", "true"): "the button may receive two consecutive cards",
    ("button_two_consecutive", "false"): "two consecutive cards to the button are out of sequence",
    ("extra_card", "first-player-burn"): "one extra card to the first player after the deal "
    "is the flop burn; any other wrong count: misdeal",
    ("extra_card", "misdeal"): "any wrong number of hole cards: misdeal",
    ("four_card_flop", "reshuffle"): "four flop cards: board back into the stub, the burn "
    "stays, a new flop without a burn; a bet on three of them kept gets the same ruling",
    ("four_card_flop", "fourth-is-burn"): "four flop cards: known order, the 4th is the turn "
    "burn (set aside and burned at the turn, or burned at once; another turn burn: "
    "WRONG_BURN); unknown order, the floor draws the burn (CRITICAL): only after a "
    "supervisor's badge, onto the burn or held aside",
    ("premature_turn", "would-be-river"): "premature turn set aside; the would-be river is the "
    "turn; the river is dealt without a burn",
    ("premature_turn", "reshuffle-no-burn"): "premature turn/river shuffled back; the new card "
    "is dealt without a burn",
    ("burn_error", "correct-before-action"): "missing burn: move the card to the burn, until "
    "the first action on it; after that the board stands and the next street burns two; "
    "double burn: the card goes back and is the next burn (left on the burn: any other next "
    "burn is WRONG_BURN)",
    ("burn_error", "correct"): "burn errors corrected to the proper positions at any time: "
    "a missed burn moved to the burn after bets on it, the next card takes its place and the "
    "round goes on (none skipped); uncorrected, the next street burns two",
    ("burn_error", "reshuffle-street"): "missing burn: the street's board cards are void "
    "(none of them counts as the board) until returned and reshuffled, then burned and dealt "
    "again; moving the card to the burn is not this remedy (WRONG_BURN)",
    ("sweep_before_burn", "true"): "a burn with unswept bets: SWEEP_BEFORE_BURN",
    ("sweep_before_burn", "false"): "not checked",
    ("raise_limit", "0"): "unlimited raises",
    ("raise_limit", "*"): "{v} raises per round; a further raise is a call (RAISE_LIMIT)",
    ("short_raise_completion", "true"): "a short raise of 50% or more of the last raise is "
    "completed to the minimum; under 50% it is a call and the excess comes back (RAISE_SHORT)",
    ("short_raise_completion", "false"): "a short raise is flagged with the minimum",
    ("oversized_chip_is_call", "true"): "a single oversized chip facing a bet is a call",
    ("oversized_chip_is_call", "false"): "an oversized chip counts at its value",
    ("multiple_chip_rule", "true"): "several same chips facing a bet are a call if one chip "
    "less would not call",
    ("multiple_chip_rule", "false"): "several chips count at their value",
    ("rabbit_hunt_alert", "true"): "a board card after the hand ended: RABBIT_HUNT",
    ("rabbit_hunt_alert", "false"): "not checked",
    ("joker", "replace-after-deal"): "a joker is replaced after the deal; a seat that acts "
    "while still holding it has a fouled (dead) hand (003 joker b)",
    ("joker", "misdeal"): "a joker (non-standard card): misdeal within the window",
    ("ante_style", "big-blind"): "the big blind posts the table's ante",
    ("ante_style", "each"): "every dealt-in player antes",
    ("bb_ante_order", "blind-first"): "a big blind short of the blind and the ante posts the "
    "blind first, the rest is the ante; the ante is dead money in the main pot, never part "
    "of the live bet nor returned as uncalled",
    ("bb_ante_order", "ante-first"): "a big blind short of the blind and the ante posts the "
    "ante first, the rest is the blind; the ante is dead money in the main pot",
    ("max_ante_big_blinds", "*"): "a level whose ante is above {v} big blind(s) is refused, "
    "at the table and by the floor console (issue 22)",
    ("smallest_chip", "*"): "split pots and odd chips are paid in {v}-chips: the odd chips "
    "one {v} each from the first winner left of the button (002 [L63])",
    ("untabled_muck_relinquishes", "true"): "SHOWDOWN: a hand mucked without being tabled "
    "(ACK) has no claim to the pot; HAND_NOT_TABLED if it was the best hand read",
    ("untabled_muck_relinquishes", "false"): "SHOWDOWN: a hand mucked untabled still wins by "
    "the cards read (cards speak)",
    ("declared_board_keeps_claim", "true"): "SHOWDOWN: a seat that declared it plays the "
    "board (DECLARE) keeps its claim when it throws its cards away",
    ("declared_board_keeps_claim", "false"): "SHOWDOWN: a declaration of playing the board "
    "keeps no claim: the hand is tabled to win",
    ("kill_losers_before_award", "true"): "SHOWDOWN: every hand tabled, the dealer is told "
    "to kill each losing hand and the pot waits until they are; LOSING_HAND_LIVE only if he "
    "moves to award (ACK) while one is live",
    ("kill_losers_before_award", "false"): "SHOWDOWN: the pot is awarded once every hand is "
    "tabled or mucked",
    ("hold_cards_until_winner", "true"): "SHOWDOWN: the best hand read going to the muck "
    "untabled before the winner is declared is HAND_NOT_TABLED as a warning (no claim, unless "
    "the director retrieves it)",
    ("hold_cards_until_winner", "false"): "SHOWDOWN: the best hand read mucked untabled is "
    "HAND_NOT_TABLED as a note (info)",
    ("every_hand_shows", "true"): "SHOWDOWN: every remaining player shows: any hand mucked "
    "unshown (undeclared) is HAND_NOT_TABLED (a note)",
    ("every_hand_shows", "false"): "SHOWDOWN: a hand mucked unshown is noted only if it was "
    "the best hand read",
    ("clock_seconds", "*"): "CLOCK: {v} s to act (G8)",
    ("clock_countdown_seconds", "*"): "then a {v}-second countdown, then the hand is dead",
    ("heads_up_bb_first_card", "true"): "heads-up the big blind gets the first card",
    ("heads_up_bb_first_card", "false"): "heads-up the button gets the first card",
    ("interrupted_hand", "misdeal"): "a hand cut by a controller restart is re-dealt as after "
    "a misdeal (G1)",
    ("interrupted_hand", "resume"): "a hand cut by a controller restart is replayed from the "
    "stored events and plays on",
    ("out_of_turn", "binding-if-unchanged"): "action out of turn is flagged and held; at its "
    "turn it stands if nothing changed, else the chips go back and the seat has all options",
    ("out_of_turn", "check-or-call"): "action out of turn is flagged and held; at its turn a "
    "bet out of turn is only a check and a raise only a call (the rest goes back); a bet or "
    "raise before then returns all options; a call stays a call",
    ("out_of_turn", "floor-decides"): "action out of turn is flagged and held; at its turn, if "
    "nothing changed, the floor rules: ACK lets it stand, chips taken back give all options",
    ("out_of_turn", "take-back"): "the wager out of turn is taken back at once and the true "
    "position acts; if the next seat acts first, the wager stands and action continues",
    ("string_bet_is_call", "true"): "a second motion without a declaration is a string bet "
    "(STRING_BET): the wager stays a call (or the first bet); the rest goes back",
    ("string_bet_is_call", "false"): "a second motion adds to the wager",
    ("declared_raise_motions", "0"): "a declared raise may be put in in any number of motions",
    ("declared_raise_motions", "*"): "a declared raise may take {v} motions (the call, then "
    "one more); later motions are judged as undeclared",
    ("short_call_stays_call", "true"): "a short call brought up may not become a raise: "
    "CALL_NOT_RAISE, the excess goes back",
    ("short_call_stays_call", "false"): "no rule of its own (a string bet where the profile has "
    "one)",
    ("chips_in_turn_stay", "true"): "chips taken back from a wager made in turn, during the "
    "round: CHIPS_TAKEN_BACK, they still count",
    ("chips_in_turn_stay", "false"): "not checked",
    ("bb_option_ack", "true"): "pre-flop with no raise the big blind's option waits for the "
    "dealer's ACK (his check) or his raise; a flop dealt before it is a PREMATURE_FLOP",
    ("bb_option_ack", "false"): "the dealer moving on (sweep, burn, flop) is the big blind's "
    "check (a check is not sensed, L2)",
    ("nonstandard_fold_alert", "true"): "a fold facing no bet is binding and flagged "
    "(NONSTANDARD_FOLD)",
    ("nonstandard_fold_alert", "false"): "a fold facing no bet is a plain fold",
    ("mucked_hand", "retrievable"): "FLOOR right after a fold holds the hand; the supervisor's "
    "badge shows the folded cards and whether both are read on the muck (dealer's display "
    "only); ACK retrieves an identifiable hand (live, acts again), FLOOR: the fold stands, "
    "no refund (000 DEAD HANDS 2 [L126], IRREGULARITIES 3 [L135])",
    ("mucked_hand", "no-redress"): "FLOOR right after a fold holds the hand; after the "
    "supervisor's badge, ACK or FLOOR: no redress, the hand stays dead; an uncalled bet or "
    "raise of that seat is returned (002 [L169]). A hand that goes to the muck with its bet "
    "or raise uncalled is held so by the table itself (FLOOR_CALLED, warning): a dealer's "
    "kill or the player's fold is the floor's call",
}

# every profile: clauses enforced the same way whatever the settings
COMMON = [
    (
        "wrong first seat",
        "per `wrong_first_seat`: misdeal (000 MISDEALS bullet 8, 002 c), "
        "TDA 35-A), the floor decides (003: no remedy named), or a note, dealt on from that "
        "seat (004: silent)",
    ),
    (
        "card to an empty seat / entitled seat dealt out",
        "misdeal (000 bullets 9-10, 002 d)-e)); a waiting or absent player's seat per "
        "`entitlement_error` (004: the floor decides)",
    ),
    (
        "foreign or duplicate card",
        "hand void, all bets returned (000 IRREGULARITIES 4-5); a "
        "foreign card per `foreign_card` (003: the floor decides)",
    ),
    ("misdeal", "button and posted blinds stay; same hand number, new deal number (G1)"),
    ("wrong count after the window", "that hand is dead, its chips stay (000 DEAD HANDS 1)"),
    ("premature flop", "burn stays, new flop without a burn (000 IRREG 11, 004 AR-3)"),
    ("action out of turn", "flagged with the profile's clause and ruled per `out_of_turn`"),
    (
        "verbal declaration",
        "binds the seat in turn in every profile (000 BETTING 5 [L153], "
        "002 [L125], 003 [L61]): `call` caps the wager at the call, `raise`/`all_in` let the "
        "chips come in several motions and an oversized chip be a raise (002 [L141]), `fold` and "
        "`check` act at once, `play_board` is recorded; out of turn a declaration is flagged and "
        "does not bind (a fold does)",
    ),
    (
        "not a check",
        "the dealer's NOT_A_CHECK right after chips that made checks inferred "
        "undoes those checks and judges the chips as action out of turn",
    ),
    (
        "a bet out of turn on an unbet street",
        "the skipped seats keep every option (000 [L157], 002 [L129], 003 [L61], 004 AR-13): "
        "the first skipped seat's own bet (chips that are no clean call or full raise after a "
        "check) or the dealer's ACK of its check undoes the checks the bet inferred, as NOT A "
        "CHECK does; the bet is then ruled out of turn per `out_of_turn`",
    ),
    (
        "chips after the closing call",
        "more chips from the seat whose call closed the round, before a sweep, burn or card, "
        "are a second motion of that call: a string raise is a call (STRING_BET, the extra "
        "back); where `string_bet_is_call` is false (004) they add up to a raise",
    ),
    ("minimum raise", "at least the last full raise (000 BETTING 3)"),
    ("short all-in", "does not reopen the betting (000 BETTING 4, 002 Raises)"),
    ("short call", "WAGER_SHORT until brought up (000 BETTING 11)"),
    ("all-in and betting complete", "ALL_IN_FACE_UP prompt (002, 000, 003, 004 TG-26)"),
    ("split pot", "odd chip to the first winner left of the button (002, TDA 20)"),
    (
        "showdown",
        "SHOWDOWN phase: the show order is prompted (the river's last aggressor first, else "
        "the first live seat left of the button, then clockwise: 002 [L47], C19); ACK tables "
        "the prompted hand, hole cards on the muck muck it; each pot is awarded among the "
        "tabled hands once every hand is tabled or mucked; the tabled winner going to the muck "
        "is WINNING_HAND_MUCKED (critical) and keeps its claim (002 [L59]); after an all-in "
        "run-out the hands are face up: awarded at once",
    ),
    (
        "uncalled bet",
        "returned to the bettor with an instruction, never a pot won (003 [L119], 002 [L169])",
    ),
    ("antes", "dead money in the main pot: never part of a live bet, never returned (G10)"),
    (
        "levels",
        "a new level applies from the first hand whose first blind is posted after it: the "
        "next hand, or, if that hand's blinds are already in the zones (the very first hand "
        "too), the hand after it (G11)",
    ),
    (
        "blinds",
        "ruled as the chips are put in, before any card (posting.py): chips in a zone that "
        "owes nothing: BLINDS_OUT_OF_POSITION naming the seats due; more than owed: "
        "BLIND_OVERPOSTED, take back the excess (000 [L64]: the big blind is the clock's, "
        "an over-post raises nothing); once every due seat has chips, a short blind that is "
        "not the whole stack: BLINDS_NOT_POSTED. At the first card: an empty or short blind "
        "zone: BLINDS_NOT_POSTED, the blind taken from the stack; an over-post not taken "
        "back: BLIND_OVERPOSTED again, the blind counts at the level's amount",
    ),
    ("joker kept while acting (003)", "the hand is fouled: dead, its chips stay in the pot"),
    ("a burn read on the muck antenna", "WRONG_BURN: move it to the burn spot (000 glossary)"),
    ("a sixth board card", "TOO_MANY_BOARD_CARDS; the river round stays open"),
    (
        "several players out in one hand",
        "instruction with the finishing order: larger starting stack places higher; equal "
        "stacks tie (000 SECTION 1 item 2, 004 TG-27, G5)",
    ),
    (
        "presence-only chip sensors (amount None, L3)",
        "whose turn it is, folds, out-of-turn action (the alert says the amount is not "
        "sensed), the clock and the misdeal window work; amounts are not checked: short "
        "calls, raise sizes, short blinds, the raise cap, all-ins and side pots (every $ row "
        "of the clause inventory) are skipped",
    ),
    ("heads-up", "SB on the button, acts first pre-flop and last after"),
    (
        "a chip of no registry in a betting zone",
        "not counted (the reader layer leaves it out of every amount); the daemon alerts "
        "FOREIGN_CHIP (warning) naming the seat: take it off, call the floor (000 SECTION 1 "
        "item 9 [L45]; others silent: the same)",
    ),
    (
        "which card EXPOSED / BOXED mean (G9)",
        "the card read most recently: the latest hole card, or a card laid on the burn antenna "
        "during the deal since then; after a press that ruled a replacement the console waits "
        "for a designation until the next hole card, and a card laid on the burn antenna "
        "overrides the press (`controller/rules/designate.py`). A card dealt off the table "
        "(000 IRREGULARITIES 9 [L141], 004 AR-14 [L69]) is designated so: judged as an exposed "
        "card at its place in the deal (a misdeal where the profile says so), else it stays on "
        "the burn as the flop burn and the seat gets the next card",
    ),
    (
        "cards thrown into another hand",
        "seat m's hole card read at seat n after the deal: seat m's hand is dead (its chips "
        'stay), "remove X from seat n", seat n keeps its own two (000 DEAD HANDS 3 [L127]; '
        "002/003/004 silent: the same ruling). At a seat next to seat m only both of m's "
        "cards make a throw: one card there may be the neighbouring antenna's read of a "
        "lifted card (L5; `controller/rules/thrown.py`)",
    ),
]

NOT_ENFORCED = [
    (
        "000-S3-irreg-1",
        "not announced: the core computes every hand's button, blinds and first seat from "
        "the last hand's and judges the next deal by them (blinds from other seats: "
        "BLINDS_NOT_POSTED; the first card elsewhere: WRONG_FIRST_SEAT), so the hand after a "
        "misplaced button is corrected; the disc is sensed only where puck sensors are fitted, "
        "and then only as the seat it is moved to between hands (SetButton). No input tells "
        "the core that a hand already played had the button wrong, so the 'corrected button' "
        "announcement before the next deal has nothing to start from",
    ),
    (
        "000-S5-dec-6",
        "no console input names the seats or the amount of a pot transfer after the award; "
        "each seat's contributions and the pots are in the hand record (`pots`, `actions`) "
        "for the director to reconstruct at the venue",
    ),
    (
        "000-S5-dec-7",
        "an impounded pot's ruling comes after the next deal: the table has no input that "
        "attaches a later ruling to an earlier hand (a FLOOR after the next deal's first card "
        "is answered 'too late to dispute', 000-S5-dec-5); the venue log holds the record",
    ),
    (
        "002-AskToSee-1",
        "the console cannot name which seat's hand to show once the hand is over (DECLARE "
        "speaks for the seat in turn only); the hole cards of every hand are in its hand "
        "record, for the director at the venue, never live",
    ),
    (
        "000-S3-irreg-7",
        "a missing card is never read, so during a hand the core cannot tell it from a card "
        "still in the stub; it never voids a hand for one (the row's ruling holds by "
        "construction). The deck audit is `railguard deck check` between hands (missing, "
        "extra, duplicate and unknown tags; tests/tools)",
    ),
    (
        "003-Open-deck52",
        "decks are registered by `railguard enroll` (52 cards in a known order) and audited "
        "by `railguard deck check`, both between hands (tests/tools); the core sees only the "
        "cards dealt, and a joker or a foreign tag in play is ruled (003 joker a/b, "
        "foreign_card = floor)",
    ),
    (
        "004-TG-8a",
        "which denominations are in play is the reader layer's chip registry, not the core's; "
        "the colour-up is an event between levels with no console input, and a removed "
        "denomination seen later in a zone is not checked (not built)",
    ),
    (
        "004-TG-8b",
        "the chip race needs each seat's odd-chip count, which no sensor reads (chips are "
        "counted in zones, not behind) and no console input can enter; the core has no race "
        "mode",
    ),
    (
        "004-AR-17",
        "stud wording (cards dealt before a round is complete, one card per active player "
        "removed): for hold'em board cards it contradicts AR-3/AR-4, which the profile "
        "applies and the core enforces (premature_turn = would-be-river)",
    ),
    (
        "81 lines of the clause inventory's 'Not observable' section",
        "no sensor, console or venue input can check them (conduct, etiquette, presence, "
        "verbal statements)",
    ),
]
