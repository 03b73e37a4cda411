"""The headline: the three numbers of a card to quote, chosen by the kind of guarantee.

- Membership: for a pure ε-DP guarantee, the positive accuracy at the base rate (Thudi et al.: a
  precise statement at the user's own base rate); otherwise the TPR at 1 % false positives, the
  number the auditing literature reports.
- One secret: the smaller of the two valid one-guess bounds (Swanberg et al.'s β, replace-one;
  Kulynych et al.'s 1 − f(κ), the stated adjacency), naming which.
- Many targets for a pure or (ε, δ) guarantee: the 95 % bound on how many of the targets are
  reconstructed; for μ-GDP and DP-SGD: the tight membership advantage TPR − FPR over the whole
  privacy profile.
"""

from __future__ import annotations

from .accounted import Accounted
from .card import Headline, Row
from .rows import prob


def choose(g: Accounted, rows: dict[str, Row]) -> tuple[Headline, ...]:
    out = []
    pa = rows["membership.positive_accuracy"]
    if g.as_stated.pure and pa.value is not None:
        out.append(
            Headline(
                pa.key,
                "a membership attacker who says 'member' is right at most",
                f"{prob(pa.value)} of the time (base rate {prob(pa.baseline)})",
                pa.value,
            )
        )
    else:
        t = rows["membership.tpr_at_fpr_0.01"]
        out.append(
            Headline(
                t.key,
                "a membership test that flags 1 % of non-members catches at most",
                f"{prob(t.value)} of members",
                t.value,
            )
        )
    b, k = rows["reconstruction.beta"], rows["reconstruction.baseline_fdp"]
    one = min((r for r in (b, k) if r.value is not None), key=lambda r: r.value)
    out.append(
        Headline(
            one.key,
            "one guess of a secret (prior success "
            f"{prob(one.baseline)}) is right with probability at most",
            prob(one.value),
            one.value,
        )
    )
    if g.kind in ("epsilon", "epsilon-delta"):
        q = rows["reconstruction.quantiles"]
        n = q.label.split("of ")[-1].split(":")[0]
        out.append(
            Headline(
                q.key,
                "with probability 95 %, the targets reconstructed in one run number at most",
                f"{int(q.values[-1])} of {n} (prior alone: {int(q.baseline)})",
                q.value,
            )
        )
    else:
        adv = rows["membership.advantage_fdp"]
        out.append(
            Headline(
                adv.key,
                "no membership test's TPR − FPR exceeds",
                prob(adv.value),
                adv.value,
            )
        )
    return tuple(out)
