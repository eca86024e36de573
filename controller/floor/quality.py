"""Dealer quality: dealer errors per 100 hands, by dealer and by alert code, over a shift.

What counts (docs/floor.md "Dealer quality"): an alert carried by a stored hand record
(``ohh.alerts``) whose severity is ``warning`` or above and whose code is one of
the catalogue's ``DEALER`` category (:data:`DEALER_CODES`,
``controller/rules/catalogue.py``), the irregularities of the dealer's own handling (the deal, the
board, the blinds, the showdown's push). Each such alert is one error. Not counted: the
players' irregularities (action out of turn, string bets, short raises, clocks), the
floor's own alerts, the deck's faults (foreign, duplicate, boxed cards, jokers: the deck
was enrolled or mixed wrong, not dealt wrong), sensor refusals, and the consequences of an
error already counted (``MISDEAL``, ``HAND_VOID``, ``DEAD_HAND``).

A hand belongs to the dealer whose badge the record names (``dealer_id``; hands with none
are under ``(none)``); "per 100 hands" divides by the hands that dealer dealt in the range.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from controller.rules.catalogue import Category, codes_of

DEALER_CODES = codes_of(Category.DEALER)  # the catalogue's dealer errors
COUNTED_SEVERITIES = frozenset({"warning", "error", "critical"})
NO_DEALER = "(none)"


def is_error(alert: dict[str, Any]) -> bool:
    return alert.get("code") in DEALER_CODES and alert.get("severity") in COUNTED_SEVERITIES


@dataclass
class DealerRow:
    dealer: str
    hands: int = 0
    errors: int = 0
    by_code: Counter[str] = field(default_factory=Counter)

    @property
    def per_100(self) -> float:
        return 100.0 * self.errors / self.hands if self.hands else 0.0


@dataclass
class Quality:
    rows: list[DealerRow]  # worst first (errors per 100 hands), then by dealer
    codes: list[str]  # the codes seen, most errors first
    hands: int
    errors: int

    def as_json(self) -> dict[str, Any]:
        return {
            "hands": self.hands,
            "errors": self.errors,
            "per_100": round(100.0 * self.errors / self.hands, 2) if self.hands else 0.0,
            "codes": self.codes,
            "dealers": [
                {
                    "dealer": r.dealer,
                    "hands": r.hands,
                    "errors": r.errors,
                    "per_100": round(r.per_100, 2),
                    "by_code": {c: r.by_code[c] for c in self.codes if r.by_code[c]},
                    "by_code_per_100": {
                        c: round(100.0 * r.by_code[c] / r.hands, 2)
                        for c in self.codes
                        if r.by_code[c]
                    },
                }
                for r in self.rows
            ],
        }


def quality(envelopes: Iterable[dict[str, Any]]) -> Quality:
    """The dealer-quality table of these stored hand records."""
    rows: dict[str, DealerRow] = {}
    total = Counter[str]()
    hands = 0
    for env in envelopes:
        hands += 1
        dealer = env.get("dealer_id") or NO_DEALER
        row = rows.setdefault(dealer, DealerRow(dealer))
        row.hands += 1
        for a in env.get("ohh", {}).get("alerts", ()):
            if is_error(a):
                row.errors += 1
                row.by_code[a["code"]] += 1
                total[a["code"]] += 1
    ordered = sorted(rows.values(), key=lambda r: (-r.per_100, r.dealer))
    codes = [c for c, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))]
    return Quality(ordered, codes, hands, sum(total.values()))


# ------------------------------------------------------------------------------ the chart
PALETTE = ("#c0392b", "#d68910", "#2471a3", "#7d3c98", "#138d75", "#a04000", "#566573",
           "#b7950b", "#1f618d", "#943126")  # fmt: skip


def chart_svg(q: Quality, *, width: int = 720) -> str:
    """Errors per 100 hands per dealer as horizontal bars, one segment per alert code (the
    same colour for a code in every bar), with the figure at the bar's end and a legend."""
    bar, gap, left, top, right = 22, 8, 150, 10, 120  # right: room for the figures
    legend_h = 20 * ((len(q.codes) + 2) // 3) + 10
    height = top + max(1, len(q.rows)) * (bar + gap) + 30 + legend_h
    peak = max([r.per_100 for r in q.rows] + [1.0])
    scale = (width - left - right) / peak
    colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(q.codes)}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" role="img" aria-label="Dealer errors per 100 hands"'
        ' font-family="sans-serif" font-size="13">',
        "<title>Dealer errors per 100 hands, by alert code</title>",
    ]
    if not q.rows:
        out.append(f'<text x="10" y="{top + 16}">No hands in this range.</text>')
    for i, r in enumerate(q.rows):
        y = top + i * (bar + gap)
        out.append(
            f'<text x="{left - 8}" y="{y + bar - 6}" text-anchor="end">{escape(r.dealer)}</text>'
        )
        x = float(left)
        for c in q.codes:
            n = r.by_code[c]
            if not n:
                continue
            w = 100.0 * n / r.hands * scale
            out.append(
                f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar}" fill="{colour[c]}">'
                f"<title>{escape(r.dealer)}: {escape(c)} {n} in {r.hands} hands</title></rect>"
            )
            x += w
        out.append(
            f'<text x="{x + 6:.1f}" y="{y + bar - 6}">{r.per_100:.1f} ({r.errors}/{r.hands})</text>'
        )
    axis_y = top + max(1, len(q.rows)) * (bar + gap)
    out.append(
        f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" stroke="#888"/>'
        f'<text x="{left}" y="{axis_y + 16}">0</text>'
        f'<text x="{width - right}" y="{axis_y + 16}" text-anchor="end">{peak:.1f} per 100'
        " hands</text>"
    )
    for i, c in enumerate(q.codes):
        lx = 10 + (i % 3) * ((width - 20) // 3)
        ly = axis_y + 30 + (i // 3) * 20
        out.append(
            f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{colour[c]}"/>'
            f'<text x="{lx + 18}" y="{ly + 11}">{escape(c)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)
