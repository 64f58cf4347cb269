"""``gridwm-judge plan``: groups needed to tell two judges apart, their cost, and what a
profile resolves (formulas in :mod:`gridwm_judge.scoring.power`)."""

from __future__ import annotations

import argparse

from gridwm_judge.command_line import add_command
from gridwm_judge.scoring import plan as planning
from gridwm_judge.scoring.power import DEFAULTS

FORMULAS = """formulas:
  unpaired (default): n per judge solves power = Phi(h sqrt(n/2) - z) + Phi(-h sqrt(n/2) - z),
    h = |2 asin sqrt(p2) - 2 asin sqrt(p1)| (Cohen's h), p1 = --base-rate, p2 = p1 + --mde,
    z = Phi^-1(1 - alpha/2)  (statsmodels' NormalIndPower, ratio 1)
  --paired: n shared groups = (z sqrt(psi) + z_power sqrt(psi - mde^2))^2 / mde^2, psi =
    --discordance, the share of groups where exactly one judge discriminates (Full accepted
    and CF rejected at the neutral presentation): McNemar's test (Connor 1987)
  --profile: (1 - alpha) CI half-width z sqrt(p (1 - p) / n); MDE = the difference whose n
    is the size
  tokens per request ~ sum over images of ceil(w/patch) * ceil(h/patch) + prompt chars / 4
    + the task's answer budget, measured on a smoke-sized sample of each config"""


def _handler(args: argparse.Namespace) -> int:
    planning.metric(args.metric)
    from gridwm_judge.prices import PriceTable

    judges = [j for j in args.judges.split(",") if j]
    table = PriceTable.load(args.prices) if judges else None
    if table is not None:  # bad judges, profile or prices are refused before any measuring
        from gridwm_judge.judges import split_spec

        if not args.profile:
            raise ValueError("--judges prices a profile: give --profile too (e.g. standard)")
        for judge in judges:
            split_spec(judge)
    result = planning.plan(
        args.metric, args.mde, paired=args.paired, alpha=args.alpha, power_=args.power,
        discordance=args.discordance, base_rate=args.base_rate, profile=args.profile,
        configs=[c for c in args.configs.split(",") if c] or None, patch=args.patch,
        progress=True)
    shown = planning.text(result)
    if table is not None:
        from gridwm_judge.scoring.plan_cost import cost_text, profile_costs

        costs = profile_costs(args.profile, judges, table=table, progress=True)
        result["judge_costs"] = [c.to_json() for c in costs]
        shown += f"\n\n{cost_text(args.profile, costs, table)}"
    print(planning.to_json(result) if args.json else shown)
    return 0


def register(subparsers) -> None:
    p = add_command(
        subparsers, "plan", _handler,
        help="how many groups it takes to tell two judges apart, what that costs, and what a "
        "profile resolves",
        description="Power planning for comparing judges on a proportion (IDR_raw, p_active, "
        "Acc_cf over groups; Acc_A1 over questions; accuracy over items).",
        epilog=FORMULAS, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--metric", default="idr_raw", help=f"one of {', '.join(planning.METRICS)}")
    p.add_argument("--mde", type=float, default=0.1,
                   help="minimum detectable difference between the two judges, in (0, 1)")
    p.add_argument("--alpha", type=float, default=DEFAULTS["alpha"], help="two-sided level")
    p.add_argument("--power", type=float, default=DEFAULTS["power"], help="power")
    p.add_argument("--paired", action="store_true",
                   help="two judges on the same groups (McNemar); default unpaired")
    p.add_argument("--discordance", type=float, default=DEFAULTS["discordance"],
                   help="share of discordant groups (with --paired, and for a profile's MDE)")
    p.add_argument("--base-rate", type=float, default=DEFAULTS["base_rate"],
                   help="the first judge's rate (unpaired n, CI half-widths)")
    p.add_argument("--profile", default=None,
                   help="also print each config's and family's CI half-width and MDE there")
    p.add_argument("--configs", default="",
                   help="comma list of configs to cost (default: every config the metric scores)")
    p.add_argument("--patch", type=int, default=planning.PATCH,
                   help="image patch side in pixels for the token estimate")
    p.add_argument("--json", action="store_true", help="print JSON (top-level groups_needed)")
    p.add_argument("--judges", default="", metavar="SPECS",
                   help="comma list of judge specs to price the --profile for (online and "
                        "batch; e.g. openai:gpt-4o,anthropic:claude-sonnet-4-6)")
    p.add_argument("--prices", default=None, metavar="FILE",
                   help="a prices file (default: the shipped prices.json; same form)")
