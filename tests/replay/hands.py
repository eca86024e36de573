"""Hand-written PHH hands for the replay tests."""

# a hand with a flop bet that is answered, so every injection kind has a place in it
HAND_WITH_FLOP_BET = """
variant = 'NT'
antes = [0, 0, 0, 0]
blinds_or_straddles = [50, 100, 0, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000, 10000]
actions = ['d dh p1 AsKs', 'd dh p2 7h2d', 'd dh p3 QcQd', 'd dh p4 9s8s',
           'p3 cbr 300', 'p4 cc', 'p1 cc', 'p2 f',
           'd db Jc5h2s', 'p1 cc', 'p3 cbr 600', 'p4 f', 'p1 cc',
           'd db Th', 'p1 cc', 'p3 cc',
           'd db 3d', 'p1 cbr 1000', 'p3 cc']
finishing_stacks = [8100, 9900, 12300, 9700]
"""

# all in before the flop: the board runs out with nobody left to bet
ALL_IN_PREFLOP = """
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 1000, 1000]
actions = ['d dh p1 8s6s', 'd dh p2 7c2d', 'd dh p3 AsAh',
           'p3 cbr 1000', 'p1 f', 'p2 cc',
           'd db Ks9d4c', 'd db 3h', 'd db Jd']
finishing_stacks = [950, 0, 2050]
"""

# three stacks all in for different amounts: a main pot and two side pots, decided at a
# showdown (no finishing stacks: pokerkit's play of the file is the outcome)
SIDE_POTS = """
variant = 'NT'
antes = [0, 0, 0, 0]
blinds_or_straddles = [50, 100, 0, 0]
min_bet = 100
starting_stacks = [3000, 500, 1500, 3000]
actions = ['d dh p1 KsKd', 'd dh p2 AhAd', 'd dh p3 QsQd', 'd dh p4 7c2h',
           'p3 cbr 1500', 'p4 cc', 'p1 cc', 'p2 cc',
           'd db 9c5d3h', 'p1 cc', 'p4 cc',
           'd db 8s', 'p1 cbr 500', 'p4 cc',
           'd db 2c', 'p1 cc', 'p4 cc',
           'p1 sm KsKd', 'p4 sm 7c2h', 'p2 sm AhAd', 'p3 sm QsQd']
"""
