"""MiniWorld family cards: one table says, per family, the env, the causal chain a judge can
see, the NoCue target, the counterfactual operation and why the family was chosen.

Families are registered MiniWorld 2.1 envs with their own step sizes (15 degree turns and
0.15 m steps, or Sign's 45 degrees / 0.7 m), domain randomisation off (the envs' default) and
their own step limits, except Sign's (``step_limit``, recorded as ``max_episode_steps``).
Entity roles (``target``, ``cue``, ``carry``) name the entities by their index in
``env.unwrapped.entities`` right after ``env.reset(seed=seed)``. ``full_shows`` / ``cf_shows``
name the roles whose entities Full's / CF's last frame must show (gate V1, ``outcome.py``):
the reached box, PutNext's two boxes and, in its CF, the red box dropped next to nothing;
Sign's touched object (pseudo-role ``touched``: right in Full, of the wrong colour in CF). A CF
whose failure is an absence (TMaze, FourRooms: the agent ends in front of nothing) needs no
entity shown.

Considered and left out: PickupObjects (success needs every object; no single entity operation
breaks the chain visibly, only ``set num_objs``, which a judge cannot see), OneRoom (the same
chain as FourRooms without the doorways, so it adds no new evidence), YMaze/Hallway (TMaze's
chain again).
"""

from __future__ import annotations

from dataclasses import dataclass, field

FAMILY_GROUP = "miniworld"   # the --family value that selects every MiniWorld family


@dataclass(frozen=True)
class WorldCard:
    """What one MiniWorld family is about and how each variant of a group is built."""

    family: str
    env_id: str
    mission: str
    causal_chain: str
    chain_events: tuple[tuple[str, str], ...]   # (event type, entity role), in order
    nocue_role: str
    nocue_target: str
    nocue_budget: int
    cf_kind: str
    cf_ops: tuple[str, ...]
    why: str
    settable_attrs: tuple[str, ...] = field(default=())
    see_area: float = 0.005   # share of the view the NoCue entity covers for a "see" event
    see_by: str = "area"      # "area": see_area; "legible": the sign's word can be read
    step_limit: int | None = None   # the env's max_episode_steps when the default is too short
    full_shows: tuple[str, ...] = ("target",)   # roles Full's last frame must show (gate V1)
    cf_shows: tuple[str, ...] = ()               # roles CF's last frame must show (gate V1)

    def env_kwargs(self, seed: int) -> dict:
        """Constructor arguments of the env for this seed (recorded in the group)."""
        if self.family == "sign":
            return {"color_index": int(seed) % 3, "goal": (int(seed) // 3) % 2}
        return {}


_CARDS = (
    WorldCard(
        "tmaze", "MiniWorld-TMaze-v0",
        "go to the red box",
        "walk the hallway -> see the box at the end of one arm -> turn into that arm -> reach "
        "the box",
        (("see", "target"), ("approach", "target"), ("reach", "target")),
        "target", "the red box before the agent approaches it", 5,
        "move the box to the mirror position in the other arm", ("move_entity",),
        "a binary spatial choice (left or right arm) decided by one visible object; moving it "
        "to the other arm keeps every action valid and the agent ends at an empty arm"),
    WorldCard(
        "fourrooms", "MiniWorld-FourRooms-v0",
        "go to the red box",
        "cross rooms through the openings -> see the box -> reach the box",
        (("see", "target"), ("approach", "target"), ("reach", "target")),
        "target", "the red box before the agent approaches it", 5,
        "move the box to the free floor point farthest from the agent's path",
        ("move_entity",),
        "navigation through doorways with the goal often out of view at the start; moving "
        "the box off the path leaves the same walk ending in front of nothing"),
    WorldCard(
        "sign", "MiniWorld-Sign-v0",
        "read the colour on the sign, then go to the {shape} of that colour",
        "go round the wall -> read the sign -> go to the object of the sign's colour and the "
        "mission's shape -> touch it",
        (("see", "cue"), ("reach", "target")),
        "cue", "the sign in the frames before the agent reads it (glimpses from afar; never "
        "the reading frame, where its word is legible)", 10,
        "swap the target with the object of the same shape in another colour that the "
        "agent's path never comes near", ("swap_entities",),
        "a cue -> choice chain like MiniGrid's Memory: the sign's word decides which of six "
        "objects is right; after the swap the same walk touches an object of the wrong colour "
        "(reward -1). Sign's own 20-step limit was made for DREAM's meta-RL split (read the sign "
        "in one episode, touch the object in another); reading the word and touching the object "
        "in one episode needs the detour to the sign, so the limit is raised to 40",
        see_by="legible", step_limit=40, full_shows=("touched",), cf_shows=("touched",)),
    WorldCard(
        "putnext", "MiniWorld-PutNext-v0",
        "put the red box next to the yellow box",
        "go to the red box -> pick it up -> carry it to the yellow box -> drop it next to it",
        (("pickup", "carry"), ("drop", "carry"), ("next_to", "target")),
        "target", "the yellow box before the agent approaches it", 5,
        "move the yellow box to the free floor point farthest from the agent's path",
        ("move_entity",),
        "a two-object relation with pick up and drop; with the yellow box moved away the red "
        "box is dropped at the same spot, next to nothing",
        full_shows=("carry", "target"), cf_shows=("carry",)),
)

CARDS: dict[str, WorldCard] = {c.family: c for c in _CARDS}
FAMILIES: tuple[str, ...] = tuple(CARDS)


def get_card(family: str) -> WorldCard:
    if family not in CARDS:
        raise ValueError(f"unknown MiniWorld family {family!r}; expected "
                         f"{FAMILY_GROUP!r} or one of {', '.join(FAMILIES)}")
    return CARDS[family]


def families_for(name: str) -> tuple[str, ...]:
    """'miniworld' -> every MiniWorld family; a family name -> that family."""
    return FAMILIES if name == FAMILY_GROUP else (get_card(name).family,)


def roles(family: str, u) -> dict[str, int]:
    """Entity role -> index in ``u.entities`` of a freshly reset env."""
    idx = {id(e): i for i, e in enumerate(u.entities)}
    if family in ("tmaze", "fourrooms"):
        return {"target": idx[id(u.box)]}
    if family == "sign":
        target = u._objects[u._goal][u._color_index]
        sign = next(i for i, e in enumerate(u.entities) if type(e).__name__ == "TextFrame")
        return {"target": idx[id(target)], "cue": sign}
    if family == "putnext":
        return {"carry": idx[id(u.red_box)], "target": idx[id(u.yellow_box)]}
    raise ValueError(f"unknown MiniWorld family {family!r}")


def mission_text(family: str, u) -> str:
    card = get_card(family)
    if family == "sign":
        return card.mission.format(shape=("box", "key")[u._goal])
    return card.mission


def env_short(env_id: str) -> str:
    """'MiniWorld-TMaze-v0' -> 'TMaze' (used in group ids)."""
    return env_id.removeprefix("MiniWorld-").rsplit("-v", 1)[0]
