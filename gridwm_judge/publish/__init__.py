"""Results that travel: publish scored runs to a results dataset repo and a model repo's
``.eval_results`` (the Hub's eval-results convention), and build a leaderboard from them."""

from gridwm_judge.publish.entries import Entry, PublishError, entries_of, gather
from gridwm_judge.publish.leaderboard_html import LeaderboardResult, write_leaderboard
from gridwm_judge.publish.results_repo import Plan, plan_publish, publish_to_hub, write_local

__all__ = ["Entry", "LeaderboardResult", "Plan", "PublishError", "entries_of", "gather",
           "plan_publish", "publish_to_hub", "write_leaderboard", "write_local"]
