"""A read-only sequence that makes each item when it is read.

Frames rendered from a replay and images decoded from bytes cost time, and a judge or a
storyboard often reads only a few of them; the subclasses make one item on demand, this class
gives them the one indexing contract (negative indexes, slices, one clear error out of range).
"""

from __future__ import annotations

import operator
from abc import abstractmethod
from collections.abc import Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class LazySequence(Sequence[T]):
    """Subclasses write ``__len__`` and ``_item(i)`` for ``0 <= i < len(self)``;
    ``item_name`` names the items in the errors."""

    item_name = "item"

    @abstractmethod
    def _item(self, i: int, /) -> T: ...

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        try:
            i = operator.index(index)
        except TypeError:
            raise TypeError(f"{self.item_name} index must be an int or slice, "
                            f"got {type(index).__name__}") from None
        if not -len(self) <= i < len(self):
            raise IndexError(f"{self.item_name} index {index} out of range for {len(self)} "
                             f"{self.item_name}s")
        return self._item(i % len(self))
